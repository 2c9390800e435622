-- What a done batch counts (DoneRecordBatch, step 6): the completions of
-- the items' sites, the downloaders' tallies with the live log's names and
-- User-Agent, and the counter deltas of what moved (counted, after this,
-- adds them: counters_add).
site_counts AS (
    -- The sites of the items completed: each updated once, here, in key
    -- order, with its completions (see SitesCount). Nothing is read for
    -- items without a site.
    SELECT c.site, count(*) FILTER (WHERE c.queue = '') AS out,
           count(*) FILTER (WHERE c.queue <> '' AND c.type = ':site') AS queued,
           count(*) AS done, LEAST(coalesce(sum(c.share), 0), 9223372036854775807)::bigint AS bytes
    FROM completions c
    WHERE c.site <> 0
    GROUP BY c.site
), sites_locked AS (
    SELECT s.id FROM sites s
    WHERE s.project_id = @project_id AND s.id = ANY(ARRAY(SELECT site_counts.site FROM site_counts))
    ORDER BY s.id
    FOR UPDATE
), sites_counted AS (
    UPDATE sites s
    -- A site's bytes saturate at the largest bigint rather than fail the
    -- batch.
    SET out = s.out - c.out, queued = s.queued - c.queued, done = s.done + c.done,
        bytes = LEAST(s.bytes::numeric + c.bytes, 9223372036854775807)::bigint,
        -- Unchanged unless the site was at its limit: the update stays on
        -- its page (HOT).
        at_limit = s.at_limit AND c.out = 0
    FROM site_counts c
    WHERE s.project_id = @project_id AND s.id = c.site
      AND (SELECT count(*) FROM sites_locked) >= 0 /* after */
), tallied AS (
    -- Appended, not added to the downloaders' rows: the rollup job folds
    -- them in (see done_tallies). One row per request, with the first
    -- @log_names of its items (by name, the first being item) and its
    -- client's User-Agent for the live log.
    INSERT INTO done_tallies (project_id, downloader, items, bytes, version, domains, item, user_agent, names)
    SELECT @project_id, c.downloader, count(*), sum(c.share), c.version,
           CASE WHEN c.request_bytes = 0 THEN '{}' ELSE c.domains END, min(c.name),
           c.user_agent, (array_agg(c.name ORDER BY c.name))[1:@log_names::integer]
    FROM completions c
    GROUP BY c.req, c.downloader, c.version, c.request_bytes, c.domains, c.user_agent
), counter_deltas AS (
    -- Bytes saturate at the largest bigint rather than fail the batch.
    SELECT d.name, d.delta
    FROM (
        SELECT 'bytes' AS name, coalesce(sum(completions.share), 0) AS delta FROM completions
        UNION ALL
        SELECT 'claims', -count(*) FILTER (WHERE completions.queue = '') FROM completions
        UNION ALL
        SELECT 'done', count(*) FROM completions
        UNION ALL
        SELECT 'done_reclaimed', count(*) FILTER (WHERE completions.claim_count > 1) FROM completions
        UNION ALL
        SELECT 'round_trip_ms', coalesce(sum(extract(epoch FROM now() - completions.claimed_at) * 1000), 0)::bigint FROM completions
        UNION ALL
        SELECT 'queue:' || completions.queue, -1 FROM completions WHERE completions.queue <> ''
        UNION ALL
        SELECT 'done_not_held', 1 FROM refused
        UNION ALL
        SELECT 'done_other_network', 1 FROM away
        UNION ALL
        SELECT 'revisits', 1 FROM scheduled
        UNION ALL
        SELECT 'queue:retired', 1 FROM retired
        UNION ALL
        SELECT 'retired', 1 FROM retired
    ) d
