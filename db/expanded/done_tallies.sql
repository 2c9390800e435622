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
mark AS MATERIALIZED (
    SELECT m.folded, m.next_seq, pg_snapshot_xmin(pg_current_snapshot()) >= m.next_xid AS settled
    FROM done_tallies_mark m
), picked AS MATERIALIZED (
    SELECT ARRAY(SELECT t.ctid FROM done_tallies t
                 WHERE t.seq > (SELECT mark.folded FROM mark)
                   AND (@project_id::integer = 0 OR t.project_id = @project_id::integer)
                 ORDER BY t.seq
                 LIMIT @max) AS tids
), taken AS (
    DELETE FROM done_tallies
    WHERE ctid = ANY((SELECT picked.tids FROM picked)::tid[])
    RETURNING done_tallies.project_id, done_tallies.downloader, done_tallies.items, done_tallies.bytes,
              done_tallies.version, done_tallies.domains, done_tallies.item, done_tallies.at,
              done_tallies.user_agent, done_tallies.names, done_tallies.seq
), marked AS (
    -- Settled: every tally numbered up to next_seq was visible to this
    -- statement, so it picked them all unless it stopped at @max; then it
    -- took every one up to the last it took. Counted on what it picked,
    -- not what it deleted: a fold running beside it may have deleted (and
    -- folded) some.
    UPDATE done_tallies_mark m
    SET folded = CASE WHEN NOT mark.settled THEN m.folded
                      WHEN (SELECT cardinality(picked.tids) FROM picked) < @max THEN greatest(m.folded, mark.next_seq)
                      ELSE greatest(m.folded, least(mark.next_seq, coalesce((SELECT max(taken.seq) FROM taken), m.folded))) END,
        next_seq = @next_seq::bigint,
        next_xid = pg_current_xact_id()
    FROM mark
    WHERE @project_id::integer = 0
), per AS MATERIALIZED (
    -- The batch summed once by downloader and minute: the totals and the
    -- series sum these few rows, not every tally again.
    SELECT taken.project_id, taken.downloader, date_trunc('minute', taken.at, 'UTC') AS minute,
           sum(taken.items) AS items, sum(taken.bytes) AS bytes, min(taken.at) AS first_at, max(taken.at) AS last_at,
           (array_agg(taken.version ORDER BY taken.at DESC))[1] AS version
    FROM taken
    GROUP BY 1, 2, 3
), totals AS (
    INSERT INTO downloaders AS d (project_id, nick, items, bytes, version, first_seen, last_seen)
    SELECT per.project_id, per.downloader, sum(per.items), LEAST(sum(per.bytes), 9223372036854775807)::bigint,
           (array_agg(per.version ORDER BY per.last_at DESC))[1], min(per.first_at), max(per.last_at)
    FROM per
    GROUP BY per.project_id, per.downloader
    ORDER BY per.project_id, per.downloader
    ON CONFLICT (project_id, nick) DO UPDATE
    SET items = d.items + excluded.items,
        bytes = LEAST(d.bytes::numeric + excluded.bytes, 9223372036854775807)::bigint,
        version = CASE WHEN excluded.last_seen >= d.last_seen THEN excluded.version ELSE d.version END,
        last_seen = greatest(d.last_seen, excluded.last_seen)
), minutes AS (
    INSERT INTO series_minutes AS s (project_id, minute, items, bytes)
    SELECT per.project_id, per.minute, sum(per.items), LEAST(sum(per.bytes), 9223372036854775807)::bigint
    FROM per
    GROUP BY 1, 2
    ORDER BY 1, 2
    ON CONFLICT (project_id, minute) DO UPDATE
    SET items = s.items + excluded.items, bytes = LEAST(s.bytes::numeric + excluded.bytes, 9223372036854775807)::bigint
), hours AS (
    INSERT INTO series_hours AS s (project_id, hour, items, bytes)
    SELECT per.project_id, date_trunc('hour', per.minute, 'UTC'), sum(per.items), LEAST(sum(per.bytes), 9223372036854775807)::bigint
    FROM per
    GROUP BY 1, 2
    ORDER BY 1, 2
    ON CONFLICT (project_id, hour) DO UPDATE
    SET items = s.items + excluded.items, bytes = LEAST(s.bytes::numeric + excluded.bytes, 9223372036854775807)::bigint
), downloader_hours AS (
    INSERT INTO downloader_hours AS s (project_id, downloader, hour, items, bytes)
    SELECT per.project_id, per.downloader, date_trunc('hour', per.minute, 'UTC'), sum(per.items), LEAST(sum(per.bytes), 9223372036854775807)::bigint
    FROM per
    GROUP BY 1, 2, 3
    ORDER BY 1, 2, 3
    ON CONFLICT (project_id, downloader, hour) DO UPDATE
    SET items = s.items + excluded.items, bytes = LEAST(s.bytes::numeric + excluded.bytes, 9223372036854775807)::bigint
), batch_domains AS (
    SELECT taken.project_id, d.key AS domain, sum(d.value::numeric) AS bytes
    FROM taken, jsonb_each_text(taken.domains) AS d(key, value)
    GROUP BY 1, 2
), ranked AS (
    -- A project keeps apart its @domains_kept domains with the most bytes,
    -- stored and of this batch together; the others, and what is reported
    -- as 'other', are summed in 'other'. So its rows stay bounded however
    -- many names dones report, and the most bytes are never folded away.
    SELECT m.project_id, m.domain, m.batch, m.stored, m.fresh,
           row_number() OVER (PARTITION BY m.project_id ORDER BY m.kept + m.batch DESC, m.domain) AS n
    FROM (SELECT coalesce(b.project_id, s.project_id) AS project_id, coalesce(b.domain, s.domain) AS domain,
                 coalesce(b.bytes, 0) AS batch, coalesce(s.bytes, 0)::numeric AS kept,
                 s.domain IS NOT NULL AS stored, b.domain IS NOT NULL AS fresh
          FROM batch_domains b
          FULL JOIN (SELECT t.project_id, t.domain, t.bytes FROM domain_totals t
                     WHERE t.project_id IN (SELECT batch_domains.project_id FROM batch_domains)) s
            ON s.project_id = b.project_id AND s.domain = b.domain) m
    WHERE m.domain <> 'other'
), dropped AS (
    DELETE FROM domain_totals t USING ranked r
    WHERE r.n > @domains_kept::bigint AND r.stored AND t.project_id = r.project_id AND t.domain = r.domain
    RETURNING t.project_id, t.bytes
), domains AS (
    INSERT INTO domain_totals AS s (project_id, domain, bytes)
    SELECT ranked.project_id, ranked.domain, LEAST(ranked.batch, 9223372036854775807)::bigint
    FROM ranked
    WHERE ranked.n <= @domains_kept::bigint AND ranked.fresh
    UNION ALL
    SELECT folded.project_id, 'other', LEAST(sum(folded.bytes), 9223372036854775807)::bigint
    FROM (SELECT ranked.project_id, ranked.batch AS bytes FROM ranked WHERE ranked.n > @domains_kept::bigint
          UNION ALL SELECT dropped.project_id, dropped.bytes::numeric FROM dropped
          UNION ALL SELECT batch_domains.project_id, batch_domains.bytes FROM batch_domains WHERE batch_domains.domain = 'other') folded
    GROUP BY folded.project_id
    ORDER BY 1, 2
    ON CONFLICT (project_id, domain) DO UPDATE SET bytes = LEAST(s.bytes::numeric + excluded.bytes, 9223372036854775807)::bigint
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
DELETE FROM feed
WHERE ctid = ANY(ARRAY(
    SELECT ranked.ctid
    FROM (SELECT f.ctid, row_number() OVER (PARTITION BY f.project_id ORDER BY f.at DESC) AS n FROM feed f) ranked
    WHERE ranked.n > @feed_kept::integer
));

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
