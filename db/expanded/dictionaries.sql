-- name: DictionaryInsertLock :exec
-- Installs one at a time: each takes the id after the newest.
SELECT pg_advisory_xact_lock(hashtext('dictionaries'));

-- name: DictionaryInsert :one
-- Its id (public_id) is the second it is installed, or the second after
-- the newest id when that one is taken (taken under DictionaryInsertLock):
-- ids are distinct Unix seconds, in the order dictionaries were installed.
-- An INSERT ... SELECT: Citus takes no subquery in an INSERT's VALUES.
INSERT INTO dictionaries (public_id, project_id, bytes, sha256, created_by)
SELECT greatest(floor(extract(epoch FROM now()))::bigint, coalesce(max(d.public_id), 0) + 1),
       @project_id::integer, @bytes::bytea, @sha256::text, @created_by::text
FROM dictionaries d
RETURNING public_id AS id, coalesce(legacy_id, 0)::bigint AS legacy_id, project_id, sha256, token, octet_length(bytes)::integer AS size, created_at, created_by;

-- name: DictionaryLatest :one
SELECT public_id AS id, coalesce(legacy_id, 0)::bigint AS legacy_id, project_id, sha256, token, octet_length(bytes)::integer AS size, created_at, created_by
FROM dictionaries WHERE project_id = @project_id ORDER BY public_id DESC LIMIT 1;

-- name: DictionaryOfProject :one
-- The project's dictionary of id @id, or of old id @id (one installed
-- before ids were Unix seconds).
SELECT public_id AS id, coalesce(legacy_id, 0)::bigint AS legacy_id, project_id, sha256, token, octet_length(bytes)::integer AS size, created_at, created_by
FROM dictionaries WHERE project_id = @project_id AND (public_id = @id OR legacy_id = @id)
ORDER BY public_id = @id DESC LIMIT 1;

-- name: DictionariesForProject :many
SELECT public_id AS id, coalesce(legacy_id, 0)::bigint AS legacy_id, project_id, sha256, token, octet_length(bytes)::integer AS size, created_at, created_by
FROM dictionaries WHERE project_id = @project_id ORDER BY public_id DESC;

-- name: DictionaryMeta :one
-- A dictionary by id or old id, without its bytes (octet_length reads a
-- stored value's length from its header): what answering a conditional
-- request, or refusing one, takes. With its project's slug.
SELECT d.public_id AS id, coalesce(d.legacy_id, 0)::bigint AS legacy_id, d.project_id, p.slug, d.sha256, d.token, octet_length(d.bytes)::integer AS size
FROM dictionaries d JOIN projects p ON p.id = d.project_id WHERE d.public_id = @id OR d.legacy_id = @id
ORDER BY d.public_id = @id DESC LIMIT 1;

-- name: DictionaryBytes :one
SELECT bytes FROM dictionaries WHERE public_id = @id;

-- name: BooksDictionariesMismatched :one
-- The books: the project's dictionaries whose recorded SHA-256 is not
-- that of their bytes (what the scripts check after downloading them).
SELECT count(*) FROM dictionaries
WHERE project_id = @project_id AND sha256 <> encode(sha256(bytes), 'hex');

-- name: BooksDictionariesMisnumbered :one
-- The books: the project's dictionaries whose id is not ten digits (the
-- packer reads no other from a file's name), or whose old id is (it could
-- be taken for another dictionary's id).
SELECT count(*) FROM dictionaries
WHERE project_id = @project_id
  AND (public_id NOT BETWEEN 1000000000 AND 9999999999 OR legacy_id BETWEEN 1000000000 AND 9999999999);
