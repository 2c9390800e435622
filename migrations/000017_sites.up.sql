-- The URL frontier: the sites of a project's items (site_key), and the
-- politeness a site is served with (site_claims_limit, site_interval,
-- site_affinity). An item's site is found once, from its name, when it is
-- queued, and travels with it as a small integer through todo, claims,
-- done and revisits (0: no site).

CREATE SEQUENCE site_ids AS integer;

-- One row per site of a project. queued counts the site's rows in todo
-- (in the queues served): the hand-out updates it in its own statement,
-- and statement triggers on todo keep it for every other statement
-- (imports, releases, expiries, moves, purges), so none can forget a site.
-- The items a site has out are its claims (claims_site), counted under the
-- site's lock by the claim that hands it out: a completion never touches
-- the sites. The claim path reads due sites from sites_due and never the
-- items of a site out of budget.
CREATE TABLE sites (
    project_id integer     NOT NULL,
    id         integer     NOT NULL DEFAULT nextval('site_ids'),
    -- The host or registrable domain.
    name       text        NOT NULL,
    queued     bigint      NOT NULL DEFAULT 0 CHECK (queued >= 0),
    -- When the site may be handed out next: its last hand-out plus the
    -- project's site_interval, or, when a claim found it at its limit of
    -- items out, when it is looked at again. Sites are served in this
    -- order.
    due_at     timestamptz NOT NULL DEFAULT now(),
    last_at    timestamptz,
    -- The downloader the site's items went to last: while the site has
    -- items out, the one holding them (with site_affinity, the only one
    -- its items go to); once none is out, nobody's.
    downloader text,
    -- A blocked site's items stay queued and are not handed out.
    blocked    boolean     NOT NULL DEFAULT false,
    -- Completions and their bytes, for the leaderboard's top sites: folded
    -- in from site_tallies by the rollup job.
    done       bigint      NOT NULL DEFAULT 0,
    bytes      bigint      NOT NULL DEFAULT 0,
    PRIMARY KEY (project_id, id),
    UNIQUE (project_id, name)
) WITH (
    -- Every hand-out moves a site along sites_due: vacuum by row count so
    -- dead entries never pile up at the index's head.
    autovacuum_vacuum_scale_factor = 0,
    autovacuum_vacuum_threshold = 5000,
    autovacuum_vacuum_cost_delay = 0,
    autovacuum_analyze_scale_factor = 0,
    autovacuum_analyze_threshold = 50000
);

-- The sites a request may be served from, longest due first.
CREATE INDEX sites_due ON sites (project_id, due_at) WHERE queued > 0 AND NOT blocked;

-- Completions per site, appended by the completions and folded into
-- sites.done and sites.bytes by the rollup job, as done_tallies are into
-- the downloaders: a completion adds rows and updates none.
CREATE TABLE site_tallies (
    project_id integer NOT NULL,
    site       integer NOT NULL,
    items      bigint  NOT NULL,
    bytes      bigint  NOT NULL
);

ALTER TABLE todo ADD COLUMN site integer NOT NULL DEFAULT 0;
ALTER TABLE claims ADD COLUMN site integer NOT NULL DEFAULT 0;
ALTER TABLE done ADD COLUMN site integer NOT NULL DEFAULT 0;
ALTER TABLE revisits ADD COLUMN site integer NOT NULL DEFAULT 0;

-- A site's items out: what a claim counts, under the site's lock, before it
-- hands out more.
CREATE INDEX claims_site ON claims (project_id, site) WHERE site <> 0;

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

-- sites_count adds, per project and site, the items a statement queued
-- (or took out of the queues served). The rows are locked in key order
-- first, so statements changing the same sites never wait on each other in
-- a cycle.
CREATE FUNCTION sites_count(d_projects integer[], d_sites integer[], d_queued bigint[]) RETURNS void
    LANGUAGE plpgsql AS $$
BEGIN
    PERFORM 1 FROM sites s
    WHERE (s.project_id, s.id) IN (SELECT * FROM unnest(d_projects, d_sites))
    ORDER BY s.project_id, s.id
    FOR UPDATE;
    UPDATE sites s
    SET queued = s.queued + d.queued
    FROM unnest(d_projects, d_sites, d_queued) AS d (project_id, id, queued)
    WHERE s.project_id = d.project_id AND s.id = d.id;
END
$$;

-- sites_counted says whether the transaction's statements count the items
-- queued of their sites themselves: the hand-out (SitesTake) does, in the
-- one update of each site it makes anyway, and a queue walk
-- (ClaimsTakeSlots) moves no item with a site; they say so for their
-- transaction, and the triggers then leave its rows alone.
CREATE FUNCTION sites_counted() RETURNS boolean
    LANGUAGE sql STABLE
    RETURN coalesce(current_setting('tracker.sites_counted', true), '') = 'on';

-- The statement triggers: each reads the rows its statement changed (a
-- transition table) once, and does nothing when none has a site.
CREATE FUNCTION todo_sites_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NOT sites_counted() AND EXISTS (SELECT 1 FROM new_rows WHERE type = ':site') THEN
        PERFORM sites_count(array_agg(project_id), array_agg(site), array_agg(n))
        FROM (SELECT project_id, site, count(*) AS n FROM new_rows WHERE type = ':site' GROUP BY 1, 2) d;
    END IF;
    RETURN NULL;
END
$$;

CREATE FUNCTION todo_sites_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NOT sites_counted() AND EXISTS (SELECT 1 FROM old_rows WHERE type = ':site') THEN
        PERFORM sites_count(array_agg(project_id), array_agg(site), array_agg(-n))
        FROM (SELECT project_id, site, count(*) AS n FROM old_rows WHERE type = ':site' GROUP BY 1, 2) d;
    END IF;
    RETURN NULL;
END
$$;

CREATE FUNCTION todo_sites_updated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NOT sites_counted() AND (EXISTS (SELECT 1 FROM old_rows WHERE type = ':site') OR EXISTS (SELECT 1 FROM new_rows WHERE type = ':site')) THEN
        PERFORM sites_count(array_agg(project_id), array_agg(site), array_agg(n))
        FROM (SELECT project_id, site, sum(n)::bigint AS n
              FROM (SELECT project_id, site, 1 AS n FROM new_rows WHERE type = ':site'
                    UNION ALL SELECT project_id, site, -1 FROM old_rows WHERE type = ':site') c
              GROUP BY 1, 2 HAVING sum(n) <> 0) d;
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

-- Update tags of backfed items (recrawl_after): a name backfed again with
-- another tag than the one it was queued with is queued again at once.
CREATE TABLE item_tags (
    project_id integer NOT NULL,
    id         bigint  NOT NULL,
    tag        text    NOT NULL,
    PRIMARY KEY (project_id, id)
);
