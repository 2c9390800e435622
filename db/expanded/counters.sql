-- name: CountersByProject :many
-- Sums of shards saturate at the largest bigint (the bytes counter can
-- get there) rather than fail the read.
SELECT name, LEAST(sum(value), 9223372036854775807)::bigint AS value FROM counters
WHERE project_id = @project_id
GROUP BY name
ORDER BY name;

-- name: CounterGet :one
SELECT LEAST(coalesce(sum(value), 0), 9223372036854775807)::bigint FROM counters
WHERE project_id = @project_id AND name = @name;

-- name: CountersAdd :exec
-- Adds @deltas[i] to counter @names[i], as every statement that moves
-- items adds what it changed: with db/fragments/counters_add.sql, the one
-- way the counters are kept. Nothing is added to a project being deleted
-- or gone: counts written late (a process writes its request counts once
-- a second) would be rows of no project once its purge has passed.
WITH counter_deltas AS (
    SELECT x.name, (@deltas::bigint[])[x.i] AS delta
    FROM unnest(@names::text[]) WITH ORDINALITY AS x (name, i)
    WHERE EXISTS (SELECT 1 FROM projects p WHERE p.id = @project_id AND p.config -> 'deleting' IS DISTINCT FROM 'true')
)
INSERT INTO counters AS c (project_id, name, shard, value)
SELECT @project_id, d.name, counter_shard(), LEAST(sum(d.delta), 9223372036854775807)::bigint
FROM counter_deltas d
GROUP BY d.name
HAVING sum(d.delta) <> 0
ORDER BY d.name
ON CONFLICT (project_id, name, shard) DO UPDATE
SET value = CASE WHEN excluded.value > 0 AND c.value > 9223372036854775807 - excluded.value THEN 9223372036854775807 ELSE c.value + excluded.value END
;

-- name: CountersPurgeBatch :execrows
-- Deletes up to @max of a deleting project's rows (see items.Engine.Purge).
DELETE FROM counters WHERE counters.project_id = @project_id AND ctid = ANY(ARRAY(SELECT p.ctid FROM counters p WHERE p.project_id = @project_id LIMIT @max));

-- name: BooksQueueCountersOff :one
-- The books: every queue's counter against its rows, the number of queues
-- whose counter is off.
SELECT count(*) FROM (
    SELECT q.queue FROM
      (SELECT substr(c.name, 7) AS queue, sum(c.value) AS n FROM counters c WHERE c.project_id = @project_id AND c.name LIKE 'queue:%' GROUP BY 1) q
      FULL JOIN (SELECT td.queue, count(*) AS n FROM todo td WHERE td.project_id = @project_id GROUP BY 1) t ON t.queue = q.queue
    WHERE coalesce(q.n, 0) <> coalesce(t.n, 0)) off;
