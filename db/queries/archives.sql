-- name: ArchiveInsert :one
INSERT INTO archives (project_id, day, mode, path, items, bytes, first_done_at, last_done_at, sha256, file_size)
VALUES (@project_id, @day, @mode, @path, @items, @bytes, @first_done_at, @last_done_at, @sha256, @file_size)
RETURNING id;

-- name: ArchivesByProject :many
SELECT * FROM archives WHERE project_id = @project_id ORDER BY day;

-- name: ArchiveForItem :one
-- The archive file holding an archived item.
SELECT a.* FROM archived x JOIN archives a ON a.id = x.archive_id
WHERE x.project_id = @project_id AND x.hash = item_hash(@name);

-- name: DonePartitions :many
-- The day partitions of a project's completions (done_pN_YYYYMMDD), oldest
-- first; the default partition is not among them.
SELECT c.relname::text AS name
FROM pg_catalog.pg_inherits i JOIN pg_catalog.pg_class c ON c.oid = i.inhrelid
WHERE i.inhparent = to_regclass(format('done_p%s', @project_id::integer))
  AND c.relname ~ '_[0-9]{8}$'
ORDER BY c.relname;
