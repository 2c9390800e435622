-- name: ClaimsTakeSlots :many
-- Hands out items of one stretch of a queue to many requests at once: one
-- slot per item wanted, each naming its downloader and its request (the
-- slots of a request come one after another), in the order the requests
-- came. Items go to slots in queue order; the answer names the slot each
-- item went to (a slot whose item is out already under another copy gets
-- none: see claimed). A request's answer carries at most @budget bytes of
-- names and parameters as sent (answer_bytes), @carried of them already
-- (by slot): an item that would take it past them is not taken but stays
-- queued and comes back as cut, as do the items of the request's slots
-- after it. The first item of an answer is always taken.
WITH slots AS (
    -- The arrays read side by side, in one pass: a subscript of an array
    -- of text walks it from its start.
    SELECT s.slot, s.nick, s.version, s.ip, s.request, coalesce(s.carried, 0) AS carried
    FROM ROWS FROM (unnest(@nicks::text[]), unnest(@versions::text[]), unnest(@ips::text[]),
                    unnest(@requests::integer[]), unnest(@carried::bigint[]))
         WITH ORDINALITY AS s (nick, version, ip, request, carried, slot)
    WHERE s.nick IS NOT NULL
), head AS (
    SELECT (ARRAY(SELECT t.ctid))[1] /* tid */ AS tid, t.id, t.name, t.site, t.claim_count, t.last_downloader, t.last_ip FROM todo t
    WHERE t.project_id = @project_id AND t.queue = @queue::text AND t.type = @item_type::text AND t.id > @after_id
    ORDER BY t.id
    LIMIT @max
    FOR UPDATE SKIP LOCKED
), sized AS MATERIALIZED (
    -- The bytes of each item's parameters (params_bytes), what it takes
    -- in its request's answer (answer_bytes), and whether it fits there:
    -- the answer's first item always does. Each item with its row and its
    -- slot's request, which the parts below read from here: a join of two
    -- of this statement's parts is planned without their sizes, and may
    -- be a loop over one for each row of the other.
    SELECT r.id, r.slot, r.bytes, r.sent, r.upto <= @budget::bigint OR r.upto = r.sent AS fits,
           r.name, r.site, r.claim_count, r.last_downloader, r.last_ip, r.nick, r.version, r.ip
    FROM (SELECT p.tid, p.id, p.slot, p.bytes, p.sent,
                 sum(p.sent) OVER (PARTITION BY s.request ORDER BY p.slot) + s.carried AS upto,
                 p.name, p.site, p.claim_count, p.last_downloader, p.last_ip, s.nick, s.version, s.ip
          -- sent measured once an item, in a level of its own: an
          -- expression both shown and summed is computed twice.
          FROM (SELECT b.tid, b.id, b.name, b.site, b.claim_count, b.last_downloader, b.last_ip, b.slot, b.bytes,
                       answer_bytes(b.name, b.bytes) AS sent
                FROM (SELECT i.tid, i.id, i.name, i.site, i.claim_count, i.last_downloader, i.last_ip, row_number() OVER (ORDER BY i.id) AS slot,
                             CASE WHEN EXISTS (SELECT 1 FROM item_params x WHERE x.project_id = @project_id)
                                  THEN coalesce((SELECT coalesce(ip.bytes, sent_bytes(ip.params::text)) FROM item_params ip
                                                 WHERE ip.project_id = @project_id AND ip.id = i.id), 0)
                                  ELSE 0 END::bigint AS bytes
                      FROM head i) b
                OFFSET 0 /* fence */) p
          JOIN slots s ON s.slot = p.slot) r
), taken AS (
    -- By key: Citus runs the statement's parts one after the other (an
    -- INSERT among them) and plans no delete that an address reaches from
    -- another part, even one it does not read.
    DELETE FROM todo
    WHERE todo.project_id = @project_id AND todo.queue = @queue::text AND todo.type = @item_type::text
      AND todo.id = ANY(ARRAY(SELECT sized.id FROM sized WHERE sized.fits))
    RETURNING 1
), taken_for AS (
    -- The rows taken, as locked and read by head: deleted as they were.
    SELECT sized.id, sized.name, sized.site, sized.claim_count, sized.last_downloader, sized.last_ip, sized.slot, sized.bytes, sized.sent,
           sized.nick, sized.version, sized.ip
    FROM sized WHERE sized.fits
), claimed AS (
    -- Claims hold one item per name. Backfeed shards can queue the same
    -- name more than once (the same URL again the next day); while one copy
    -- is out, another taken here is not claimed but goes back below.
    INSERT INTO claims (project_id, hash, id, name, queue, site, downloader, ip, version, claim_count, last_downloader, last_ip)
    SELECT @project_id, item_hash(n.name), n.id, n.name, @queue::text, n.site, n.nick, nullif(n.ip, '')::inet, n.version, n.claim_count + 1, n.last_downloader, n.last_ip
    FROM taken_for n
    ON CONFLICT DO NOTHING
    RETURNING claims.id
), put_back AS (
    -- Back in its old place, behind the head: it is found again when a
    -- claim comes back short and looks from the start of the queue.
    INSERT INTO todo (project_id, queue, type, site, id, name, claim_count, last_downloader, last_ip)
    SELECT @project_id, @queue::text, @item_type::text, n.site, n.id, n.name, n.claim_count, n.last_downloader, n.last_ip
    FROM taken_for n
    WHERE n.id NOT IN (SELECT claimed.id FROM claimed)
      -- After the delete of the rows taken, whose keys these are.
      AND (SELECT count(*) FROM taken) >= 0 /* after */
    RETURNING todo.id
), counter_deltas AS (
    -- The items of a queue walk have no site (their type is not ':site'):
    -- no site changes.
    SELECT 'claims' AS name, count(*) AS delta FROM claimed
    UNION ALL SELECT 'queue:' || @queue::text, -count(*) FROM claimed
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
SELECT t.slot::integer AS slot, t.id, t.name, t.claim_count,
       CASE WHEN t.bytes > 0
            THEN coalesce((SELECT ip.params::text FROM item_params ip WHERE ip.project_id = @project_id AND ip.id = t.id), '')
            ELSE '' END::text AS params,
       t.sent::bigint AS sent, false AS cut
FROM taken_for t
WHERE t.id NOT IN (SELECT put_back.id FROM put_back)
UNION ALL
SELECT sized.slot::integer, sized.id, ''::text, 0, ''::text, 0::bigint, true FROM sized WHERE NOT sized.fits
ORDER BY slot;

