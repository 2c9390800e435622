-- name: CountersByProject :many
SELECT name, sum(value)::bigint AS value FROM counters
WHERE project_id = @project_id
GROUP BY name
ORDER BY name;

-- name: CounterGet :one
SELECT coalesce(sum(value), 0)::bigint FROM counters
WHERE project_id = @project_id AND name = @name;
