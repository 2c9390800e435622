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
-- Deletes up to @max of a deleting project's rows (see items.Engine.Purge),
-- by their key: on Citus seen is spread by hash, where a row's physical
-- address names a row of each shard.
DELETE FROM seen WHERE seen.project_id = @project_id
  AND seen.hash = ANY(ARRAY(SELECT p.hash FROM seen p WHERE p.project_id = @project_id LIMIT @max));

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

-- name: BooksSeenReferences :one
-- The books: the items that expired claims, update tags and visits to
-- come name by id, and how many of each the project has not seen. Seen
-- is read once, joined to the (fewer) ids named; ids are unique in seen.
WITH named AS MATERIALIZED (
    SELECT r.id, bool_or(r.kind = 1) AS expiry, bool_or(r.kind = 2) AS tag, bool_or(r.kind = 3) AS revisit
    FROM (SELECT e.id, 1 AS kind FROM claim_expiries e WHERE e.project_id = @project_id
          UNION ALL SELECT g.id, 2 FROM item_tags g WHERE g.project_id = @project_id
          UNION ALL SELECT v.id, 3 FROM revisits v WHERE v.project_id = @project_id) r
    GROUP BY r.id
), known AS (
    SELECT DISTINCT named.id, named.expiry, named.tag, named.revisit
    FROM named JOIN seen s ON s.project_id = @project_id AND s.id = named.id
)
SELECT ((SELECT count(*) FILTER (WHERE expiry) FROM named) - (SELECT count(*) FILTER (WHERE expiry) FROM known))::bigint AS expiries_unseen,
       ((SELECT count(*) FILTER (WHERE tag) FROM named) - (SELECT count(*) FILTER (WHERE tag) FROM known))::bigint AS tags_unseen,
       ((SELECT count(*) FILTER (WHERE revisit) FROM named) - (SELECT count(*) FILTER (WHERE revisit) FROM known))::bigint AS revisits_unseen;

-- name: SeenIDsOfNames :many
-- The ids of the items named (by the key of the default scope, or by the
-- item's own hash: a name may have been queued from several shards), for
-- an admin's action on a selection: each statement then finds its rows by
-- id, never by reading a queue for the names.
-- Each a probe of a key (a fence), as DoneRecordBatch finds its items.
SELECT s.id FROM seen s
WHERE s.project_id = @project_id AND s.hash = ANY(ARRAY(SELECT item_hash(n) FROM unnest(@names::text[]) AS n))
UNION
SELECT k.id FROM unnest(@names::text[]) AS n (name), LATERAL (
    SELECT s.id FROM seen s
    WHERE s.project_id = @project_id AND s.item = item_hash(n.name) AND s.item IS NOT NULL
    OFFSET 0 /* fence */) k;

-- name: SeenKeyedOf :one
-- Whether item @id was deduplicated in shard @shard under its own name
-- (false: under a key of its own, a backfeed post's KEY).
SELECT EXISTS (SELECT 1 FROM seen WHERE project_id = @project_id AND hash = item_key_hash(@shard::text, @name::text) AND id = @id)::boolean;
