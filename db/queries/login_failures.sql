-- name: LoginFailuresCount :one
-- Failures of each key since @since; the largest count.
SELECT coalesce(max(n), 0)::bigint FROM (
    SELECT count(*) AS n FROM login_failures
    WHERE key = ANY(@keys::text[]) AND at > @since
    GROUP BY key
) counts;

-- name: LoginFailureAdd :exec
INSERT INTO login_failures (key) SELECT unnest(@keys::text[]);

-- name: LoginFailuresClear :exec
DELETE FROM login_failures WHERE key = @key;

-- name: LoginFailuresPrune :execrows
DELETE FROM login_failures WHERE at < now() - interval '1 day';

-- name: LoginFailureCancel :exec
-- Takes back the newest attempt reserved under @key: the password was
-- right after all.
DELETE FROM login_failures WHERE ctid = (
    SELECT f.ctid FROM login_failures f WHERE f.key = @key::text ORDER BY f.at DESC LIMIT 1
);
