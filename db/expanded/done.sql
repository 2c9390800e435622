-- name: DoneGet :one
-- The completion of an item, newest first should it have several.
SELECT * FROM done WHERE project_id = @project_id AND id = @id ORDER BY done_at DESC LIMIT 1;

-- name: DoneRecordBatch :many
-- Completes the done requests of a batch in one statement. @names lists
-- every item reported, @requests the (1-based) request each belongs to;
-- the other arrays hold one entry per request ('' for a missing IP or
-- client id). An item is completed for the first request of the batch
-- whose downloader holds its claim or held it last (before a reclaim
-- handed it to someone else, or while it waits in its queue again after
-- its claim expired or was released): they did the work. Anyone else's
-- done for an item claimed or queued completes nothing and is counted
-- ('done_not_held'); items neither claimed nor queued (a repeated done) are
-- ignored. A queued item is looked for in @queues and @types (the standard
-- queues and the reporters' own, the project's limited types and '').
-- Each request's bytes are shared out over its items completed, so the
-- shares add up to its total. @result_reqs, @result_names and @results
-- hold the results reported (a request, an item of it, the JSON), kept
-- with the completions they belong to. In a @recurring project a
-- completion schedules the item's next visit @revisit_after on: its score
-- is multiplied by the factor reported for it (@outcome_reqs,
-- @outcome_names, @outcome_factors; 1 when none), and an item whose score
-- falls below @retire_below retires instead (the queue 'retired'). Returns,
-- per request that completed or was refused something, how many items it
-- completed and how many it was refused.
WITH reported AS (
    SELECT DISTINCT item_hash(r.name) AS hash, (@requests::integer[])[r.ord] AS req
    FROM unnest(@names::text[]) WITH ORDINALITY AS r (name, ord)
), reqs AS (
    SELECT q.req::integer AS req, q.downloader,
           (@versions::text[])[q.req] AS version,
           (@bytes::bigint[])[q.req] AS bytes,
           (@domains::text[])[q.req] AS domains,
           (@client_ids::text[])[q.req] AS client_id,
           (@ips::text[])[q.req] AS ip,
           (@user_agents::text[])[q.req] AS user_agent
    FROM unnest(@downloaders::text[]) WITH ORDINALITY AS q (downloader, req)
), held AS (
    -- The claims of the items reported, locked: who holds each now. "=
    -- ANY" of an array makes each hash a probe of the key; a join could be
    -- planned as a read of all the project's claims.
    SELECT claims.hash, claims.downloader, claims.last_downloader FROM claims
    WHERE claims.project_id = @project_id AND claims.hash = ANY(ARRAY(SELECT DISTINCT reported.hash FROM reported))
    FOR UPDATE
), held_by AS (
    SELECT DISTINCT ON (h.hash) h.hash, r.req
    FROM held h JOIN reported r ON r.hash = h.hash JOIN reqs ON reqs.req = r.req
    WHERE reqs.downloader IN (h.downloader, h.last_downloader)
    ORDER BY h.hash, r.req
), unheld AS (
    -- Nobody holds these: done already, never handed out, or back in a
    -- queue. Usually none, and then nothing below reads seen or todo.
    SELECT DISTINCT reported.hash FROM reported WHERE reported.hash NOT IN (SELECT held.hash FROM held)
), known AS (
    -- Their ids: seen keeps an item under its key, and under its own hash
    -- as well when the key is another (backfeed keys). Each hash is a
    -- probe of its key: OFFSET 0 keeps the probes from being planned as
    -- a read of all the project's keys, as they were before statistics.
    SELECT seen.id FROM seen
    WHERE seen.project_id = @project_id AND seen.hash = ANY(ARRAY(SELECT unheld.hash FROM unheld))
    UNION
    SELECT k.id FROM unheld, LATERAL (
        SELECT seen.id FROM seen
        WHERE seen.project_id = @project_id AND seen.item = unheld.hash AND seen.item IS NOT NULL
        OFFSET 0) k
), waiting AS (
    -- Each a probe of the queue key, queue by queue and type by type. An
    -- item of a recurring project waiting for its next visit is in no
    -- queue (see RevisitsDue): one probe of its visit spares the probes of
    -- the 100 bands' queues, and a done repeated for items its first
    -- scheduled, the usual unheld names there, probes none.
    SELECT w.id, item_hash(w.name) AS hash, w.last_downloader
    FROM (SELECT DISTINCT known.id FROM known
          -- OFFSET 0: a probe for each, never a read of every visit.
          WHERE NOT (@recurring::boolean AND EXISTS (SELECT 1 FROM revisits r WHERE r.project_id = @project_id AND r.id = known.id OFFSET 0))) k,
         unnest(@queues::text[]) q (queue), unnest(@types::text[]) ty (type),
         LATERAL (
             SELECT todo.id, todo.name, todo.last_downloader FROM todo
             WHERE todo.project_id = @project_id AND todo.queue = q.queue AND todo.type = ty.type AND todo.id = k.id
             OFFSET 0
             FOR UPDATE SKIP LOCKED) w
), waiting_for AS (
    SELECT DISTINCT ON (w.hash) w.id, w.hash, r.req
    FROM waiting w JOIN reported r ON r.hash = w.hash JOIN reqs ON reqs.req = r.req
    WHERE reqs.downloader = w.last_downloader
    ORDER BY w.hash, r.req
), refused AS (
    -- A request's items that another downloader holds (or held last).
    SELECT r.req FROM reported r JOIN reqs ON reqs.req = r.req
    JOIN (SELECT held.hash, held.downloader, held.last_downloader FROM held
          UNION ALL SELECT waiting.hash, NULL, waiting.last_downloader FROM waiting) o ON o.hash = r.hash
    WHERE reqs.downloader IS DISTINCT FROM o.downloader AND reqs.downloader IS DISTINCT FROM o.last_downloader
), finished_claims AS (
    -- Locked by held: still as read there.
    DELETE FROM claims
    WHERE claims.project_id = @project_id AND claims.hash = ANY(ARRAY(SELECT held_by.hash FROM held_by))
    RETURNING claims.hash, claims.id, claims.name, claims.site, claims.claimed_at, claims.claim_count
), finished_todo AS (
    -- Locked by waiting: probed again, then deleted by their physical
    -- address.
    DELETE FROM todo
    WHERE todo.project_id = @project_id AND todo.ctid = ANY(ARRAY(
        SELECT t.ctid FROM waiting_for wf, unnest(@queues::text[]) q (queue), unnest(@types::text[]) ty (type),
             LATERAL (
                 SELECT x.ctid FROM todo x
                 WHERE x.project_id = @project_id AND x.queue = q.queue AND x.type = ty.type AND x.id = wf.id
                 OFFSET 0) t))
    -- (Citus returns no stable function of a row: the hash is taken below.)
    RETURNING todo.id, todo.name, todo.site, todo.type, todo.queue, todo.claim_count
), finished AS (
    -- When the item was claimed last is not kept once it is queued again:
    -- its completion says now, and adds nothing to the round trips.
    SELECT f.hash, f.id, f.name, f.site, f.claimed_at, f.claim_count, ''::text AS queue, hb.req
    FROM finished_claims f JOIN held_by hb ON hb.hash = f.hash
    UNION ALL
    SELECT wf.hash, f.id, f.name, f.site, now(), f.claim_count, f.queue, wf.req
    FROM finished_todo f JOIN waiting_for wf ON wf.id = f.id
), results AS (
    SELECT (@result_reqs::integer[])[r.ord] AS req, item_hash(r.name) AS hash, (@results::text[])[r.ord]::jsonb AS result
    FROM unnest(@result_names::text[]) WITH ORDINALITY AS r (name, ord)
), shared AS (
    SELECT f.hash, f.id, f.name, f.site, f.claimed_at, f.claim_count, f.queue, f.req, reqs.downloader, reqs.version, reqs.domains, reqs.client_id, reqs.ip,
           reqs.user_agent,
           div(reqs.bytes, count(*) OVER w)
             + CASE WHEN row_number() OVER w <= mod(reqs.bytes, count(*) OVER w) THEN 1 ELSE 0 END AS share
    FROM finished f JOIN reqs ON reqs.req = f.req
    WINDOW w AS (PARTITION BY f.req ORDER BY f.id ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING)
), recorded AS (
    INSERT INTO done (project_id, id, name, site, downloader, version, bytes, domains, client_id, claimed_at, claim_count, ip, result)
    SELECT @project_id, shared.id, shared.name, shared.site, shared.downloader, shared.version, shared.share,
           shared.domains::jsonb, nullif(shared.client_id, '')::json, shared.claimed_at, shared.claim_count, nullif(shared.ip, '')::inet,
           results.result
    FROM shared LEFT JOIN results ON results.req = shared.req AND results.hash = shared.hash
), outcomes AS (
    SELECT (@outcome_reqs::integer[])[o.ord] AS req, item_hash(o.name) AS hash, (@outcome_factors::float8[])[o.ord] AS factor
    FROM unnest(@outcome_names::text[]) WITH ORDINALITY AS o (name, ord)
), rescored AS (
    -- Nothing at all unless the project is recurring. The score is a probe
    -- of its key per item: a join could be planned as a read of all the
    -- project's scores. Scores stay within 1e-200 and 1e200, so with
    -- factors of at most 100 and at least 1e-6 no product overflows.
    SELECT shared.id, shared.name, shared.site,
           least(greatest(coalesce((SELECT s.score FROM item_scores s WHERE s.project_id = @project_id AND s.id = shared.id), 1)
                          * coalesce(o.factor, 1), 1e-200), 1e200) AS score
    FROM shared
    LEFT JOIN outcomes o ON o.req = shared.req AND o.hash = shared.hash
    WHERE @recurring::boolean
), scores AS (
    INSERT INTO item_scores AS s (project_id, id, score)
    SELECT @project_id, rescored.id, rescored.score FROM rescored
    ON CONFLICT (project_id, id) DO UPDATE SET score = excluded.score
), scheduled AS (
    INSERT INTO revisits (project_id, due_at, id, name, score, site)
    SELECT @project_id, now() + @revisit_after::interval, rescored.id, rescored.name, rescored.score, rescored.site
    FROM rescored WHERE rescored.score >= @retire_below::float8
    RETURNING 1
), retired AS (
    INSERT INTO todo (project_id, queue, type, site, id, name)
    SELECT @project_id, 'retired', '', rescored.site, rescored.id, rescored.name
    FROM rescored WHERE rescored.score < @retire_below::float8
    ON CONFLICT DO NOTHING
    RETURNING 1
), site_counts AS (
    -- The sites of the items completed: each updated once, here, in key
    -- order, with its completions (see SitesCount). Nothing is read for
    -- items without a site.
    SELECT shared.site, count(*) FILTER (WHERE shared.queue = '') AS out,
           count(*) FILTER (WHERE shared.queue <> '' AND f.type = ':site') AS queued,
           count(*) AS done, LEAST(coalesce(sum(shared.share), 0), 9223372036854775807)::bigint AS bytes
    FROM shared LEFT JOIN finished_todo f ON f.id = shared.id AND shared.queue <> ''
    WHERE shared.site <> 0
    GROUP BY shared.site
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
      AND (SELECT count(*) FROM sites_locked) >= 0
), credit AS (
    -- Appended, not added to the downloaders' rows: the rollup job folds
    -- them in (see done_tallies). One row per request, with the first
    -- @log_names of its items (by name, the first being item) and its
    -- client's User-Agent for the live log.
    INSERT INTO done_tallies (project_id, downloader, items, bytes, version, domains, item, user_agent, names)
    SELECT @project_id, shared.downloader, count(*), sum(shared.share), shared.version,
           CASE WHEN (@bytes::bigint[])[shared.req] = 0 THEN '{}' ELSE shared.domains::jsonb END, min(shared.name),
           shared.user_agent, (array_agg(shared.name ORDER BY shared.name))[1:@log_names::integer]
    FROM shared
    GROUP BY shared.req, shared.downloader, shared.version, shared.domains, shared.user_agent
), counter_deltas AS (
    -- Bytes saturate at the largest bigint rather than fail the batch.
    SELECT d.name, d.delta
    FROM (
        SELECT 'bytes' AS name, coalesce(sum(shared.share), 0) AS delta FROM shared
        UNION ALL
        SELECT 'claims', -count(*) FILTER (WHERE shared.queue = '') FROM shared
        UNION ALL
        SELECT 'done', count(*) FROM shared
        UNION ALL
        SELECT 'done_reclaimed', count(*) FILTER (WHERE shared.claim_count > 1) FROM shared
        UNION ALL
        SELECT 'round_trip_ms', coalesce(sum(extract(epoch FROM now() - shared.claimed_at) * 1000), 0)::bigint FROM shared
        UNION ALL
        SELECT 'queue:' || shared.queue, -1 FROM shared WHERE shared.queue <> ''
        UNION ALL
        SELECT 'done_not_held', 1 FROM refused
        UNION ALL
        SELECT 'revisits', 1 FROM scheduled
        UNION ALL
        SELECT 'queue:retired', 1 FROM retired
        UNION ALL
        SELECT 'retired', 1 FROM retired
    ) d
), counted AS (
    INSERT INTO counters AS c (project_id, name, shard, value)
    SELECT @project_id, d.name, counter_shard(), LEAST(sum(d.delta), 9223372036854775807)::bigint
    FROM counter_deltas d
    GROUP BY d.name
    HAVING sum(d.delta) <> 0
    ORDER BY d.name
    ON CONFLICT (project_id, name, shard) DO UPDATE
    SET value = CASE WHEN excluded.value > 0 AND c.value > 9223372036854775807 - excluded.value THEN 9223372036854775807 ELSE c.value + excluded.value END
)
SELECT o.req::integer AS req, count(*) FILTER (WHERE o.done) AS completed, count(*) FILTER (WHERE NOT o.done) AS refused
FROM (SELECT shared.req, true AS done FROM shared UNION ALL SELECT refused.req, false FROM refused) o
GROUP BY o.req;

