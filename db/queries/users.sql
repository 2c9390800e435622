-- name: UserInsert :one
INSERT INTO users (username, password_hash, role)
VALUES (@username, @password_hash, @role)
RETURNING *;

-- name: UserGetByUsername :one
SELECT * FROM users WHERE lower(username) = lower(@username);
