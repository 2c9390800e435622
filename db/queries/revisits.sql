-- name: RevisitsDue :one
-- Moves up to @max items whose visit is due (with @every, every item waiting:
-- a project no longer recurring visits each once more, now) into the queue
-- of their score (see revisit_queue), soonest first, and returns how many.
WITH due AS (
    DELETE FROM revisits
    WHERE ctid = ANY(ARRAY(
        SELECT r.ctid FROM revisits r
        WHERE r.project_id = @project_id AND (@every::boolean OR r.due_at <= now())
        ORDER BY r.due_at
        LIMIT @max
        FOR UPDATE SKIP LOCKED
    ))
    RETURNING revisits.id, revisits.name, revisits.score, revisits.site
), queued AS (
    INSERT INTO todo (project_id, queue, type, site, id, name)
    SELECT @project_id, revisit_queue(due.score), queue_type(revisit_queue(due.score), due.name, project_limited_types(@project_id), project_site(@project_id, due.site)),
           project_site(@project_id, due.site), due.id, due.name
    FROM due
    ON CONFLICT DO NOTHING
    RETURNING todo.queue
), counted AS (
    INSERT INTO counters AS c (project_id, name, shard, value)
    SELECT @project_id, d.name, counter_shard(), sum(d.delta)
    FROM (SELECT 'revisits' AS name, -1 AS delta FROM due
          UNION ALL SELECT 'requeued', 1 FROM queued
          UNION ALL SELECT 'queue:' || queued.queue, 1 FROM queued) d
    GROUP BY d.name
    ORDER BY d.name
    ON CONFLICT (project_id, name, shard) DO UPDATE SET value = c.value + excluded.value
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
DELETE FROM revisits WHERE ctid = ANY(ARRAY(SELECT p.ctid FROM revisits p WHERE p.project_id = @project_id LIMIT @max));

-- name: ItemScoresPurgeBatch :execrows
-- Deletes up to @max of a deleting project's rows (see items.Engine.Purge).
DELETE FROM item_scores WHERE ctid = ANY(ARRAY(SELECT p.ctid FROM item_scores p WHERE p.project_id = @project_id LIMIT @max));

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
