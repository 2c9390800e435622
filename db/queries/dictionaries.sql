-- name: DictionaryInsert :one
INSERT INTO dictionaries (project_id, bytes, sha256, created_by)
VALUES (@project_id, @bytes, @sha256, @created_by)
RETURNING id, project_id, sha256, octet_length(bytes)::integer AS size, created_at, created_by;

-- name: DictionaryLatest :one
SELECT id, project_id, sha256, octet_length(bytes)::integer AS size, created_at, created_by
FROM dictionaries WHERE project_id = @project_id ORDER BY id DESC LIMIT 1;

-- name: DictionariesForProject :many
SELECT id, project_id, sha256, octet_length(bytes)::integer AS size, created_at, created_by
FROM dictionaries WHERE project_id = @project_id ORDER BY id DESC;

-- name: DictionaryBytes :one
SELECT id, project_id, sha256, bytes FROM dictionaries WHERE id = @id;

-- name: BooksDictionariesMismatched :one
-- The books: the project's dictionaries whose recorded SHA-256 is not
-- that of their bytes (what the scripts check after downloading them).
SELECT count(*) FROM dictionaries
WHERE project_id = @project_id AND sha256 <> encode(sha256(bytes), 'hex');
