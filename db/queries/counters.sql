-- name: CountersByProject :many
SELECT name, sum(value)::bigint AS value FROM counters
WHERE project_id = @project_id
GROUP BY name
ORDER BY name;

-- name: CounterGet :one
SELECT coalesce(sum(value), 0)::bigint FROM counters
WHERE project_id = @project_id AND name = @name;

-- name: CounterAdd :exec
INSERT INTO counters AS c (project_id, name, shard, value)
VALUES (@project_id, @name, counter_shard(), @delta)
ON CONFLICT (project_id, name, shard) DO UPDATE SET value = c.value + excluded.value;

-- name: CountersAdd :exec
-- Adds @deltas[i] to counter @names[i], in name order (so concurrent
-- writers lock shards' rows in one order).
INSERT INTO counters AS c (project_id, name, shard, value)
SELECT @project_id, x.name, counter_shard(), (@deltas::bigint[])[x.i]
FROM unnest(@names::text[]) WITH ORDINALITY AS x (name, i)
ORDER BY x.name
ON CONFLICT (project_id, name, shard) DO UPDATE SET value = c.value + excluded.value;

-- name: CountersPurgeBatch :execrows
-- Deletes up to @max of a deleting project's rows (see projects.Purge).
DELETE FROM counters WHERE ctid = ANY(ARRAY(SELECT p.ctid FROM counters p WHERE p.project_id = @project_id LIMIT @max));

-- name: BooksQueueCountersOff :one
-- The books: every queue's counter against its rows, the number of queues
-- whose counter is off.
SELECT count(*) FROM (
    SELECT q.queue FROM
      (SELECT substr(c.name, 7) AS queue, sum(c.value) AS n FROM counters c WHERE c.project_id = @project_id AND c.name LIKE 'queue:%' GROUP BY 1) q
      FULL JOIN (SELECT td.queue, count(*) AS n FROM todo td WHERE td.project_id = @project_id GROUP BY 1) t ON t.queue = q.queue
    WHERE coalesce(q.n, 0) <> coalesce(t.n, 0)) off;
