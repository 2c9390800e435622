-- The one way the sites' counts are kept, as counters_add is the
-- counters'. A statement that moves items with a site says what it
-- changed as site_deltas (site, queued, out, holder), computed from the
-- rows it moved, and goes on with these CTEs, closing the last:
--
--     ), -- include: sites_count
--     )
--
-- one update per site a statement touches, never per item. The sites are
-- locked in key order first, so statements changing the same sites never
-- wait on each other in a cycle. A site that got an item back is no
-- longer at its limit; a site handed out while it had nothing out is its
-- new holder's. Reads @project_id.
site_sums AS (
    SELECT x.site, sum(x.queued)::bigint AS queued, sum(x.out)::integer AS out, min(x.holder) AS holder
    FROM site_deltas x
    WHERE x.site <> 0
    GROUP BY x.site
    HAVING sum(x.queued) <> 0 OR sum(x.out) <> 0
), sites_locked AS (
    SELECT s.id FROM sites s
    WHERE s.project_id = @project_id AND s.id = ANY(ARRAY(SELECT d.site FROM site_sums d))
    ORDER BY s.id
    FOR UPDATE
), sites_counted AS (
    UPDATE sites s
    SET queued = s.queued + d.queued, out = s.out + d.out,
        at_limit = s.at_limit AND d.out >= 0,
        downloader = CASE WHEN d.out > 0 AND s.out = 0 THEN d.holder ELSE s.downloader END
    FROM site_sums d
    WHERE s.project_id = @project_id AND s.id = d.site
      AND (SELECT count(*) FROM sites_locked) >= 0 /* after */
