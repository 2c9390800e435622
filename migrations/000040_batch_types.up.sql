-- The row types statements take their batches in: one parameter holding a
-- row per request instead of an array per field. pgx encodes a Go struct
-- into them once it knows their fields, which db.Open reads from the
-- catalog on connecting (see db.batchTypes). And the stretches of the
-- queues holding items, where a done looks for an item nobody holds.

-- One done request of a batch (DoneRecordBatch).
CREATE TYPE done_request AS (
    downloader text,
    version    text,
    -- The bytes credited, shared out over the items the request completes
    -- (0 when the project keeps them out of its totals).
    bytes      bigint,
    -- The bytes per domain reported, as JSON.
    domains    jsonb,
    -- The client's "id" (NULL when absent) and address (NULL when unknown).
    client_id  json,
    ip         inet,
    -- The client's User-Agent, for the live log.
    user_agent text,
    -- The items reported.
    names      text[],
    -- Results and outcome factors by item name up to its context (what
    -- item_hash hashes): JSON objects, NULL when the request reports none.
    results    jsonb,
    factors    jsonb
);

-- The items of one site handed to one request (SitesTake).
CREATE TYPE site_take AS (
    site       integer,
    -- Up to how many of the site's items.
    items      integer,
    -- The request taking them, returned with each item, and who made it.
    slot       integer,
    downloader text,
    version    text,
    ip         inet,
    -- The bytes of parameters the request's answer carries already.
    carried    bigint
);

-- todo_stretches are the stretches of a project's queues (a queue and a
-- type) that hold items: one probe of todo's key each, from the last
-- stretch back (a loose index scan). Backwards, each probe lands on a
-- stretch's newest entry: claims delete from a stretch's head, so its tail
-- is rarely dead (a stretch emptied since vacuum last ran is walked over,
-- and its entries marked dead for the next walk). STABLE, it reads the
-- snapshot of the statement calling it; in PL/pgSQL, it is planned apart
-- from that statement, which pays nothing for it when it is not called.
CREATE FUNCTION todo_stretches(project integer) RETURNS TABLE (queue text, type text)
    LANGUAGE plpgsql STABLE PARALLEL SAFE ROWS 10 AS $$
#variable_conflict use_column
BEGIN
    RETURN QUERY
    WITH RECURSIVE found (queue, type) AS (
        (SELECT t.queue, t.type FROM todo t
         WHERE t.project_id = project
         ORDER BY t.queue DESC, t.type DESC
         LIMIT 1)
        UNION ALL
        SELECT b.queue, b.type FROM found f, LATERAL (
            SELECT t.queue, t.type FROM todo t
            WHERE t.project_id = project AND (t.queue, t.type) < (f.queue, f.type)
            ORDER BY t.queue DESC, t.type DESC
            LIMIT 1) b
    )
    SELECT found.queue, found.type FROM found;
END
$$;
