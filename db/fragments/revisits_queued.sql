-- Items a statement took out of the schedule (its CTE due: id, name, site
-- and the queue each goes to, from DELETE FROM revisits ... RETURNING) are
-- queued for their visit; the counters and the sites' counts follow. The
-- revisit job and an admin's "visit now" differ only in which they take:
--
--     ), -- include: revisits_queued
--     )
--
-- An item already queued stays where it is (ON CONFLICT DO NOTHING):
-- scheduled or queued, never both. Defines queued (queue, type, site of
-- each item queued). Reads @project_id.
queued AS (
    INSERT INTO todo (project_id, queue, type, site, id, name)
    SELECT @project_id, due.queue, queue_type(due.queue, due.name, project_limited_types(@project_id), project_site(@project_id, due.site)),
           project_site(@project_id, due.site), due.id, due.name
    FROM due
    ON CONFLICT DO NOTHING
    RETURNING todo.queue, todo.type, todo.site
), counter_deltas AS (
    SELECT 'revisits' AS name, -1 AS delta FROM due
    UNION ALL SELECT 'requeued', 1 FROM queued
    UNION ALL SELECT 'queue:' || queued.queue, 1 FROM queued
), counted AS (
    -- include: counters_add
), site_deltas AS (
    SELECT queued.site, 1 AS queued, 0 AS out, NULL::text AS holder FROM queued WHERE queued.type = ':site'
), -- include: sites_count
