-- name: RateTake :one
-- 0 when the next item of the limit is granted, else seconds until it is due.
SELECT rate_take(@project_id, @key, @per_minute)::double precision AS wait_seconds;

-- name: RateRefund :exec
SELECT rate_refund(@project_id, @key, @per_minute);

-- name: RateLimitsPurgeBatch :execrows
-- Deletes up to @max of a deleting project's rows (see items.Engine.Purge).
DELETE FROM rate_limits WHERE rate_limits.project_id = @project_id AND ctid = ANY(ARRAY(SELECT p.ctid FROM rate_limits p WHERE p.project_id = @project_id LIMIT @max));
