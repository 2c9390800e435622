ALTER TABLE dictionaries DROP COLUMN token;

DROP INDEX uploads_item;
ALTER TABLE uploads ADD COLUMN item text;
UPDATE uploads u SET item = coalesce(
    (SELECT c.name FROM claims c WHERE c.project_id = u.project_id AND c.id = u.id LIMIT 1),
    (SELECT d.name FROM done d WHERE d.project_id = u.project_id AND d.id = u.id LIMIT 1),
    '');
ALTER TABLE uploads ALTER COLUMN item SET NOT NULL, DROP COLUMN id;
CREATE INDEX uploads_project_at ON uploads (project_id, at);
