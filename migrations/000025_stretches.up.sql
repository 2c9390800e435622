-- Where a queued item belongs (its stretch, todo.type, and its site) follows
-- the project's configuration as it is when the item enters the queue, read
-- here rather than passed in: a statement putting items back (a release, an
-- expiry, a revisit, a move) may run on a view of the project read before a
-- change of its type limits or of its site key, and an item filed under a
-- stretch no walk reads any more would never be handed out. The statements
-- that file items take the project's stretches lock in share mode first
-- (ProjectStretchesShare), and a change of the stretches takes it alone
-- (ProjectStretchesLock) and refiles the queued items: a statement that read
-- the configuration before the change commits before the refiling reads.

-- project_limited_types are the types the project limits (see queue_type).
CREATE FUNCTION project_limited_types(project integer) RETURNS text[]
    LANGUAGE sql STABLE PARALLEL SAFE
    RETURN (SELECT coalesce(array_agg(k.key ORDER BY k.key), '{}')
            FROM projects p,
                 jsonb_object_keys(CASE WHEN jsonb_typeof(p.config -> 'type_limits') = 'object'
                                        THEN p.config -> 'type_limits' ELSE '{}' END) AS k (key)
            WHERE p.id = project);

-- project_site is the site an item keeps when it enters a queue: its own in
-- a project that keeps sites, none in one that does not.
CREATE FUNCTION project_site(project integer, site integer) RETURNS integer
    LANGUAGE sql STABLE PARALLEL SAFE
    RETURN CASE WHEN site = 0 THEN 0
                WHEN (SELECT coalesce(p.config ->> 'site_key', 'off') NOT IN ('', 'off') FROM projects p WHERE p.id = project) THEN site
                ELSE 0 END;
