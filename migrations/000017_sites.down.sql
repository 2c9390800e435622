DROP TABLE item_tags;
DROP TRIGGER claims_sites_deleted ON claims;
DROP TRIGGER claims_sites_inserted ON claims;
DROP TRIGGER todo_sites_updated ON todo;
DROP TRIGGER todo_sites_deleted ON todo;
DROP TRIGGER todo_sites_inserted ON todo;
DROP FUNCTION claims_sites_deleted, claims_sites_inserted,
              todo_sites_updated, todo_sites_deleted, todo_sites_inserted, sites_counted, sites_count;
DROP FUNCTION queue_type(text, text, text[], integer);
CREATE FUNCTION queue_type(queue text, name text, limited_types text[]) RETURNS text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    RETURN CASE WHEN queue IN ('error', 'retired') THEN ''
                WHEN item_type(name) = ANY(limited_types) THEN item_type(name)
                ELSE '' END;
UPDATE todo SET type = '' WHERE type = ':site';
DROP INDEX todo_sites;
ALTER TABLE revisits DROP COLUMN site;
ALTER TABLE done DROP COLUMN site;
ALTER TABLE claims DROP COLUMN site;
ALTER TABLE todo DROP COLUMN site;
DROP TABLE sites;
DROP SEQUENCE site_ids;
