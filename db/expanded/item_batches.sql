-- name: ItemBatchOf :one
-- The batch that first queued the items of id block @block: when, how,
-- into which queue and in which backfeed shard.
SELECT queued_at, source, queue, shard FROM item_batches WHERE project_id = @project_id AND block = @block;

-- name: ItemBatchesPurgeBatch :execrows
-- Deletes up to @max of a deleting project's rows (see items.Engine.Purge).
DELETE FROM item_batches WHERE item_batches.project_id = @project_id AND ctid = ANY(ARRAY(SELECT p.ctid FROM item_batches p WHERE p.project_id = @project_id LIMIT @max));
