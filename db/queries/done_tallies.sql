-- name: DoneTalliesFold :one
-- Folds up to @max tallies into the downloaders' totals and the time
-- series, in one transaction: a tally is either still pending or counted
-- everywhere. Returns how many were folded.
WITH taken AS (
    DELETE FROM done_tallies
    WHERE ctid = ANY(ARRAY(SELECT t.ctid FROM done_tallies t LIMIT @max))
    RETURNING done_tallies.project_id, done_tallies.downloader, done_tallies.items, done_tallies.bytes,
              done_tallies.version, done_tallies.domains, done_tallies.item, done_tallies.at
), totals AS (
    INSERT INTO downloaders AS d (project_id, nick, items, bytes, version, first_seen, last_seen)
    SELECT taken.project_id, taken.downloader, sum(taken.items), sum(taken.bytes),
           (array_agg(taken.version ORDER BY taken.at DESC))[1], min(taken.at), max(taken.at)
    FROM taken
    GROUP BY taken.project_id, taken.downloader
    ORDER BY taken.project_id, taken.downloader
    ON CONFLICT (project_id, nick) DO UPDATE
    SET items = d.items + excluded.items,
        bytes = d.bytes + excluded.bytes,
        version = CASE WHEN excluded.last_seen >= d.last_seen THEN excluded.version ELSE d.version END,
        last_seen = greatest(d.last_seen, excluded.last_seen)
), minutes AS (
    INSERT INTO series_minutes AS s (project_id, minute, items, bytes)
    SELECT taken.project_id, date_trunc('minute', taken.at, 'UTC'), sum(taken.items), sum(taken.bytes)
    FROM taken
    GROUP BY 1, 2
    ORDER BY 1, 2
    ON CONFLICT (project_id, minute) DO UPDATE SET items = s.items + excluded.items, bytes = s.bytes + excluded.bytes
), hours AS (
    INSERT INTO series_hours AS s (project_id, hour, items, bytes)
    SELECT taken.project_id, date_trunc('hour', taken.at, 'UTC'), sum(taken.items), sum(taken.bytes)
    FROM taken
    GROUP BY 1, 2
    ORDER BY 1, 2
    ON CONFLICT (project_id, hour) DO UPDATE SET items = s.items + excluded.items, bytes = s.bytes + excluded.bytes
), downloader_hours AS (
    INSERT INTO downloader_hours AS s (project_id, downloader, hour, items, bytes)
    SELECT taken.project_id, taken.downloader, date_trunc('hour', taken.at, 'UTC'), sum(taken.items), sum(taken.bytes)
    FROM taken
    GROUP BY 1, 2, 3
    ORDER BY 1, 2, 3
    ON CONFLICT (project_id, downloader, hour) DO UPDATE SET items = s.items + excluded.items, bytes = s.bytes + excluded.bytes
), domains AS (
    INSERT INTO domain_totals AS s (project_id, domain, bytes)
    SELECT taken.project_id, d.key, sum(d.value::bigint)
    FROM taken, jsonb_each_text(taken.domains) AS d
    GROUP BY 1, 2
    ORDER BY 1, 2
    ON CONFLICT (project_id, domain) DO UPDATE SET bytes = s.bytes + excluded.bytes
), fed AS (
    -- The newest of the batch only: the feed keeps feedKept per project.
    INSERT INTO feed (project_id, at, downloader, items, bytes, item)
    SELECT newest.project_id, newest.at, newest.downloader, newest.items, newest.bytes, newest.item
    FROM (SELECT taken.*, row_number() OVER (PARTITION BY taken.project_id ORDER BY taken.at DESC) AS n FROM taken) newest
    WHERE newest.n <= @feed_kept::integer
)
SELECT count(*) FROM taken;

-- name: FeedPrune :execrows
-- Keeps the newest @feed_kept entries of each project's feed.
DELETE FROM feed
WHERE ctid = ANY(ARRAY(
    SELECT ranked.ctid
    FROM (SELECT f.ctid, row_number() OVER (PARTITION BY f.project_id ORDER BY f.at DESC) AS n FROM feed f) ranked
    WHERE ranked.n > @feed_kept::integer
));

-- name: DoneTalliesPending :many
-- The tallies not folded yet, per downloader: live views add them to the
-- folded totals.
SELECT downloader, sum(items)::bigint AS items, sum(bytes)::bigint AS bytes,
       (array_agg(version ORDER BY at DESC))[1]::text AS version, max(at)::timestamptz AS last_seen
FROM done_tallies
WHERE project_id = @project_id
GROUP BY downloader;

-- name: DoneTalliesRecent :many
-- The tallies not folded yet, newest first: the feed's newest entries.
SELECT at, downloader, items, bytes, item, domains, version FROM done_tallies
WHERE project_id = @project_id
ORDER BY at DESC;

-- name: DoneTalliesPurgeBatch :execrows
-- Deletes up to @max of a deleting project's rows (see projects.Purge).
DELETE FROM done_tallies WHERE ctid = ANY(ARRAY(SELECT p.ctid FROM done_tallies p WHERE p.project_id = @project_id LIMIT @max));
