-- name: RevisitsDue :one
-- Moves up to @max items whose visit is due (with @every, every item waiting:
-- a project no longer recurring visits each once more, now) into the queue
-- of their score (see revisit_queue), soonest first, and returns how many.
WITH due AS (
    DELETE FROM revisits
    WHERE revisits.project_id = @project_id AND ctid = ANY(ARRAY(
        SELECT r.ctid FROM revisits r
        WHERE r.project_id = @project_id AND (@every::boolean OR r.due_at <= now())
        ORDER BY r.due_at
        LIMIT @max
        FOR UPDATE SKIP LOCKED
    ))
    RETURNING revisits.id, revisits.name, revisits.site, revisit_queue(revisits.score) AS queue
), -- include: revisits_queued
)
SELECT count(*) FROM due;

-- name: RevisitOfItem :one
-- When an item's next visit is due, and its score.
SELECT due_at, score FROM revisits WHERE project_id = @project_id AND id = @id LIMIT 1;

-- name: ItemScoreGet :one
-- An item's score (1 when it has none).
SELECT coalesce((SELECT score FROM item_scores WHERE project_id = @project_id AND id = @id), 1)::float8 AS score;

-- name: RevisitsPurgeBatch :execrows
-- Deletes up to @max of a deleting project's rows (see items.Engine.Purge).
DELETE FROM revisits WHERE revisits.project_id = @project_id AND ctid = ANY(ARRAY(SELECT p.ctid FROM revisits p WHERE p.project_id = @project_id LIMIT @max));

-- name: ItemScoresPurgeBatch :execrows
-- Deletes up to @max of a deleting project's rows (see items.Engine.Purge).
DELETE FROM item_scores WHERE item_scores.project_id = @project_id AND ctid = ANY(ARRAY(SELECT p.ctid FROM item_scores p WHERE p.project_id = @project_id LIMIT @max));

-- name: BooksRevisitsCount :one
-- The books: the items waiting for their next visit.
SELECT count(*) FROM revisits WHERE project_id = @project_id;

-- name: BooksRevisitsElsewhereCount :one
-- The books: items waiting for their next visit that are also queued or
-- out (or scheduled twice).
SELECT ((SELECT count(*) FROM revisits r JOIN todo t ON t.project_id = r.project_id AND t.id = r.id WHERE r.project_id = @project_id)
      + (SELECT count(*) FROM revisits r JOIN claims c ON c.project_id = r.project_id AND c.id = r.id WHERE r.project_id = @project_id)
      + (SELECT count(*) - count(DISTINCT id) FROM revisits WHERE project_id = @project_id))::bigint;

-- name: RevisitsLock :exec
-- Serialises, per project, the moves out of revisits (the revisit job, an
-- admin queueing completed items again) until the transaction ends: taken
-- in a statement before the move, so the move's snapshot sees the other's.
SELECT pg_advisory_xact_lock(hashtext('revisits'), @project_id::integer);

-- name: BooksItemScoresUntracked :one
-- The books: scores of items the project no longer tracks: neither
-- queued (retired included), out, waiting for a visit nor done in the hot
-- table.
SELECT count(*) FROM item_scores sc
WHERE sc.project_id = @project_id
  AND NOT EXISTS (SELECT 1 FROM todo t WHERE t.project_id = @project_id AND t.id = sc.id)
  AND NOT EXISTS (SELECT 1 FROM claims c WHERE c.project_id = @project_id AND c.id = sc.id)
  AND NOT EXISTS (SELECT 1 FROM revisits r WHERE r.project_id = @project_id AND r.id = sc.id)
  AND NOT EXISTS (SELECT 1 FROM done d WHERE d.project_id = @project_id AND d.id = sc.id);

-- name: RevisitsCountItems :one
-- How many of the items of @ids named in @names wait for their next visit:
-- each a probe of revisits_item.
SELECT count(*) FROM unnest(@ids::bigint[]) i (id), LATERAL (
    SELECT 1 FROM revisits r
    WHERE r.project_id = @project_id AND r.id = i.id AND r.name = ANY(@names::text[])
    OFFSET 0 /* fence */) r;

-- name: RevisitsVisitNow :one
-- Moves the items of @ids named in @names out of the schedule into queue
-- @queue, or, when it is empty, into the queue of their score (as the
-- revisit job does when they are due), and returns how many. The caller
-- holds RevisitsLock.
WITH due AS (
    DELETE FROM revisits
    WHERE revisits.project_id = @project_id AND ctid = ANY(ARRAY(
        SELECT r.ctid FROM unnest(@ids::bigint[]) i (id), LATERAL (
            SELECT x.ctid FROM revisits x
            WHERE x.project_id = @project_id AND x.id = i.id AND x.name = ANY(@names::text[])
            OFFSET 0 /* fence */
            FOR UPDATE SKIP LOCKED) r
    ))
    RETURNING revisits.id, revisits.name, revisits.score, revisits.site,
              coalesce(nullif(@queue::text, ''), revisit_queue(revisits.score)) AS queue
), -- include: revisits_queued
)
SELECT count(*) FROM due;

-- name: RevisitsBrowse :many
-- A page of a recurring project's schedule for the admin panel's queue
-- browser, soonest first after the visit (@after_at, @after_id): up to @max
-- of the first @scan items there whose names start with @prefix, contain
-- @contains and match @pattern (each when set); a last row, edge, holds
-- the last visit read and how many were (scanned). On the key.
WITH win AS MATERIALIZED (
    SELECT r.id, r.name, r.due_at, r.score FROM revisits r
    WHERE r.project_id = @project_id AND (r.due_at, r.id) > (@after_at::timestamptz, @after_id::bigint)
    ORDER BY r.due_at, r.id
    LIMIT @scan::integer
)
(SELECT w.id, w.name, w.due_at, w.score, false AS edge, 0::bigint AS scanned
 FROM win w
 -- include: browse_search
 ORDER BY w.due_at, w.id
 LIMIT @max::integer)
UNION ALL
(SELECT w.id, '', w.due_at, 0::float8, true, (SELECT count(*) FROM win)
 FROM win w ORDER BY w.due_at DESC, w.id DESC LIMIT 1);

-- name: RevisitsBrowseBack :many
-- RevisitsBrowse backwards: the page before the visit (@before_at,
-- @before_id), latest first (the edge row holds the first visit read).
WITH win AS MATERIALIZED (
    SELECT r.id, r.name, r.due_at, r.score FROM revisits r
    WHERE r.project_id = @project_id AND (r.due_at, r.id) < (@before_at::timestamptz, @before_id::bigint)
    ORDER BY r.due_at DESC, r.id DESC
    LIMIT @scan::integer
)
(SELECT w.id, w.name, w.due_at, w.score, false AS edge, 0::bigint AS scanned
 FROM win w
 -- include: browse_search
 ORDER BY w.due_at DESC, w.id DESC
 LIMIT @max::integer)
UNION ALL
(SELECT w.id, '', w.due_at, 0::float8, true, (SELECT count(*) FROM win)
 FROM win w ORDER BY w.due_at, w.id LIMIT 1);
