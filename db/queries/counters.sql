-- name: CountersByProject :many
SELECT name, sum(value)::bigint AS value FROM counters
WHERE project_id = @project_id
GROUP BY name
ORDER BY name;

-- name: CounterGet :one
SELECT coalesce(sum(value), 0)::bigint FROM counters
WHERE project_id = @project_id AND name = @name;

-- name: CountersNonEmptyQueues :many
-- The queues holding items, for every project.
SELECT project_id, substr(name, 7)::text AS queue FROM counters
WHERE name LIKE 'queue:%'
GROUP BY project_id, name
HAVING sum(value) > 0;
