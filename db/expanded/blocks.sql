-- name: BlockInsert :one
-- A block set again takes the new reason, and is the new setter's.
INSERT INTO blocks (project_id, kind, value, reason, created_by)
VALUES (sqlc.narg('project_id'), @kind, @value, @reason, @created_by)
ON CONFLICT (coalesce(project_id, 0), kind, value)
-- (excluded.created_at is now(): Citus takes no function but an immutable
-- one in DO UPDATE SET.)
DO UPDATE SET reason = excluded.reason, created_by = excluded.created_by, created_at = excluded.created_at
RETURNING *;

-- name: BlockDelete :execrows
DELETE FROM blocks
WHERE coalesce(project_id, 0) = coalesce(sqlc.narg('project_id')::integer, 0) AND kind = @kind AND value = @value;

-- name: BlocksForProject :many
-- The project's own blocks and the global ones.
SELECT * FROM blocks WHERE project_id = @project_id OR project_id IS NULL ORDER BY id;

-- name: BooksBlocksLong :one
-- The books of the tracker: blocks holding a text past what an admin may
-- enter (projects.AddBlock, ParseBlock): a reason longer than @max_reason
-- bytes or of more than one line, a nick longer than @max_nick bytes.
SELECT count(*) FROM blocks
WHERE octet_length(reason) > @max_reason::int OR reason ~ '[[:cntrl:]]'
   OR (kind = 'nick' AND octet_length(value) > @max_nick::int);
