-- The completions of a done batch recorded (DoneRecordBatch, step 4): each
-- request's bytes shared out over the items it completed, so the shares add
-- up to its total, each completion with its result.
completed AS (
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
