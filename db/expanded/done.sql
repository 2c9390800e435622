-- name: DoneGet :one
-- The completion of an item, newest first should it have several.
SELECT * FROM done WHERE project_id = @project_id AND id = @id ORDER BY done_at DESC LIMIT 1;

-- name: DoneRecordBatch :many
-- Completes the done requests of a batch in one statement. @requests holds
-- a row per request (done_request: who reported, their bytes, the items
-- reported, their results and outcomes, by item name up to its context); a
-- request is known by its place in it, 1 for the first. An item is
-- completed for the first request of the batch whose downloader holds its
-- claim or held it last (before a reclaim handed it to someone else, or
-- while it waits in its queue again after its claim expired or was
-- released): they did the work. Anyone else's done for an item claimed or
-- queued completes nothing and is counted ('done_not_held'); items neither
-- claimed nor queued (a repeated done) are ignored. A request naming an
-- item under its holder's (or last holder's) nick from another network
-- than that holder claimed it from (same_network: its /24, its /48) is
-- counted ('done_other_network'); with @claimer_network it completes
-- nothing, as a stranger's, and without, a request from the holder's
-- network is preferred to it. A queued item is
-- looked for in @queues and @types (the standard queues and the reporters'
-- own, the project's stretches), in those of them that hold items, unless
-- it waits for its next visit. In a @recurring project a completion
-- schedules the item's next visit @revisit_after on: its score is
-- multiplied by the factor reported for it (1 when none), and an item
-- whose score falls below @retire_below retires instead (the queue
-- 'retired').
--
-- What it does, in this order (every part sees the tables as they were
-- when the statement began):
--   1. reads who holds each item reported: its claim (claimed), or for an
--      item nobody holds (unclaimed), its id (unclaimed_ids), whether it
--      waits for its next visit (unscheduled: those that do not), the
--      stretches holding items (probed) and its queue row there (queued),
--      each locked;
--   2. decides which request each item is completed for (claimed_by,
--      claimed_for, queued_by, queued_for), which requests reported items
--      held for someone else (refused) and which reported them from
--      another network than their holder's (away);
--   3. takes the items completed out of claims and queues
--      (taken_from_claims, taken_from_queues);
--   4. shares each request's bytes out over its items completed, so the
--      shares add up to its total, and records the completions with their
--      results (completions, recorded);
--   5. in a recurring project, rescores the items and schedules their
--      next visit or retires them (rescored, scores_kept, scheduled,
--      retired);
--   6. counts the completions of the items' sites (site_counts,
--      sites_counted), appends the downloaders' tallies with the live
--      log's names and User-Agent (tallied) and adjusts the project's
--      counters by what moved (counter_deltas, added by the fragment
--      counters_add: counted).
-- Returns, per request that completed, was refused or came from another
-- network for something, how many items it completed, how many it was
-- refused as another downloader's and how many it named from another
-- network than their holder's (completed or not).
WITH requests AS (
    SELECT r.req::integer AS req, r.downloader, r.version, r.bytes, r.domains, r.client_id, r.ip, r.user_agent, r.names, r.results, r.factors
    FROM unnest(@requests::done_request[]) WITH ORDINALITY AS r (downloader, version, bytes, domains, client_id, ip, user_agent, names, results, factors, req)
), reported AS (
    -- Each item reported, by its name's hash, with each request naming it.
    SELECT DISTINCT item_hash(n.name) AS hash, r.req
    FROM requests r, unnest(r.names) AS n (name)
), claimed AS (
    -- The claims of the items reported, locked: who holds each now. "=
    -- ANY" of an array makes each hash a probe of the key; a join could be
    -- planned as a read of all the project's claims.
    SELECT claims.hash, claims.id, claims.name, claims.site, claims.claimed_at, claims.claim_count,
           claims.downloader, claims.ip, claims.last_downloader, claims.last_ip
    FROM claims
    WHERE claims.project_id = @project_id AND claims.hash = ANY(ARRAY(SELECT DISTINCT reported.hash FROM reported))
    FOR UPDATE
), claimed_by AS (
    -- The requests naming a claimed item under the nick of its holder or
    -- last holder, with the claim as locked, and whether each comes from
    -- the network that nick claimed it from (near).
    SELECT c.hash, r.req, c.id, c.name, c.site, c.claimed_at, c.claim_count,
           coalesce(requests.downloader = c.downloader AND same_network(requests.ip, c.ip), false)
           OR coalesce(requests.downloader = c.last_downloader AND same_network(requests.ip, c.last_ip), false) AS near
    FROM claimed c JOIN reported r ON r.hash = c.hash JOIN requests ON requests.req = r.req
    WHERE requests.downloader IN (c.downloader, c.last_downloader)
), claimed_for AS (
    -- The request each claimed item is completed for: the first from its
    -- holder's network, else (unless @claimer_network) the first.
    SELECT DISTINCT ON (b.hash) b.hash, b.req, b.id, b.name, b.site, b.claimed_at, b.claim_count
    FROM claimed_by b
    WHERE b.near OR NOT @claimer_network::boolean
    ORDER BY b.hash, b.near DESC, b.req
), unclaimed AS (
    -- The items nobody holds: done already, never handed out, or back in a
    -- queue. Usually none, and then nothing below reads seen or todo.
    SELECT DISTINCT reported.hash FROM reported WHERE reported.hash NOT IN (SELECT claimed.hash FROM claimed)
), unclaimed_ids AS (
    -- Their ids: seen keeps an item under its key, and under its own hash
    -- as well when the key is another (backfeed keys). Each hash is a
    -- probe of its key (a fence).
    SELECT seen.id FROM seen
    WHERE seen.project_id = @project_id AND seen.hash = ANY(ARRAY(SELECT unclaimed.hash FROM unclaimed))
    UNION
    SELECT k.id FROM unclaimed, LATERAL (
        SELECT seen.id FROM seen
        WHERE seen.project_id = @project_id AND seen.item = unclaimed.hash AND seen.item IS NOT NULL
        OFFSET 0 /* fence */) k
), unscheduled AS (
    -- Of those, the items not waiting for their next visit: such an item
    -- of a recurring project is in no queue (see RevisitsDue), and a done
    -- repeated for items it scheduled, the usual unclaimed names there,
    -- looks in no queue at all. One probe of its visit each (a fence).
    SELECT DISTINCT u.id FROM unclaimed_ids u
    WHERE NOT (@recurring::boolean AND EXISTS (SELECT 1 FROM revisits r WHERE r.project_id = @project_id AND r.id = u.id OFFSET 0 /* fence */))
), probed AS (
    -- The stretches an unclaimed item is looked for in: those of its
    -- queues holding items, and none read unless some unclaimed item is
    -- waiting for no visit.
    -- todo_stretches reads this statement's snapshot, the one the probes
    -- below read too: a stretch holding an item they could find is there,
    -- even one put back into its queue a moment ago, which a list read
    -- before the statement (the project's cached summary) could miss. The
    -- counters would say it too, but only as the sum of a queue's 1,024
    -- shards, and a recurring project has a hundred band queues.
    SELECT s.queue, s.type FROM todo_stretches(@project_id) AS s (queue, type)
    WHERE EXISTS (SELECT 1 FROM unscheduled) AND s.queue = ANY(@queues::text[]) AND s.type = ANY(@types::text[])
), queued AS (
    -- The unclaimed items found queued, locked: who held each last, and
    -- the row as locked. Each a probe of the queue key, stretch by
    -- stretch.
    SELECT w.id, item_hash(w.name) AS hash, w.last_downloader, w.last_ip, w.name, w.site, s.queue, s.type, w.claim_count
    FROM unscheduled k, probed s,
         LATERAL (
             SELECT todo.id, todo.name, todo.last_downloader, todo.last_ip, todo.site, todo.claim_count FROM todo
             WHERE todo.project_id = @project_id AND todo.queue = s.queue AND todo.type = s.type AND todo.id = k.id
             OFFSET 0 /* fence */
             FOR UPDATE SKIP LOCKED) w
), queued_by AS (
    -- The requests naming a queued item under the nick of its last
    -- holder, with the row as locked, and whether each comes from the
    -- network that holder claimed it from (near).
    SELECT q.id, q.hash, r.req, q.name, q.site, q.queue, q.type, q.claim_count,
           same_network(requests.ip, q.last_ip) AS near
    FROM queued q JOIN reported r ON r.hash = q.hash JOIN requests ON requests.req = r.req
    WHERE requests.downloader = q.last_downloader
), queued_for AS (
    -- The request each queued item is completed for, chosen as a claimed
    -- item's is.
    SELECT DISTINCT ON (b.hash) b.id, b.hash, b.req, b.name, b.site, b.queue, b.type, b.claim_count
    FROM queued_by b
    WHERE b.near OR NOT @claimer_network::boolean
    ORDER BY b.hash, b.near DESC, b.req
), away AS (
    -- The requests naming an item under its holder's nick from another
    -- network than the holder's: with @claimer_network none completes it,
    -- and without, it is counted all the same.
    SELECT b.req FROM claimed_by b WHERE NOT b.near
    UNION ALL
    SELECT b.req FROM queued_by b WHERE NOT b.near
), refused AS (
    -- A request's items that another downloader holds (or held last).
    SELECT r.req FROM reported r JOIN requests ON requests.req = r.req
    JOIN (SELECT claimed.hash, claimed.downloader, claimed.last_downloader FROM claimed
          UNION ALL SELECT queued.hash, NULL, queued.last_downloader FROM queued) o ON o.hash = r.hash
    WHERE requests.downloader IS DISTINCT FROM o.downloader AND requests.downloader IS DISTINCT FROM o.last_downloader
), taken_from_claims AS (
    -- Locked by claimed: still as read there.
    DELETE FROM claims
    WHERE claims.project_id = @project_id AND claims.hash = ANY(ARRAY(SELECT claimed_for.hash FROM claimed_for))
    RETURNING 1
), taken_from_queues AS (
    -- Locked by queued: probed again, then deleted by their physical
    -- address. The project is not named beside the addresses: with it the
    -- plan may read the project's key for an empty list, a probe of todo
    -- in a batch that found every item claimed.
    DELETE FROM todo
    WHERE todo.ctid = ANY(ARRAY(
        SELECT t.ctid FROM queued_for qf, probed s,
             LATERAL (
                 SELECT x.ctid FROM todo x
                 WHERE x.project_id = @project_id AND x.queue = s.queue AND x.type = s.type AND x.id = qf.id
                 OFFSET 0 /* fence */) t))
    RETURNING 1
), completed AS (
    -- The items taken, as they were locked and read (claimed_for,
    -- queued_for), not as the deletes return them: a join of two parts of
    -- the statement is planned without their sizes, and may be a loop over
    -- one for each row of the other. Read once the deletes have run (a
    -- part nothing reads runs only after the rest): what is written below
    -- comes after them, as a retired item's row in its queue. When the
    -- item was claimed last is not kept once it is queued again: its
    -- completion says now, and adds nothing to the round trips.
    SELECT cf.hash, cf.id, cf.name, cf.site, cf.claimed_at, cf.claim_count, ''::text AS queue, ''::text AS type, cf.req
    FROM claimed_for cf
    WHERE (SELECT count(*) FROM taken_from_claims) >= 0 /* after */
    UNION ALL
    SELECT qf.hash, qf.id, qf.name, qf.site, now(), qf.claim_count, qf.queue, qf.type, qf.req
    FROM queued_for qf
    WHERE (SELECT count(*) FROM taken_from_queues) >= 0 /* after */
), completions AS (
    -- Each item completed with what its request says, the item's result
    -- and outcome factor among it, and its share of the request's bytes.
    SELECT c.hash, c.id, c.name, c.site, c.claimed_at, c.claim_count, c.queue, c.type, c.req,
           r.downloader, r.version, r.bytes AS request_bytes, r.domains, r.client_id, r.ip, r.user_agent,
           -- By the item's name up to its context, what item_hash hashes:
           -- the name it was reported under may carry another context.
           r.results -> split_part(c.name, E'\x1F', 1) AS result,
           (r.factors ->> split_part(c.name, E'\x1F', 1))::float8 AS factor,
           div(r.bytes, count(*) OVER w)
             + CASE WHEN row_number() OVER w <= mod(r.bytes, count(*) OVER w) THEN 1 ELSE 0 END AS share
    FROM completed c JOIN requests r ON r.req = c.req
    WINDOW w AS (PARTITION BY c.req ORDER BY c.id ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING)
), recorded AS (
    INSERT INTO done (project_id, id, name, site, downloader, version, bytes, domains, client_id, claimed_at, claim_count, ip, result)
    SELECT @project_id, c.id, c.name, c.site, c.downloader, c.version, c.share, c.domains, c.client_id, c.claimed_at, c.claim_count, c.ip, c.result
    FROM completions c
), rescored AS (
    -- Nothing at all unless the project is recurring. The score is a probe
    -- of its key per item: a join could be planned as a read of all the
    -- project's scores. Scores stay within 1e-200 and 1e200, so with
    -- factors of at most 100 and at least 1e-6 no product overflows.
    SELECT c.id, c.name, c.site,
           least(greatest(coalesce((SELECT s.score FROM item_scores s WHERE s.project_id = @project_id AND s.id = c.id), 1)
                          * coalesce(c.factor, 1), 1e-200), 1e200) AS score
    FROM completions c
    WHERE @recurring::boolean
), scores_kept AS (
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
SELECT o.req::integer AS req, count(*) FILTER (WHERE o.kind = 'completed') AS completed,
       count(*) FILTER (WHERE o.kind = 'refused') AS refused, count(*) FILTER (WHERE o.kind = 'away') AS away
FROM (SELECT completions.req, 'completed' AS kind FROM completions
      UNION ALL SELECT refused.req, 'refused' FROM refused
      UNION ALL SELECT away.req, 'away' FROM away) o
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
      AND (SELECT count(*) FROM sites_locked) >= 0 /* after */
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
    OFFSET 0 /* fence */) d;

-- name: DoneRequeueItems :one
-- DoneRequeue for the items an admin picked: those of @ids completed under
-- a name in @names, each a probe of done_project_id_id. Returns how many
-- were queued.
WITH candidates AS (
    SELECT DISTINCT ON (d.id) d.id, d.name, d.site
    FROM unnest(@ids::bigint[]) i (id), LATERAL (
        SELECT x.id, x.name, x.site, x.done_at FROM done x
        WHERE x.project_id = @project_id AND x.id = i.id AND x.name = ANY(@names::text[])
        OFFSET 0 /* fence */) d
    ORDER BY d.id, d.done_at DESC
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
      AND (SELECT count(*) FROM sites_locked) >= 0 /* after */
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
