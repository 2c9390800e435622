-- The statement triggers of 000017_sites, as they were.
-- sites_count applies the changes of one statement to its sites: per
-- project and site, items queued, items out, and a downloader that took
-- items of it. The rows are locked in key order first, so statements
-- changing the same sites never wait on each other in a cycle. A site
-- handed out while it had nothing out is its new holder's; a site that got
-- an item back is no longer at its limit.
CREATE FUNCTION sites_count(d_projects integer[], d_sites integer[], d_queued bigint[], d_out bigint[], d_holders text[])
    RETURNS void
    LANGUAGE plpgsql AS $$
BEGIN
    PERFORM 1 FROM sites s
    WHERE (s.project_id, s.id) IN (SELECT * FROM unnest(d_projects, d_sites))
    ORDER BY s.project_id, s.id
    FOR UPDATE;
    UPDATE sites s
    SET queued = s.queued + d.queued,
        out = s.out + d.out,
        at_limit = s.at_limit AND d.out >= 0,
        downloader = CASE WHEN d.out > 0 AND s.out = 0 THEN d.holder ELSE s.downloader END
    FROM unnest(d_projects, d_sites, d_queued, d_out, d_holders) AS d (project_id, id, queued, out, holder)
    WHERE s.project_id = d.project_id AND s.id = d.id;
END
$$;

-- sites_counted says whether the transaction's statements count their
-- sites themselves: the hand-outs (SitesTake) and the completions
-- (DoneRecordBatch) do, in the one update of each site they make anyway,
-- and say so for their transaction; the triggers then leave their rows
-- alone.
CREATE FUNCTION sites_counted() RETURNS boolean
    LANGUAGE sql STABLE
    RETURN coalesce(current_setting('tracker.sites_counted', true), '') = 'on';

-- The statement triggers: each reads the rows its statement changed (a
-- transition table) once, and does nothing when none has a site.
CREATE FUNCTION todo_sites_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NOT sites_counted() AND EXISTS (SELECT 1 FROM new_rows WHERE type = ':site') THEN
        PERFORM sites_count(array_agg(project_id), array_agg(site), array_agg(n), array_agg(0::bigint), array_agg(NULL::text))
        FROM (SELECT project_id, site, count(*) AS n FROM new_rows WHERE type = ':site' GROUP BY 1, 2) d;
    END IF;
    RETURN NULL;
END
$$;

CREATE FUNCTION todo_sites_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NOT sites_counted() AND EXISTS (SELECT 1 FROM old_rows WHERE type = ':site') THEN
        PERFORM sites_count(array_agg(project_id), array_agg(site), array_agg(-n), array_agg(0::bigint), array_agg(NULL::text))
        FROM (SELECT project_id, site, count(*) AS n FROM old_rows WHERE type = ':site' GROUP BY 1, 2) d;
    END IF;
    RETURN NULL;
END
$$;

CREATE FUNCTION todo_sites_updated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NOT sites_counted() AND (EXISTS (SELECT 1 FROM old_rows WHERE type = ':site') OR EXISTS (SELECT 1 FROM new_rows WHERE type = ':site')) THEN
        PERFORM sites_count(array_agg(project_id), array_agg(site), array_agg(n), array_agg(0::bigint), array_agg(NULL::text))
        FROM (SELECT project_id, site, sum(n)::bigint AS n
              FROM (SELECT project_id, site, 1 AS n FROM new_rows WHERE type = ':site'
                    UNION ALL SELECT project_id, site, -1 FROM old_rows WHERE type = ':site') c
              GROUP BY 1, 2 HAVING sum(n) <> 0) d;
    END IF;
    RETURN NULL;
END
$$;

CREATE FUNCTION claims_sites_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NOT sites_counted() AND EXISTS (SELECT 1 FROM new_rows WHERE site <> 0) THEN
        PERFORM sites_count(array_agg(project_id), array_agg(site), array_agg(0::bigint), array_agg(n), array_agg(holder))
        FROM (SELECT project_id, site, count(*) AS n, min(downloader) AS holder
              FROM new_rows WHERE site <> 0 GROUP BY 1, 2) d;
    END IF;
    RETURN NULL;
END
$$;

CREATE FUNCTION claims_sites_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NOT sites_counted() AND EXISTS (SELECT 1 FROM old_rows WHERE site <> 0) THEN
        PERFORM sites_count(array_agg(project_id), array_agg(site), array_agg(0::bigint), array_agg(-n), array_agg(NULL::text))
        FROM (SELECT project_id, site, count(*) AS n FROM old_rows WHERE site <> 0 GROUP BY 1, 2) d;
    END IF;
    RETURN NULL;
END
$$;

CREATE TRIGGER todo_sites_inserted AFTER INSERT ON todo
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION todo_sites_inserted();
CREATE TRIGGER todo_sites_deleted AFTER DELETE ON todo
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION todo_sites_deleted();
CREATE TRIGGER todo_sites_updated AFTER UPDATE ON todo
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION todo_sites_updated();
CREATE TRIGGER claims_sites_inserted AFTER INSERT ON claims
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION claims_sites_inserted();
CREATE TRIGGER claims_sites_deleted AFTER DELETE ON claims
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION claims_sites_deleted();
