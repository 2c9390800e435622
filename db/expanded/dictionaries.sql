-- name: DictionaryInsert :one
INSERT INTO dictionaries (project_id, bytes, sha256, created_by)
VALUES (@project_id, @bytes, @sha256, @created_by)
RETURNING id, project_id, sha256, token, octet_length(bytes)::integer AS size, created_at, created_by;

-- name: DictionaryLatest :one
SELECT id, project_id, sha256, token, octet_length(bytes)::integer AS size, created_at, created_by
FROM dictionaries WHERE project_id = @project_id ORDER BY id DESC LIMIT 1;

-- name: DictionariesForProject :many
SELECT id, project_id, sha256, token, octet_length(bytes)::integer AS size, created_at, created_by
FROM dictionaries WHERE project_id = @project_id ORDER BY id DESC;

-- name: DictionaryMeta :one
-- A dictionary without its bytes (octet_length reads a stored value's
-- length from its header): what answering a conditional request, or
-- refusing one, takes. With its project's slug.
SELECT d.id, d.project_id, p.slug, d.sha256, d.token, octet_length(d.bytes)::integer AS size
FROM dictionaries d JOIN projects p ON p.id = d.project_id WHERE d.id = @id;

-- name: DictionaryBytes :one
SELECT bytes FROM dictionaries WHERE id = @id;

-- name: BooksDictionariesMismatched :one
-- The books: the project's dictionaries whose recorded SHA-256 is not
-- that of their bytes (what the scripts check after downloading them).
SELECT count(*) FROM dictionaries
WHERE project_id = @project_id AND sha256 <> encode(sha256(bytes), 'hex');
