-- name: SeenFind :one
-- An item the project has seen, by its key in shard @shard (empty for the
-- default scope), else by the name of the item queued (the newest of them
-- when several shards queued the same item): its id and its own hash.
(SELECT s.id, coalesce(s.item, s.hash)::bytea AS item FROM seen s
 WHERE s.project_id = @project_id AND s.hash = item_key_hash(@shard::text, @name::text))
UNION ALL
(SELECT s.id, s.item::bytea AS item FROM seen s
 WHERE s.project_id = @project_id AND s.item = item_hash(@name::text) AND s.item IS NOT NULL
 ORDER BY s.id DESC LIMIT 1)
LIMIT 1;

-- name: SeenPurgeBatch :execrows
-- Deletes up to @max of a deleting project's rows (see projects.Purge).
DELETE FROM seen WHERE ctid = ANY(ARRAY(SELECT p.ctid FROM seen p WHERE p.project_id = @project_id LIMIT @max));

-- name: BooksSeenCount :one
-- The books: the items the project ever accepted.
SELECT count(*) FROM seen WHERE project_id = @project_id;

-- name: BooksSeenElsewhereCount :one
-- The books: items seen and in no table of a state (discarded by archival
-- or drained). Claims and archives are found by the item's own hash (see
-- seen.item); a claim must be this item's, not a copy of it queued from
-- another backfeed shard.
SELECT count(*) FROM seen s WHERE s.project_id = @project_id
  AND NOT EXISTS (SELECT 1 FROM todo t WHERE t.project_id = @project_id AND t.id = s.id)
  AND NOT EXISTS (SELECT 1 FROM claims c WHERE c.project_id = @project_id AND c.hash = coalesce(s.item, s.hash) AND c.id = s.id)
  AND NOT EXISTS (SELECT 1 FROM done d WHERE d.project_id = @project_id AND d.id = s.id)
  AND NOT EXISTS (SELECT 1 FROM archived a WHERE a.project_id = @project_id AND a.hash = coalesce(s.item, s.hash));
