-- name: ClaimExpiriesPrune :execrows
-- Forgets up to @max expiries older than @keep, except those of items in
-- the error queue: their history stays while they do.
DELETE FROM claim_expiries
-- The expiries found by their project, item and time rather than their
-- rows' addresses, which mean a row only on its own shard (an item expires
-- at most once at a time).
WHERE (claim_expiries.project_id, claim_expiries.id, claim_expiries.expired_at) IN (
    SELECT e.project_id, e.id, e.expired_at FROM claim_expiries e
    WHERE e.expired_at < now() - @keep::interval
      AND NOT EXISTS (SELECT 1 FROM todo t
                      WHERE t.project_id = e.project_id AND t.queue = 'error' AND t.type = '' AND t.id = e.id)
    LIMIT @max
);

