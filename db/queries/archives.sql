-- name: ArchiveInsert :one
INSERT INTO archives (project_id, day, mode, path, items, bytes, first_done_at, last_done_at, sha256, file_size)
VALUES (@project_id, @day, @mode, @path, @items, @bytes, @first_done_at, @last_done_at, @sha256, @file_size)
RETURNING id;

-- name: ArchivesByProject :many
SELECT * FROM archives WHERE project_id = @project_id ORDER BY day;

-- name: ArchiveForItem :one
-- The archive file holding an archived item, by the item's own hash.
SELECT a.* FROM archived x JOIN archives a ON a.id = x.archive_id
WHERE x.project_id = @project_id AND x.hash = @hash;

-- name: DonePartitions :many
-- The day partitions of a project's completions (done_pN_YYYYMMDD), oldest
-- first; the default partition is not among them.
SELECT c.relname::text AS name
FROM pg_catalog.pg_inherits i JOIN pg_catalog.pg_class c ON c.oid = i.inhrelid
WHERE i.inhparent = to_regclass(format('done_p%s', @project_id::integer))
  AND c.relname ~ '_[0-9]{8}$'
ORDER BY c.relname;

-- name: DoneDayPartitions :many
-- The day partitions of done that every project shares (done_YYYYMMDD),
-- as a Citus database lays done out, oldest first; the default partition
-- is not among them. None on plain PostgreSQL, where the days are each
-- project's (DonePartitions).
SELECT c.relname::text AS name
FROM pg_catalog.pg_inherits i JOIN pg_catalog.pg_class c ON c.oid = i.inhrelid
WHERE i.inhparent = 'done'::regclass
  AND c.relname ~ '^done_[0-9]{8}$'
ORDER BY c.relname;

-- name: ArchivedPurgeBatch :execrows
-- Deletes up to @max of a deleting project's rows (see archive.Archiver.Purge).
DELETE FROM archived WHERE archived.project_id = @project_id AND ctid = ANY(ARRAY(SELECT p.ctid FROM archived p WHERE p.project_id = @project_id LIMIT @max));

-- name: TransactionLockTimeout :exec
-- SET LOCAL lock_timeout: from here to the end of the transaction, a
-- statement waits at most @milliseconds for a lock.
SELECT set_config('lock_timeout', (@milliseconds::bigint)::text, true);

-- name: TransactionTimeZoneUTC :exec
-- Times the transaction renders as text are UTC. A SET statement, which a
-- Citus coordinator passes on to the workers the transaction reads (see
-- TransactionSetsPropagated): they render what they read.
SET LOCAL TimeZone = 'UTC';

-- name: TransactionSetsPropagated :exec
-- On a Citus coordinator: the transaction's SET LOCAL statements are
-- passed on to the workers it uses (Citus passes none by default).
SET LOCAL citus.propagate_set_commands = 'local';

-- name: BooksArchivedCount :one
-- The books: the archived items (with a file).
SELECT count(*) FROM archived WHERE project_id = @project_id;

-- name: BooksArchivesBytes :one
-- The books: the bytes of the archived days, discarded ones included.
SELECT LEAST(coalesce(sum(bytes), 0), 9223372036854775807)::bigint AS bytes FROM archives WHERE project_id = @project_id;

-- name: BooksArchivesItems :one
-- The books: the completions of the archived days, discarded ones included.
SELECT coalesce(sum(items), 0)::bigint AS items FROM archives WHERE project_id = @project_id;

-- name: BooksArchivedElsewhere :one
-- The books: archived items whose file is another project's archive.
SELECT count(*) FROM archived a JOIN archives r ON r.id = a.archive_id
WHERE a.project_id = @project_id AND r.project_id <> @project_id;
