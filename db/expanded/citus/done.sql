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
    -- Their ids, looked up before the statement (db/citus's
    -- DoneRecordBatch): seen is spread over every worker, and the
    -- statement runs on the project's.
    SELECT k.id FROM unnest(@unclaimed_ids::bigint[]) AS k (id)
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
    -- Every stretch named: todo_stretches, which reads todo by its name,
    -- cannot run inside the statement a worker runs for the project's
    -- shard.
    SELECT q.queue, ty.type FROM unnest(@queues::text[]) q (queue), unnest(@types::text[]) ty (type)
    WHERE EXISTS (SELECT 1 FROM unscheduled)
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
    -- By key: Citus runs the statement's parts one after the other, and
    -- deletes no rows by addresses another part found.
    DELETE FROM todo
    WHERE todo.project_id = @project_id AND (todo.queue, todo.type, todo.id) IN (
        SELECT s.queue, s.type, qf.id FROM queued_for qf, probed s)
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

