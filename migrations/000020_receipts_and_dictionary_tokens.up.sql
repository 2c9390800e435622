-- Upload receipts name the item by its id, not by its name: a receipt is
-- taken only for an item the project has out or done, so the id is always
-- there, and a receipt's size no longer grows with the name (up to 8 KiB).
-- The id is also what the archive job prunes receipts by when it archives
-- the item's completion.
ALTER TABLE uploads ADD COLUMN id bigint;
UPDATE uploads u SET id = coalesce(
    (SELECT s.id FROM seen s WHERE s.project_id = u.project_id AND s.hash = item_hash(u.item)),
    (SELECT s.id FROM seen s WHERE s.project_id = u.project_id AND s.item = item_hash(u.item) AND s.item IS NOT NULL
     ORDER BY s.id DESC LIMIT 1));
-- Receipts of names the project never saw were never receipts of anything.
DELETE FROM uploads WHERE id IS NULL;
-- One receipt per item, uploader and server: a repeat refreshes its time.
DELETE FROM uploads u USING uploads v
WHERE u.project_id = v.project_id AND u.id = v.id AND u.uploader = v.uploader AND u.server = v.server
  AND (u.at, u.ctid) < (v.at, v.ctid);
ALTER TABLE uploads ALTER COLUMN id SET NOT NULL, DROP COLUMN item;
DROP INDEX uploads_project_at;
CREATE UNIQUE INDEX uploads_item ON uploads (project_id, id, uploader, server);

-- A dictionary's address carries a random token beside its id: ids are
-- sequential, and a hidden project's dictionary must not be found by
-- counting them (docs/PROTOCOL.md, "GET /dictionary").
ALTER TABLE dictionaries ADD COLUMN token text NOT NULL DEFAULT replace(gen_random_uuid()::text, '-', '');
