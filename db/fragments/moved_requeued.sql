-- Items a statement took from queue @from_queue (its CTE moved: id, name,
-- type, site, claim_count, last_downloader, last_ip, from DELETE FROM todo ...
-- RETURNING) go to queue @to_queue or, when it is empty, are dropped; the
-- counters and the sites' counts follow. A move by selection and a move of
-- the items an admin picked differ only in which rows they take:
--
--     ), -- include: moved_requeued
--     )
--
-- An item leaves the error queue with a fresh count of hand-outs, and the
-- retired queue with its first score again; it lands in the stretch of its
-- type in a queue served by type. A dropped item's parameters and score go
-- with it unless the item is still held elsewhere: queued in another of
-- @queues (in @types), out, scheduled for a visit, or completed (the
-- archive job prunes those with the completions). Each of those is a probe
-- of a key for each item, never a read of the project's rows. Defines
-- queued (type, site of each item queued). Reads @project_id.
--
-- On Citus the deletes find their rows by key rather than by the
-- addresses another part of the statement found: Citus runs the
-- statement's parts one after the other on the project's worker, and
-- deletes no rows by such addresses.
queued AS (
    INSERT INTO todo (project_id, queue, type, site, id, name, claim_count, last_downloader, last_ip)
    SELECT @project_id, @to_queue::text,
           queue_type(@to_queue::text, moved.name, project_limited_types(@project_id), project_site(@project_id, moved.site)),
           project_site(@project_id, moved.site), moved.id, moved.name,
           CASE WHEN @from_queue::text = 'error' THEN 0 ELSE moved.claim_count END,
           moved.last_downloader, moved.last_ip
    FROM moved
    WHERE @to_queue::text <> ''
    ON CONFLICT DO NOTHING
    RETURNING todo.type, todo.site
), revived AS (
    -- Each a probe of the key, as below.
    DELETE FROM item_scores
    WHERE @from_queue::text = 'retired' AND @to_queue::text <> ''
    -- if citus
      AND item_scores.project_id = @project_id AND item_scores.id = ANY(ARRAY(SELECT moved.id FROM moved))
    -- else
      AND item_scores.ctid = ANY(ARRAY(SELECT x.ctid FROM moved, LATERAL (
          SELECT s.ctid FROM item_scores s WHERE s.project_id = @project_id AND s.id = moved.id OFFSET 0 /* fence */) x))
    -- end if
), dropped AS (
    SELECT moved.id FROM moved
    WHERE @to_queue::text = ''
      AND (EXISTS (SELECT 1 FROM item_params x WHERE x.project_id = @project_id)
           OR EXISTS (SELECT 1 FROM item_scores x WHERE x.project_id = @project_id))
      AND NOT EXISTS (SELECT 1 FROM todo t
                      WHERE t.project_id = @project_id AND t.queue = ANY(@queues::text[]) AND t.type = ANY(@types::text[])
                        AND t.id = moved.id AND t.queue <> @from_queue::text)
      AND NOT EXISTS (SELECT 1 FROM claims c WHERE c.hash = item_hash(moved.name) AND c.project_id = @project_id)
      AND NOT EXISTS (SELECT 1 FROM revisits r WHERE r.project_id = @project_id AND r.id = moved.id)
      -- A probe of each day for each (a fence).
      AND NOT EXISTS (SELECT 1 FROM done d WHERE d.project_id = @project_id AND d.id = moved.id OFFSET 0 /* fence */)
), unparamed AS (
    DELETE FROM item_params
    -- if citus
    WHERE item_params.project_id = @project_id AND item_params.id = ANY(ARRAY(SELECT dropped.id FROM dropped))
    -- else
    WHERE item_params.ctid = ANY(ARRAY(SELECT x.ctid FROM dropped, LATERAL (
        SELECT s.ctid FROM item_params s WHERE s.project_id = @project_id AND s.id = dropped.id OFFSET 0 /* fence */) x))
    -- end if
), unscored AS (
    DELETE FROM item_scores
    -- if citus
    WHERE item_scores.project_id = @project_id AND item_scores.id = ANY(ARRAY(SELECT dropped.id FROM dropped))
    -- else
    WHERE item_scores.ctid = ANY(ARRAY(SELECT x.ctid FROM dropped, LATERAL (
        SELECT s.ctid FROM item_scores s WHERE s.project_id = @project_id AND s.id = dropped.id OFFSET 0 /* fence */) x))
    -- end if
), counter_deltas AS (
    -- Nothing is queued when the items are dropped (@to_queue empty).
    SELECT 'queue:' || @from_queue::text AS name, -(SELECT count(*) FROM moved) AS delta
    UNION ALL SELECT 'queue:' || @to_queue::text, count(*) FROM queued
    UNION ALL SELECT 'requeued', count(*) FROM queued
    UNION ALL SELECT 'dropped', (SELECT count(*) FROM moved) - (SELECT count(*) FROM queued)
), counted AS (
    -- include: counters_add
), site_deltas AS (
    SELECT moved.site, -1 AS queued, 0 AS out, NULL::text AS holder FROM moved WHERE moved.type = ':site'
    UNION ALL SELECT queued.site, 1, 0, NULL FROM queued WHERE queued.type = ':site'
), -- include: sites_count
