-- name: APITokenInsert :one
INSERT INTO api_tokens (user_id, name, secret_hash, scope, project_ids)
VALUES (@user_id, @name, @secret_hash, @scope, sqlc.narg(project_ids)::int[])
RETURNING *;

-- name: APITokenGet :one
-- A token as a request presents it: revoked ones too, which the caller
-- refuses after comparing the secret (a revoked token's answer tells no
-- more than a wrong one's).
SELECT * FROM api_tokens WHERE id = @id;

-- name: APITokensForUser :many
SELECT * FROM api_tokens WHERE user_id = @user_id ORDER BY id DESC;

-- name: APITokensAll :many
SELECT t.*, u.username FROM api_tokens t JOIN users u ON u.id = t.user_id ORDER BY t.id DESC;

-- name: APITokenRevoke :one
UPDATE api_tokens SET revoked_at = now()
WHERE id = @id AND revoked_at IS NULL
RETURNING *;

-- name: APITokenUsed :exec
-- When a token was last used, to the minute: a script's every request
-- does not write a row.
UPDATE api_tokens SET last_used_at = now()
WHERE id = @id AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute');

-- name: BooksAPITokensMalformed :one
-- The books of the tracker: API tokens not of the form the users package
-- writes (see users.CreateToken): a SHA-256 (32 bytes), a scope of read or
-- write, a name of one line of 1 to @max_name bytes, no date before the
-- token was made.
SELECT count(*) FROM api_tokens
WHERE octet_length(secret_hash) <> 32
   OR scope NOT IN ('read', 'write')
   OR name = '' OR octet_length(name) > @max_name::int OR name ~ '[[:cntrl:]]'
   OR last_used_at < created_at OR revoked_at < created_at;
