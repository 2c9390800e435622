-- queue_type is the stretch of a queue an item belongs in: its type when
-- the project limits that type (see todo.type), else ''. The queues no
-- request is served from (error, retired) are one stretch whatever the
-- types, so a page of them reads one run of the index and a change of
-- limits leaves them alone.
CREATE FUNCTION queue_type(queue text, name text, limited_types text[]) RETURNS text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    RETURN CASE WHEN queue IN ('error', 'retired') THEN ''
                WHEN item_type(name) = ANY(limited_types) THEN item_type(name)
                ELSE '' END;

UPDATE todo SET type = '' WHERE queue IN ('error', 'retired') AND type <> '';

-- The downloaders whose claims expired lately, for expired_claims_limit:
-- the last hour of a project's expiries, not its month.
CREATE INDEX claim_expiries_recent ON claim_expiries (project_id, expired_at) INCLUDE (downloader);
