-- name: BooksSeenElsewhereCount :one
-- The books: items seen and in no table of a state (discarded by archival
-- or drained). Claims and archives are found by the item's own hash (see
-- seen.item); a claim must be this item's, not a copy of it queued from
-- another backfeed shard.
-- The project's keys in seen read first, from every worker (seen is spread
-- over them by hash), then looked for on the project's.
WITH s AS MATERIALIZED (SELECT s.id, s.hash, s.item FROM seen s WHERE s.project_id = @project_id)
SELECT count(*) FROM s WHERE true
  AND NOT EXISTS (SELECT 1 FROM todo t WHERE t.project_id = @project_id AND t.id = s.id)
  AND NOT EXISTS (SELECT 1 FROM claims c WHERE c.project_id = @project_id AND c.hash = coalesce(s.item, s.hash) AND c.id = s.id)
  AND NOT EXISTS (SELECT 1 FROM done d WHERE d.project_id = @project_id AND d.id = s.id)
  AND NOT EXISTS (SELECT 1 FROM archived a WHERE a.project_id = @project_id AND a.hash = coalesce(s.item, s.hash));

-- name: SeenIDsOfNames :many
-- The ids of the items named (by the key of the default scope, or by the
-- item's own hash: a name may have been queued from several shards), for
-- an admin's action on a selection: each statement then finds its rows by
-- id, never by reading a queue for the names.
-- Each a probe of a key (a fence), as DoneRecordBatch finds its items.
SELECT s.id FROM seen s
WHERE s.project_id = @project_id AND s.hash = ANY(ARRAY(SELECT item_hash(n) FROM unnest(@names::text[]) AS n))
UNION
-- The items' own hashes looked up in one read of every worker rather than
-- by a probe per name, which Citus cannot send to the workers.
SELECT s.id FROM seen s
WHERE s.project_id = @project_id AND s.item = ANY(ARRAY(SELECT item_hash(n) FROM unnest(@names::text[]) AS n)) AND s.item IS NOT NULL;

-- name: SeenAddBatch :many
-- TodoAddUnseen's names new to the project, on Citus: a batch's keys
-- recorded in seen, which is spread over every worker (by the key's hash),
-- in a statement of its own; returns the ids of the names the project had
-- not seen, and TodoAddUnseen queues them on the project's worker.
WITH batch AS MATERIALIZED (
    SELECT b.name, item_key_hash(@shard::text, coalesce(b.key, b.name)) AS hash,
           CASE WHEN b.key IS NULL AND @shard::text = '' THEN NULL ELSE item_hash(b.name) END AS item,
           CASE WHEN @shuffle::boolean
                -- The id seen drew for a new name (SeenAddBatch, which draws
                -- them: @fresh_ids empty there), by its low 20 bits, its
                -- place in the batch; a name seen before draws one unused.
                THEN coalesce((SELECT f.id FROM unnest(@fresh_ids::bigint[]) AS f (id) WHERE f.id & 1048575 = b.ord),
                              (floor(random() * 1099511627776)::bigint << 23) | (((@id_block::bigint << 20) | b.ord) & 8388607))
                ELSE (@id_block::bigint << 20) | b.ord END AS id,
           b.params, coalesce(b.site, 0) AS site, coalesce(b.tag, '') AS tag
    -- The arrays side by side: a missing one reads as NULLs.
    FROM ROWS FROM (unnest(@names::text[]), unnest(@keys::text[]), unnest(@params::text[]), unnest(@sites::integer[]), unnest(@tags::text[]))
         WITH ORDINALITY AS b (name, key, params, site, tag, ord)
)
INSERT INTO seen (project_id, hash, id, item)
SELECT @project_id, batch.hash, batch.id, nullif(batch.item, batch.hash) FROM batch ORDER BY batch.hash
ON CONFLICT DO NOTHING
RETURNING seen.id
;

-- name: SeenOfBatch :many
-- TodoAddUnseen's names seen before, on Citus, when the project recrawls
-- or the post skips the seen check: the keys of a batch found in seen, on
-- every worker, with their ids.
WITH batch AS MATERIALIZED (
    SELECT b.name, item_key_hash(@shard::text, coalesce(b.key, b.name)) AS hash,
           CASE WHEN b.key IS NULL AND @shard::text = '' THEN NULL ELSE item_hash(b.name) END AS item,
           CASE WHEN @shuffle::boolean
                -- The id seen drew for a new name (SeenAddBatch, which draws
                -- them: @fresh_ids empty there), by its low 20 bits, its
                -- place in the batch; a name seen before draws one unused.
                THEN coalesce((SELECT f.id FROM unnest(@fresh_ids::bigint[]) AS f (id) WHERE f.id & 1048575 = b.ord),
                              (floor(random() * 1099511627776)::bigint << 23) | (((@id_block::bigint << 20) | b.ord) & 8388607))
                ELSE (@id_block::bigint << 20) | b.ord END AS id,
           b.params, coalesce(b.site, 0) AS site, coalesce(b.tag, '') AS tag
    -- The arrays side by side: a missing one reads as NULLs.
    FROM ROWS FROM (unnest(@names::text[]), unnest(@keys::text[]), unnest(@params::text[]), unnest(@sites::integer[]), unnest(@tags::text[]))
         WITH ORDINALITY AS b (name, key, params, site, tag, ord)
)
SELECT seen.hash, seen.id FROM batch JOIN seen ON seen.project_id = @project_id AND seen.hash = batch.hash;
