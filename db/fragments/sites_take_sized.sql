-- Each site's items a claim batch takes, found in their queues and locked
-- (locked), and which of them fit in their request's answer (sized):
-- SitesTake, step 1.
locked AS (
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
    -- if citus
    SELECT r.ord, r.slot, r.id, r.bytes, r.sent, r.upto <= @budget::bigint OR r.upto = r.sent AS fits,
    -- else
    SELECT r.ord, r.slot, r.tid, r.id, r.bytes, r.sent, r.upto <= @budget::bigint OR r.upto = r.sent AS fits,
    -- end if
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
                             -- include: params_bytes
                      FROM locked i
                      OFFSET 0 /* fence */) b
                OFFSET 0 /* fence */) p) r
