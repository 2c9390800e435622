-- name: DoneTalliesFold :one
-- Folds up to @max tallies (of project @project_id, or of any project when
-- it is 0) into the downloaders' totals and the time series, in one
-- transaction: a tally is either still pending or counted everywhere.
-- Returns how many were folded. Byte totals saturate at the largest
-- bigint rather than fail: sums are numeric, and what is stored is capped,
-- so a total near 2^63 stays there instead of stopping every fold.
--
-- It reads the tallies numbered past the watermark (done_tallies_mark)
-- through their index, in order: its cost is that of the tallies appended
-- since, however many it folded before lie dead in the table. A fold of
-- every project moves the watermark up to @next_seq (the highest number
-- handed out before this statement began, read by the caller) once it is
-- settled, and to the last tally it took when it took @max; a fold of one
-- project leaves the watermark alone.
--
-- On Citus the fold goes project by project (see stats.Store.Fold), each
-- on its project's worker: @project_id is never 0 there, and the
-- watermark is neither read nor written.
WITH
-- include: done_tallies_taken
), -- include: done_tallies_series
), -- include: done_tallies_domains
), fed AS (
    -- The newest of the batch only: the feed keeps feedKept per project.
    INSERT INTO feed (project_id, at, downloader, items, bytes, item, version, domains, user_agent, names)
    SELECT newest.project_id, newest.at, newest.downloader, newest.items, newest.bytes, newest.item,
           newest.version, newest.domains, newest.user_agent, newest.names
    FROM (SELECT DISTINCT taken.project_id FROM taken) p,
         LATERAL (SELECT t.* FROM taken t WHERE t.project_id = p.project_id ORDER BY t.at DESC LIMIT @feed_kept::integer) newest
)
SELECT count(*) FROM taken;

-- name: DoneTalliesSeqLast :one
-- The highest tally number handed out (0 before the first): read before a
-- fold begins, the watermark it may move up to (see DoneTalliesFold).
SELECT coalesce((SELECT s.last_value FROM pg_catalog.pg_sequences s
                  WHERE s.schemaname = current_schema() AND s.sequencename = 'done_tallies_seq'), 0)::bigint AS seq;

-- name: DoneTalliesProjects :many
-- The projects with tallies to fold: the rollup folds them one by one when
-- folding them together fails.
SELECT t.project_id, coalesce(max(p.slug), '')::text AS slug
FROM done_tallies t LEFT JOIN projects p ON p.id = t.project_id
WHERE t.seq > (SELECT m.folded FROM done_tallies_mark m)
GROUP BY t.project_id
ORDER BY t.project_id;

-- name: FeedPrune :execrows
-- Keeps the newest @feed_kept entries of each project's feed.
-- if citus
-- The rows to delete joined back by project and address, which Citus runs
-- on every worker for its shards: an address means a row only on its own
-- shard.
DELETE FROM feed USING (SELECT f.project_id, f.ctid, row_number() OVER (PARTITION BY f.project_id ORDER BY f.at DESC) AS n FROM feed f) ranked
WHERE feed.project_id = ranked.project_id AND feed.ctid = ranked.ctid AND ranked.n > @feed_kept::integer;
-- else
DELETE FROM feed
WHERE ctid = ANY(ARRAY(
    SELECT ranked.ctid
    FROM (SELECT f.ctid, row_number() OVER (PARTITION BY f.project_id ORDER BY f.at DESC) AS n FROM feed f) ranked
    WHERE ranked.n > @feed_kept::integer
));
-- end if

-- name: DoneTalliesPending :many
-- The tallies not folded yet, per downloader: live views add them to the
-- folded totals. Those past the watermark, through its index: the folded
-- ones are gone in the same snapshot as the watermark that passed them.
SELECT downloader, sum(items)::bigint AS items, LEAST(sum(bytes), 9223372036854775807)::bigint AS bytes,
       (array_agg(version ORDER BY at DESC))[1]::text AS version, max(at)::timestamptz AS last_seen
FROM done_tallies
WHERE seq > (SELECT m.folded FROM done_tallies_mark m) AND project_id = @project_id
GROUP BY downloader;

-- name: DoneTalliesRecent :many
-- The tallies not folded yet, newest first: the feed's newest entries.
SELECT at, downloader, items, bytes, item, domains, version FROM done_tallies
WHERE seq > (SELECT m.folded FROM done_tallies_mark m) AND project_id = @project_id
ORDER BY at DESC;

-- name: DoneTalliesLog :many
-- The newest @max tallies not folded yet of a project since @since, with
-- what the live log tells of each done.
SELECT at, downloader, items, bytes, version, domains, item, names, user_agent FROM done_tallies
WHERE seq > (SELECT m.folded FROM done_tallies_mark m) AND project_id = @project_id AND at > @since
ORDER BY at DESC
LIMIT @max;

-- name: DoneTalliesPurgeBatch :execrows
-- Deletes up to @max of a deleting project's rows (see stats.Store.Purge).
DELETE FROM done_tallies WHERE done_tallies.project_id = @project_id AND ctid = ANY(ARRAY(SELECT p.ctid FROM done_tallies p WHERE p.project_id = @project_id LIMIT @max));
