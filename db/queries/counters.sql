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