-- name: DoneRequeue :one
-- Queues again, in queue @queue, up to @max completed items (archived ones
-- are out of reach) whose names start with @prefix and match @pattern
-- (each when not empty) and whose id is above @after_id, in id order; an
-- item claimed or queued already is left alone, and one waiting for its
-- next visit (a recurring project's) is visited now instead. Returns how
-- many were queued and the last id looked at (0 when none). An item queued
-- again starts a fresh count of hand-outs, as a recrawled or revisited one
-- does: max_claims counts the hand-outs of this round of work.
WITH candidates AS (
    -- Under the name of its latest completion (a recrawl may have queued
    -- it with another context since).
    SELECT DISTINCT ON (d.id) d.id, d.name, d.site FROM done d
    WHERE d.project_id = @project_id AND d.id > @after_id
      AND (@prefix::text = '' OR starts_with(d.name, @prefix::text))
      AND (@pattern::text = '' OR d.name ~ @pattern::text)
    ORDER BY d.id, d.done_at DESC
    LIMIT @max
), queued AS (
    INSERT INTO todo (project_id, queue, type, site, id, name)
    SELECT @project_id, @queue::text, queue_type(@queue::text, c.name, project_limited_types(@project_id), project_site(@project_id, c.site)),
           project_site(@project_id, c.site), c.id, c.name
    FROM candidates c
    WHERE NOT EXISTS (SELECT 1 FROM claims WHERE claims.hash = item_hash(c.name) AND claims.project_id = @project_id)
      -- Probed through todo's key, queue by queue (@queues lists them all),
      -- stretch by stretch (as the project files items now).
      AND NOT EXISTS (SELECT 1 FROM todo t WHERE t.project_id = @project_id AND t.queue = ANY(@queues::text[])
                      AND t.type = ANY(project_limited_types(@project_id) || ARRAY['', ':site']) AND t.id = c.id)
    ON CONFLICT DO NOTHING
    RETURNING todo.type, todo.site
), unscheduled AS (
    DELETE FROM revisits r
    WHERE r.project_id = @project_id AND r.id = ANY(ARRAY(SELECT c.id FROM candidates c))
    RETURNING 1
), counter_deltas AS (
    SELECT 'queue:' || @queue::text AS name, count(*) AS delta FROM queued
    UNION ALL SELECT 'revisits', -count(*) FROM unscheduled
), counted AS (
    INSERT INTO counters AS c (project_id, name, shard, value)
    SELECT @project_id, d.name, counter_shard(), LEAST(sum(d.delta), 9223372036854775807)::bigint
    FROM counter_deltas d
    GROUP BY d.name
    HAVING sum(d.delta) <> 0
    ORDER BY d.name
    ON CONFLICT (project_id, name, shard) DO UPDATE
    SET value = CASE WHEN excluded.value > 0 AND c.value > 9223372036854775807 - excluded.value THEN 9223372036854775807 ELSE c.value + excluded.value END
), site_deltas AS (
    SELECT queued.site, 1 AS queued, 0 AS out, NULL::text AS holder FROM queued WHERE queued.type = ':site'
), site_sums AS (
    SELECT x.site, sum(x.queued)::bigint AS queued, sum(x.out)::integer AS out, min(x.holder) AS holder
    FROM site_deltas x
    WHERE x.site <> 0
    GROUP BY x.site
    HAVING sum(x.queued) <> 0 OR sum(x.out) <> 0
), sites_locked AS (
    SELECT s.id FROM sites s
    WHERE s.project_id = @project_id AND s.id = ANY(ARRAY(SELECT d.site FROM site_sums d))
    ORDER BY s.id
    FOR UPDATE
), sites_counted AS (
    UPDATE sites s
    SET queued = s.queued + d.queued, out = s.out + d.out,
        at_limit = s.at_limit AND d.out >= 0,
        downloader = CASE WHEN d.out > 0 AND s.out = 0 THEN d.holder ELSE s.downloader END
    FROM site_sums d
    WHERE s.project_id = @project_id AND s.id = d.site
      AND (SELECT count(*) FROM sites_locked) >= 0
)
SELECT (SELECT count(*) FROM queued)::bigint AS queued, coalesce((SELECT max(id) FROM candidates), 0)::bigint AS last_id;

-- name: BooksDoneCount :one
-- The books: the completions in the hot table.
SELECT count(*) FROM done WHERE project_id = @project_id;

-- name: BooksDoneBytes :one
-- The books: the bytes of the completions in the hot table, saturated at
-- the largest bigint like the totals it is checked against.
SELECT LEAST(coalesce(sum(bytes), 0), 9223372036854775807)::bigint AS bytes FROM done WHERE project_id = @project_id;

-- name: DoneCountWhere :one
-- How many completed items DoneRequeue would look at (items claimed or
-- queued again meanwhile are left alone then): the admin panel says so
-- before it does.
SELECT count(DISTINCT d.id) FROM done d
WHERE d.project_id = @project_id
  AND (@prefix::text = '' OR starts_with(d.name, @prefix::text))
  AND (@pattern::text = '' OR d.name ~ @pattern::text);

-- name: DoneCountItems :one
-- How many of the items of @ids named in @names are completed in the hot
-- table (what DoneRequeueItems would look at).
SELECT count(DISTINCT d.id) FROM unnest(@ids::bigint[]) i (id), LATERAL (
    SELECT x.id FROM done x
    WHERE x.project_id = @project_id AND x.id = i.id AND x.name = ANY(@names::text[])
    OFFSET 0) d;

-- name: DoneRequeueItems :one
-- DoneRequeue for the items an admin picked: those of @ids completed under
-- a name in @names, each a probe of done_project_id_id. Returns how many
-- were queued.
WITH candidates AS (
    SELECT DISTINCT ON (d.id) d.id, d.name, d.site
    FROM unnest(@ids::bigint[]) i (id), LATERAL (
        SELECT x.id, x.name, x.site, x.done_at FROM done x
        WHERE x.project_id = @project_id AND x.id = i.id AND x.name = ANY(@names::text[])
        OFFSET 0) d
    ORDER BY d.id, d.done_at DESC
), queued AS (
    INSERT INTO todo (project_id, queue, type, site, id, name)
    SELECT @project_id, @queue::text, queue_type(@queue::text, c.name, project_limited_types(@project_id), project_site(@project_id, c.site)),
           project_site(@project_id, c.site), c.id, c.name
    FROM candidates c
    WHERE NOT EXISTS (SELECT 1 FROM claims WHERE claims.hash = item_hash(c.name) AND claims.project_id = @project_id)
      AND NOT EXISTS (SELECT 1 FROM todo t WHERE t.project_id = @project_id AND t.queue = ANY(@queues::text[])
                      AND t.type = ANY(project_limited_types(@project_id) || ARRAY['', ':site']) AND t.id = c.id)
    ON CONFLICT DO NOTHING
    RETURNING todo.type, todo.site
), unscheduled AS (
    DELETE FROM revisits r
    WHERE r.project_id = @project_id AND r.id = ANY(ARRAY(SELECT c.id FROM candidates c))
    RETURNING 1
), counter_deltas AS (
    SELECT 'queue:' || @queue::text AS name, count(*) AS delta FROM queued
    UNION ALL SELECT 'revisits', -count(*) FROM unscheduled
), counted AS (
    INSERT INTO counters AS c (project_id, name, shard, value)
    SELECT @project_id, d.name, counter_shard(), LEAST(sum(d.delta), 9223372036854775807)::bigint
    FROM counter_deltas d
    GROUP BY d.name
    HAVING sum(d.delta) <> 0
    ORDER BY d.name
    ON CONFLICT (project_id, name, shard) DO UPDATE
    SET value = CASE WHEN excluded.value > 0 AND c.value > 9223372036854775807 - excluded.value THEN 9223372036854775807 ELSE c.value + excluded.value END
), site_deltas AS (
    SELECT queued.site, 1 AS queued, 0 AS out, NULL::text AS holder FROM queued WHERE queued.type = ':site'
), site_sums AS (
    SELECT x.site, sum(x.queued)::bigint AS queued, sum(x.out)::integer AS out, min(x.holder) AS holder
    FROM site_deltas x
    WHERE x.site <> 0
    GROUP BY x.site
    HAVING sum(x.queued) <> 0 OR sum(x.out) <> 0
), sites_locked AS (
    SELECT s.id FROM sites s
    WHERE s.project_id = @project_id AND s.id = ANY(ARRAY(SELECT d.site FROM site_sums d))
    ORDER BY s.id
    FOR UPDATE
), sites_counted AS (
    UPDATE sites s
    SET queued = s.queued + d.queued, out = s.out + d.out,
        at_limit = s.at_limit AND d.out >= 0,
        downloader = CASE WHEN d.out > 0 AND s.out = 0 THEN d.holder ELSE s.downloader END
    FROM site_sums d
    WHERE s.project_id = @project_id AND s.id = d.site
      AND (SELECT count(*) FROM sites_locked) >= 0
)
SELECT count(*) FROM queued;

-- name: DoneOfItem :many
-- An item's completions in the hot table, newest first: its visits, in a
-- recurring project.
SELECT downloader, version, bytes, domains::text AS domains, claimed_at, done_at, claim_count, ip,
       coalesce(result::text, '')::text AS result
FROM done
WHERE project_id = @project_id AND id = @id
ORDER BY done_at DESC
LIMIT @max;

-- name: DoneBrowse :many
-- A page of a project's completed items for the admin panel, in id order
-- after item @after_id, each with its latest completion: up to @max of the
-- first @scan items there whose names start with @prefix, contain
-- @contains and match @pattern (each when set); a last row, edge, holds
-- the last id read and how many were (scanned). On done_project_id_id.
WITH win AS MATERIALIZED (
    SELECT DISTINCT ON (d.id) d.id, d.name, d.downloader, d.done_at, d.bytes FROM done d
    WHERE d.project_id = @project_id AND d.id > @after_id::bigint
    ORDER BY d.id, d.done_at DESC
    LIMIT @scan::integer
)
(SELECT w.id, w.name, w.downloader, w.done_at, w.bytes, false AS edge, 0::bigint AS scanned
 FROM win w
 WHERE (@prefix::text = '' OR starts_with(w.name, @prefix::text))
   AND (@contains::text = '' OR strpos(w.name, @contains::text) > 0)
   AND (@pattern::text = '' OR w.name ~ @pattern::text)
 ORDER BY w.id
 LIMIT @max::integer)
UNION ALL
(SELECT w.id, '', '', w.done_at, 0::bigint, true, (SELECT count(*) FROM win)
 FROM win w ORDER BY w.id DESC LIMIT 1);

-- name: DoneBrowseBack :many
-- DoneBrowse backwards: the page before item @before_id, last item first
-- (the edge row holds the first id read).
WITH win AS MATERIALIZED (
    SELECT DISTINCT ON (d.id) d.id, d.name, d.downloader, d.done_at, d.bytes FROM done d
    WHERE d.project_id = @project_id AND d.id < @before_id::bigint
    ORDER BY d.id DESC, d.done_at DESC
    LIMIT @scan::integer
)
(SELECT w.id, w.name, w.downloader, w.done_at, w.bytes, false AS edge, 0::bigint AS scanned
 FROM win w
 WHERE (@prefix::text = '' OR starts_with(w.name, @prefix::text))
   AND (@contains::text = '' OR strpos(w.name, @contains::text) > 0)
   AND (@pattern::text = '' OR w.name ~ @pattern::text)
 ORDER BY w.id DESC
 LIMIT @max::integer)
UNION ALL
(SELECT w.id, '', '', w.done_at, 0::bigint, true, (SELECT count(*) FROM win)
 FROM win w ORDER BY w.id LIMIT 1);

-- name: DonePurgeBatch :execrows
-- Deletes the completions of up to @max of a deleting project's items (see
-- items.Engine.Purge). On Citus only, where done's partitions are days
-- every project shares; elsewhere the project's partitions are dropped
-- whole (DonePartitionsDrop).
DELETE FROM done WHERE done.project_id = @project_id
  AND done.id = ANY(ARRAY(SELECT d.id FROM done d WHERE d.project_id = @project_id LIMIT @max));
