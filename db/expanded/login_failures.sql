-- name: LoginFailuresCount :one
-- Failures of each key since @since; the largest count.
SELECT coalesce(max(n), 0)::bigint FROM (
    SELECT count(*) AS n FROM login_failures
    WHERE key = ANY(@keys::text[]) AND at > @since
    GROUP BY key
) counts;

-- name: LoginFailureAdd :exec
-- Reserves an attempt under each of @keys, at @at (the sign-in's clock).
INSERT INTO login_failures (key, at) SELECT unnest(@keys::text[]), @at;

-- name: LoginFailureLastBefore :one
-- The newest failure under @key after @since and before @before.
SELECT at FROM login_failures
WHERE key = @key AND at > @since AND at < @before
ORDER BY at DESC
LIMIT 1;

-- name: LoginFailuresClear :exec
DELETE FROM login_failures WHERE key = @key;

-- name: LoginFailuresPrune :execrows
DELETE FROM login_failures WHERE at < now() - interval '1 day';

-- name: LoginFailureTakeBack :exec
-- Takes back the attempt reserved at @at under each of @keys: its password
-- was right, or it was refused before its password was looked at.
DELETE FROM login_failures WHERE ctid = ANY(ARRAY(
    SELECT DISTINCT ON (f.key) f.ctid FROM login_failures f
    WHERE f.key = ANY(@keys::text[]) AND f.at = @at
));
