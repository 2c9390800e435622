-- Completed items a statement picked (its CTE candidates: id, name, site,
-- each item once, under the name of its latest completion) are queued
-- again in queue @queue; an item claimed or queued already is left alone,
-- and one waiting for its next visit (a recurring project's) is visited
-- now instead. The counters and the sites' counts follow. A requeue by
-- selection and one of the items an admin picked differ only in which
-- they pick:
--
--     ), -- include: done_requeued
--     )
--
-- Defines queued (type, site of each item queued). Reads @project_id,
-- @queue and @queues (every queue of the project).
queued AS (
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
    -- include: counters_add
), site_deltas AS (
    SELECT queued.site, 1 AS queued, 0 AS out, NULL::text AS holder FROM queued WHERE queued.type = ':site'
), -- include: sites_count
