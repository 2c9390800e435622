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
