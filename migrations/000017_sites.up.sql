-- The URL frontier: the sites of a project's items (site_key), and the
-- politeness a site is served with (site_claims_limit, site_interval,
-- site_affinity). An item's site is found once, from its name, when it is
-- queued, and travels with it as a small integer through todo, claims,
-- done and revisits (0: no site).

CREATE SEQUENCE site_ids AS integer;

-- One row per site of a project. queued and out count the site's rows in
-- todo (in the queues served) and in claims: the hand-outs and the
-- completions update them in the statements that move the items, and
-- statement triggers on todo and claims keep them for every other
-- statement (imports, releases, expiries, moves), so none can forget a
-- site.
-- The claim path reads due sites from sites_due and never the items of a
-- site out of budget.
CREATE TABLE sites (
    project_id integer     NOT NULL,
    id         integer     NOT NULL DEFAULT nextval('site_ids'),
    -- The host or registrable domain.
    name       text        NOT NULL,
    queued     bigint      NOT NULL DEFAULT 0 CHECK (queued >= 0),
    out        integer     NOT NULL DEFAULT 0 CHECK (out >= 0),
    -- The site holds as many items out as the project allows a site: set by
    -- the claim that filled it, cleared as soon as one comes back.
    at_limit   boolean     NOT NULL DEFAULT false,
    -- When the site may be handed out next (its last hand-out plus the
    -- project's site_interval); sites are served in this order.
    due_at     timestamptz NOT NULL DEFAULT now(),
    last_at    timestamptz,
    -- The downloader the site's items went to last: while the site has
    -- items out, the one holding them (with site_affinity, the only one its
    -- items go to); once none is out, nobody's. It is left as it is when
    -- the last item comes back, so that a completion changes no indexed
    -- column and its update stays on the page (HOT).
    downloader text,
    -- A blocked site's items stay queued and are not handed out.
    blocked    boolean     NOT NULL DEFAULT false,
    -- Completions and their bytes, for the leaderboard's top sites
    -- (counted by DoneRecordBatch, the one statement that completes).
    done       bigint      NOT NULL DEFAULT 0,
    bytes      bigint      NOT NULL DEFAULT 0,
    PRIMARY KEY (project_id, id),
    UNIQUE (project_id, name)
) WITH (
    -- Every hand-out moves a site along sites_due: vacuum by row count so
    -- dead entries never pile up at the index's head.
    -- Room on each page for the updates of its rows.
    fillfactor = 70,
    autovacuum_vacuum_scale_factor = 0,
    autovacuum_vacuum_threshold = 5000,
    autovacuum_vacuum_cost_delay = 0,
    autovacuum_analyze_scale_factor = 0,
    autovacuum_analyze_threshold = 50000
);

-- The sites a request may be served from, longest due first.
CREATE INDEX sites_due ON sites (project_id, due_at) WHERE queued > 0 AND NOT blocked AND NOT at_limit;

ALTER TABLE todo ADD COLUMN site integer NOT NULL DEFAULT 0;
ALTER TABLE claims ADD COLUMN site integer NOT NULL DEFAULT 0;
ALTER TABLE done ADD COLUMN site integer NOT NULL DEFAULT 0;
ALTER TABLE revisits ADD COLUMN site integer NOT NULL DEFAULT 0;

-- A queued item with a site, in a queue that is served, is in the stretch
-- ':site' (no item type has a colon), which the queue walks of the claim
-- path never read; the frontier finds its items by site in todo_sites.
CREATE INDEX todo_sites ON todo (project_id, site, queue, id) WHERE type = ':site';

DROP FUNCTION queue_type(text, text, text[]);

-- queue_type is the stretch of a queue an item belongs in: '' in the
-- queues no request is served from (error, retired: one stretch whatever
-- the items), ':site' for an item with a site, its type when the project
-- limits that type (see todo.type), else ''.
CREATE FUNCTION queue_type(queue text, name text, limited_types text[], site integer) RETURNS text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    RETURN CASE WHEN queue IN ('error', 'retired') THEN ''
                WHEN site <> 0 THEN ':site'
                WHEN item_type(name) = ANY(limited_types) THEN item_type(name)
                ELSE '' END;

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

-- Update tags of backfed items (recrawl_after): a name backfed again with
-- another tag than the one it was queued with is queued again at once.
CREATE TABLE item_tags (
    project_id integer NOT NULL,
    id         bigint  NOT NULL,
    tag        text    NOT NULL,
    PRIMARY KEY (project_id, id)
);
