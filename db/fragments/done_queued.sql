-- The items a done batch reports that nobody holds, found in their queue,
-- and which request each is completed for (DoneRecordBatch, steps 1 and 2
-- for queued items): unclaimed and unclaimed_ids the items not claimed and
-- their ids, unscheduled those not waiting for their next visit, probed
-- the stretches holding items, queued their queue rows, locked; queued_by
-- the requests naming each under its last holder's nick, queued_for the
-- first of them.
unclaimed AS (
    -- The items nobody holds: done already, never handed out, or back in a
    -- queue. Usually none, and then nothing below reads seen or todo.
    SELECT DISTINCT reported.hash FROM reported WHERE reported.hash NOT IN (SELECT claimed.hash FROM claimed)
), unclaimed_ids AS (
    -- if citus
    -- Their ids, looked up before the statement (db/citus's
    -- DoneRecordBatch): seen is spread over every worker, and the
    -- statement runs on the project's.
    SELECT k.id FROM unnest(@unclaimed_ids::bigint[]) AS k (id)
    -- else
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
    -- end if
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
    -- if citus
    -- Every stretch named: todo_stretches, which reads todo by its name,
    -- cannot run inside the statement a worker runs for the project's
    -- shard.
    SELECT q.queue, ty.type FROM unnest(@queues::text[]) q (queue), unnest(@types::text[]) ty (type)
    WHERE EXISTS (SELECT 1 FROM unscheduled)
    -- else
    -- todo_stretches reads this statement's snapshot, the one the probes
    -- below read too: a stretch holding an item they could find is there,
    -- even one put back into its queue a moment ago, which a list read
    -- before the statement (the project's cached summary) could miss. The
    -- counters would say it too, but only as the sum of a queue's 1,024
    -- shards, and a recurring project has a hundred band queues.
    SELECT s.queue, s.type FROM todo_stretches(@project_id) AS s (queue, type)
    WHERE EXISTS (SELECT 1 FROM unscheduled) AND s.queue = ANY(@queues::text[]) AND s.type = ANY(@types::text[])
    -- end if
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
