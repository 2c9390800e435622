-- Claims a statement took back (its CTE released: id, name, queue, site,
-- claim_count, downloader, ip, from DELETE FROM claims ... RETURNING) go
-- back to the queue they came from, in their old place, remembering how
-- often they were handed out and who held them last, from where (who may
-- still report them done); the counters and the sites' counts follow. A
-- release by name and a release by selection differ only in which claims
-- they take, and in the claims named from another network than their
-- holder's (its CTE away: name), which are counted:
--
--     ), away AS (
--         ...
--     ), -- include: released_requeued
--     )
--
-- Defines queued (queue, type, site of each item queued again). Reads
-- @project_id.
queued AS (
    -- The holder is remembered, with the address it claimed the item
    -- from: it may still report the item done.
    INSERT INTO todo (project_id, queue, type, site, id, name, claim_count, last_downloader, last_ip)
    SELECT @project_id, released.queue, queue_type(released.queue, released.name, project_limited_types(@project_id), project_site(@project_id, released.site)),
           project_site(@project_id, released.site), released.id, released.name, released.claim_count, released.downloader, released.ip
    FROM released
    RETURNING todo.queue, todo.type, todo.site
), counter_deltas AS (
    SELECT 'claims' AS name, -1 AS delta FROM queued
    UNION ALL SELECT 'requeued', 1 FROM queued
    UNION ALL SELECT 'queue:' || queued.queue, 1 FROM queued
    UNION ALL SELECT 'release_other_network', count(*) FROM away
), counted AS (
    -- include: counters_add
), site_deltas AS (
    SELECT released.site, 0 AS queued, -1 AS out, NULL::text AS holder FROM released
    UNION ALL SELECT queued.site, 1, 0, NULL FROM queued WHERE queued.type = ':site'
), -- include: sites_count
