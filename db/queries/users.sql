-- name: UserInsert :one
INSERT INTO users (username, password_hash, role)
VALUES (@username, @password_hash, @role)
RETURNING *;
