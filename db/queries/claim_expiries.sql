-- name: ClaimExpiriesOfItem :many
-- The expired claims of an item, oldest first: the history of an item that
-- failed.
SELECT downloader, claimed_at, expired_at FROM claim_expiries
WHERE project_id = @project_id AND id = @id
ORDER BY expired_at
LIMIT 100;

-- name: ClaimExpiriesCountSince :one
-- How many claims of a downloader expired since @since.
SELECT count(*) FROM claim_expiries
WHERE project_id = @project_id AND downloader = @downloader AND expired_at >= @since;

-- name: ClaimExpiriesPrune :execrows
-- Forgets up to @max expiries older than @keep, except those of items in
-- the error queue: their history stays while they do.
DELETE FROM claim_expiries
-- if citus
-- The expiries found by their project, item and time rather than their
-- rows' addresses, which mean a row only on its own shard (an item expires
-- at most once at a time).
WHERE (claim_expiries.project_id, claim_expiries.id, claim_expiries.expired_at) IN (
    SELECT e.project_id, e.id, e.expired_at FROM claim_expiries e
-- else
WHERE ctid = ANY(ARRAY(
    SELECT e.ctid FROM claim_expiries e
-- end if
    WHERE e.expired_at < now() - @keep::interval
      AND NOT EXISTS (SELECT 1 FROM todo t
                      WHERE t.project_id = e.project_id AND t.queue = 'error' AND t.type = '' AND t.id = e.id)
    LIMIT @max
-- if citus
);
-- else
));
-- end if

-- name: ClaimExpiriesPurgeBatch :execrows
-- Deletes up to @max of a deleting project's rows (see items.Engine.Purge).
DELETE FROM claim_expiries WHERE claim_expiries.project_id = @project_id AND ctid = ANY(ARRAY(SELECT p.ctid FROM claim_expiries p WHERE p.project_id = @project_id LIMIT @max));

-- name: ClaimExpiriesTopSince :many
-- The downloaders whose claims expired most often since @since.
SELECT downloader, count(*) AS expired FROM claim_expiries
WHERE project_id = @project_id AND expired_at >= @since
GROUP BY downloader
ORDER BY count(*) DESC, downloader
LIMIT @max;

-- name: ClaimExpiriesOverLimit :many
-- The expiries since @since of the downloaders with @at_least or more, by
-- downloader and the address that claimed: expired_claims_limit counts a
-- nick's expiries per network of addresses (items.tooManyExpired), never
-- more than the nick's expiries in all.
SELECT downloader, ip, expired FROM (
    SELECT downloader, ip, count(*) AS expired, sum(count(*)) OVER (PARTITION BY downloader) AS total
    FROM claim_expiries
    WHERE project_id = @project_id AND expired_at >= @since
    GROUP BY downloader, ip
) by_address
WHERE total >= @at_least::bigint;

-- name: BooksClaimExpiries :one
-- The books: the expired claims kept, and those that expired before they
-- were made.
SELECT count(*) AS kept, count(*) FILTER (WHERE expired_at < claimed_at) AS backwards
FROM claim_expiries WHERE project_id = @project_id;

-- name: ClaimExpiriesOfItemRecent :many
-- An item's claims that ran out, newest first, with the address each was
-- made from: the claims of its timeline.
SELECT downloader, claimed_at, expired_at, ip FROM claim_expiries
WHERE project_id = @project_id AND id = @id
ORDER BY expired_at DESC
LIMIT @max;

-- name: ClaimExpiriesByHour :many
-- How many claims ran out in each hour since @since (hours with none are
-- left out): a project's failures over time, on claim_expiries_recent.
SELECT date_trunc('hour', expired_at)::timestamptz AS at, count(*) AS expired FROM claim_expiries
WHERE project_id = @project_id AND expired_at >= @since
GROUP BY 1
ORDER BY 1;

-- name: ClaimExpiriesLastItems :many
-- The item whose claim ran out last since @since (of those that ran out
-- at once, the newest item) for each downloader of @downloaders, named
-- where it is now: back in one of the queues @queues, done, or (with
-- @in_claims: the claims are read whole, no index has their ids) out
-- again; "" when none has it.
SELECT e.downloader, coalesce(
    (SELECT t.name FROM todo t
     WHERE t.project_id = @project_id AND t.queue = ANY(@queues::text[]) AND t.type = '' AND t.id = e.id LIMIT 1),
    (SELECT d.name FROM done d WHERE d.project_id = @project_id AND d.id = e.id LIMIT 1),
    CASE WHEN @in_claims::boolean THEN
        (SELECT c.name FROM claims c WHERE c.project_id = @project_id AND c.id = e.id LIMIT 1)
    END,
    '')::text AS name
FROM (SELECT DISTINCT ON (x.downloader) x.downloader, x.id FROM claim_expiries x
      WHERE x.project_id = @project_id AND x.downloader = ANY(@downloaders::text[]) AND x.expired_at >= @since
      ORDER BY x.downloader, x.expired_at DESC, x.id DESC) e;
