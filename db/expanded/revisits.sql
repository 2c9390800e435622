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
), queued AS (
    INSERT INTO todo (project_id, queue, type, site, id, name)
    SELECT @project_id, due.queue, queue_type(due.queue, due.name, project_limited_types(@project_id), project_site(@project_id, due.site)),
           project_site(@project_id, due.site), due.id, due.name
    FROM due
    ON CONFLICT DO NOTHING
    RETURNING todo.queue, todo.type, todo.site
), counter_deltas AS (
    SELECT 'revisits' AS name, -1 AS delta FROM due
    UNION ALL SELECT 'requeued', 1 FROM queued
    UNION ALL SELECT 'queue:' || queued.queue, 1 FROM queued
), counted AS (
    INSERT INTO counters AS c (project_id, name, shard, value)
    SELECT @project_id, d.name, counter_shard(), LEAST(sum(d.delta), 9223372036854775807)::bigint
    FROM counter_deltas d
    GROUP BY d.name
    HAVING sum(d.delta) <> 0
    ORDER BY d.name
    ON CONFLICT (project_id, name, shard) DO UPDATE
    SET value = CASE WHEN excluded.value > 0 AND c.value > 9223372036854775807 - excluded.value THEN 9223372036854775807 ELSE c.value + excluded.value END
), site_deltas AS (
    SELECT queued.site, 1 AS queued, 0 AS out, NULL::text AS holder FROM queued WHERE queued.type = ':site'
), site_sums AS (
    SELECT x.site, sum(x.queued)::bigint AS queued, sum(x.out)::integer AS out, min(x.holder) AS holder
    FROM site_deltas x
    WHERE x.site <> 0
    GROUP BY x.site
    HAVING sum(x.queued) <> 0 OR sum(x.out) <> 0
), sites_locked AS (
    SELECT s.id FROM sites s
    WHERE s.project_id = @project_id AND s.id = ANY(ARRAY(SELECT d.site FROM site_sums d))
    ORDER BY s.id
    FOR UPDATE
), sites_counted AS (
    UPDATE sites s
    SET queued = s.queued + d.queued, out = s.out + d.out,
        at_limit = s.at_limit AND d.out >= 0,
        downloader = CASE WHEN d.out > 0 AND s.out = 0 THEN d.holder ELSE s.downloader END
    FROM site_sums d
    WHERE s.project_id = @project_id AND s.id = d.site
      AND (SELECT count(*) FROM sites_locked) >= 0 /* after */
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
), queued AS (
    INSERT INTO todo (project_id, queue, type, site, id, name)
    SELECT @project_id, due.queue, queue_type(due.queue, due.name, project_limited_types(@project_id), project_site(@project_id, due.site)),
           project_site(@project_id, due.site), due.id, due.name
    FROM due
    ON CONFLICT DO NOTHING
    RETURNING todo.queue, todo.type, todo.site
), counter_deltas AS (
    SELECT 'revisits' AS name, -1 AS delta FROM due
    UNION ALL SELECT 'requeued', 1 FROM queued
    UNION ALL SELECT 'queue:' || queued.queue, 1 FROM queued
), counted AS (
    INSERT INTO counters AS c (project_id, name, shard, value)
    SELECT @project_id, d.name, counter_shard(), LEAST(sum(d.delta), 9223372036854775807)::bigint
    FROM counter_deltas d
    GROUP BY d.name
    HAVING sum(d.delta) <> 0
    ORDER BY d.name
    ON CONFLICT (project_id, name, shard) DO UPDATE
    SET value = CASE WHEN excluded.value > 0 AND c.value > 9223372036854775807 - excluded.value THEN 9223372036854775807 ELSE c.value + excluded.value END
), site_deltas AS (
    SELECT queued.site, 1 AS queued, 0 AS out, NULL::text AS holder FROM queued WHERE queued.type = ':site'
), site_sums AS (
    SELECT x.site, sum(x.queued)::bigint AS queued, sum(x.out)::integer AS out, min(x.holder) AS holder
    FROM site_deltas x
    WHERE x.site <> 0
    GROUP BY x.site
    HAVING sum(x.queued) <> 0 OR sum(x.out) <> 0
), sites_locked AS (
    SELECT s.id FROM sites s
    WHERE s.project_id = @project_id AND s.id = ANY(ARRAY(SELECT d.site FROM site_sums d))
    ORDER BY s.id
    FOR UPDATE
), sites_counted AS (
    UPDATE sites s
    SET queued = s.queued + d.queued, out = s.out + d.out,
        at_limit = s.at_limit AND d.out >= 0,
        downloader = CASE WHEN d.out > 0 AND s.out = 0 THEN d.holder ELSE s.downloader END
    FROM site_sums d
    WHERE s.project_id = @project_id AND s.id = d.site
      AND (SELECT count(*) FROM sites_locked) >= 0 /* after */
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
 WHERE (@prefix::text = '' OR starts_with(w.name, @prefix::text))
   AND (@contains::text = '' OR strpos(w.name, @contains::text) > 0)
   AND (@pattern::text = '' OR w.name ~ @pattern::text)
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
 WHERE (@prefix::text = '' OR starts_with(w.name, @prefix::text))
   AND (@contains::text = '' OR strpos(w.name, @contains::text) > 0)
   AND (@pattern::text = '' OR w.name ~ @pattern::text)
 ORDER BY w.due_at DESC, w.id DESC
 LIMIT @max::integer)
UNION ALL
(SELECT w.id, '', w.due_at, 0::float8, true, (SELECT count(*) FROM win)
 FROM win w ORDER BY w.due_at, w.id LIMIT 1);
