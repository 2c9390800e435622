-- name: SitesTake :many
-- Hands out the items of sites SitesDue locked. @takes holds a row per
-- site (site_take): up to how many of its items go to which request (its
-- slot, returned with each item, the request's downloader, version and
-- address, and the bytes its answer carries already). A
-- site's items come from the downloader's own queue (with @own_queues:
-- some requester has one) and then from @queues in order, each in id
-- order. Every site named is paced: due again @interval on, and at its
-- limit when it now holds @site_limit items out (0: no limit). A
-- request's answer carries at most @budget bytes of names and parameters,
-- the sites in the order given: see ClaimsTakeSlots. A site whose items
-- were all cut so stays as it was, due.
--
-- What it does, in this order (every part sees the tables as they were
-- when the statement began):
--   1. finds each site's items in its queues, locked (locked), and which
--      of them fit in their request's answer (sized);
--   2. takes those out of the queues (taken) and claims them for their
--      requests (taken_for, claimed); an item whose name is out already
--      (a copy queued again from another backfeed shard: claims hold one
--      item per name) goes back to its queue (put_back);
--   3. paces each site and counts its items queued and out (paced: the
--      sites' counts follow from the rows moved, see SitesCount), and
--      adjusts the project's counters by the items claimed
--      (counter_deltas, added by the fragment counters_add: counted);
--   4. returns the items claimed, each with its slot and parameters, and
--      those cut.
-- The claims are made at this statement's time, which is after SitesDue
-- locked the sites and read their items out: a site's hand-outs, and its
-- items out at any moment, can be checked from the completions
-- afterwards (BooksSitesUnderInterval, BooksSitesOverLimit).
WITH takes AS (
    SELECT w.ord, w.site, w.items, w.slot, w.downloader, w.version, w.ip, w.carried
    FROM unnest(@takes::site_take[]) WITH ORDINALITY AS w (site, items, slot, downloader, version, ip, carried, ord)
), locked AS (
    -- Each row's physical address, read through a subquery: sqlc knows no
    -- system column outside one.
    SELECT w.ord, w.slot, w.carried, w.downloader, w.version, w.ip, t.tid, t.id, t.name, t.queue, t.site, t.claim_count, t.last_downloader, t.last_ip, t.rank
    FROM takes w CROSS JOIN LATERAL (
        SELECT t.tid, t.id, t.name, q.queue, t.site, t.claim_count, t.last_downloader, t.last_ip, q.rank FROM unnest(CASE WHEN @own_queues::boolean THEN array_prepend('downloader:' || w.downloader, @queues::text[])
                                                ELSE @queues::text[] END) WITH ORDINALITY AS q (queue, rank)
        CROSS JOIN LATERAL (
            SELECT (ARRAY(SELECT t.ctid))[1] /* tid */ AS tid, t.id, t.name, t.site, t.claim_count, t.last_downloader, t.last_ip FROM todo t
            WHERE t.project_id = @project_id AND t.site = w.site AND t.queue = q.queue AND t.type = ':site'
            ORDER BY t.id
            LIMIT w.items
            FOR UPDATE SKIP LOCKED
        ) t
        ORDER BY q.rank, t.id
        LIMIT w.items
    ) t
), sized AS MATERIALIZED (
    -- The bytes of each item's parameters (params_bytes), what it takes
    -- in its request's answer (answer_bytes), and whether it fits there,
    -- the sites in the order given (see ClaimsTakeSlots); each item with
    -- its row and its request, which the parts below read from here (see
    -- ClaimsTakeSlots' sized).
    SELECT r.ord, r.slot, r.id, r.bytes, r.sent, r.upto <= @budget::bigint OR r.upto = r.sent AS fits,
           r.name, r.queue, r.site, r.claim_count, r.last_downloader, r.last_ip, r.downloader, r.version, r.ip
    FROM (SELECT p.ord, p.slot, p.tid, p.id, p.bytes, p.sent,
                 sum(p.sent) OVER (PARTITION BY p.slot ORDER BY p.ord, p.rank, p.id) + coalesce(p.carried, 0) AS upto,
                 p.name, p.queue, p.site, p.claim_count, p.last_downloader, p.last_ip, p.downloader, p.version, p.ip
          -- sent measured once an item, in a level of its own: an
          -- expression both shown and summed is computed twice.
          FROM (SELECT b.ord, b.slot, b.carried, b.tid, b.id, b.name, b.queue, b.site, b.claim_count, b.last_downloader, b.last_ip,
                       b.downloader, b.version, b.ip, b.rank, b.bytes, answer_bytes(b.name, b.bytes) AS sent
                FROM (SELECT i.ord, i.slot, i.carried, i.tid, i.id, i.name, i.queue, i.site, i.claim_count, i.last_downloader, i.last_ip,
                             i.downloader, i.version, i.ip, i.rank,
                             CASE WHEN EXISTS (SELECT 1 FROM item_params x WHERE x.project_id = @project_id)
                                  THEN coalesce((SELECT coalesce(ip.bytes, sent_bytes(ip.params::text)) FROM item_params ip
                                                 WHERE ip.project_id = @project_id AND ip.id = i.id), 0)
                                  ELSE 0 END::bigint AS bytes
                      FROM locked i
                      OFFSET 0 /* fence */) b
                OFFSET 0 /* fence */) p) r
), taken AS (
    DELETE FROM todo
    -- By key, as ClaimsTakeSlots does there.
    WHERE todo.project_id = @project_id AND todo.type = ':site' AND todo.id = ANY(ARRAY(SELECT sized.id FROM sized WHERE sized.fits))
    RETURNING 1
), taken_for AS (
    -- Each item taken, as locked and read (deleted as it was), with the
    -- request it goes to.
    SELECT sized.id, sized.name, sized.queue, sized.site, sized.claim_count, sized.last_downloader, sized.last_ip,
           sized.slot, sized.downloader, sized.version, sized.ip, sized.bytes, sized.sent
    FROM sized WHERE sized.fits
), claimed AS (
    INSERT INTO claims (project_id, hash, id, name, queue, site, downloader, ip, version, claimed_at, claim_count, last_downloader, last_ip)
    SELECT @project_id, item_hash(t.name), t.id, t.name, t.queue, t.site, t.downloader, t.ip, t.version, statement_timestamp(), t.claim_count + 1, t.last_downloader, t.last_ip
    FROM taken_for t
    ON CONFLICT DO NOTHING
    RETURNING claims.id, claims.site, claims.queue
), put_back AS (
    INSERT INTO todo (project_id, queue, type, site, id, name, claim_count, last_downloader, last_ip)
    SELECT @project_id, t.queue, ':site', t.site, t.id, t.name, t.claim_count, t.last_downloader, t.last_ip
    FROM taken_for t
    WHERE t.id NOT IN (SELECT claimed.id FROM claimed)
      -- After the delete of the rows taken, whose keys these are.
      AND (SELECT count(*) FROM taken) >= 0 /* after */
    RETURNING todo.id
), paced AS (
    -- Locked by SitesDue: as it was before this statement. The one update
    -- of each site: its pace, its items queued and out, its holder (see
    -- SitesCount).
    UPDATE sites s
    SET due_at = statement_timestamp() + @interval::interval, last_at = statement_timestamp(),
        at_limit = @site_limit::integer > 0 AND s.out + c.n >= @site_limit::integer,
        queued = s.queued - c.n,
        out = s.out + c.n,
        downloader = CASE WHEN c.n > 0 AND s.out = 0 THEN c.downloader ELSE s.downloader END
    FROM (SELECT w.site, w.downloader, count(claimed.id) AS n
          FROM takes w LEFT JOIN claimed ON claimed.site = w.site
          -- A site whose items were all cut gave nothing: it stays due.
          WHERE EXISTS (SELECT 1 FROM sized WHERE sized.ord = w.ord AND sized.fits)
             OR NOT EXISTS (SELECT 1 FROM sized WHERE sized.ord = w.ord)
          GROUP BY w.site, w.downloader) c
    -- By key: Citus plans no update by addresses, nor by a lateral join
    -- under it.
    WHERE s.project_id = @project_id AND s.id = ANY(ARRAY(SELECT DISTINCT w.site FROM takes w))
      AND s.id = c.site
), counter_deltas AS (
    SELECT 'claims' AS name, 1 AS delta FROM claimed
    UNION ALL SELECT 'queue:' || claimed.queue, -1 FROM claimed
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
ORDER BY slot, id;

