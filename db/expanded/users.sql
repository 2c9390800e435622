-- name: UserInsert :one
INSERT INTO users (username, password_hash, role)
VALUES (@username, @password_hash, @role)
RETURNING *;

-- name: UserGet :one
SELECT * FROM users WHERE id = @id;

-- name: UserGetByName :one
SELECT * FROM users WHERE lower(username) = lower(@username);

-- name: UserList :many
SELECT * FROM users ORDER BY lower(username);

-- name: UserSetPassword :exec
UPDATE users SET password_hash = @password_hash WHERE id = @id;

-- name: UserSetRole :exec
UPDATE users SET role = @role WHERE id = @id;

-- name: UserDelete :execrows
DELETE FROM users WHERE id = @id;


-- name: UserProjects :many
-- The projects a project admin was granted.
SELECT project_id FROM project_admins WHERE user_id = @user_id ORDER BY project_id;

-- name: ProjectAdminGrant :exec
INSERT INTO project_admins (user_id, project_id) VALUES (@user_id, @project_id)
ON CONFLICT DO NOTHING;

-- name: ProjectAdminRevoke :exec
DELETE FROM project_admins WHERE user_id = @user_id AND project_id = @project_id;

-- name: UsersAdminsLock :many
-- The global admins, locked until the transaction ends: a change that
-- would remove the last one sees every other such change.
SELECT id FROM users WHERE role = 'admin' ORDER BY id FOR UPDATE;
