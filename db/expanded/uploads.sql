-- name: UploadRecord :one
-- Keeps a receipt for an upload of the item whose own hash is @hash (its
-- id @id, as seen), if the item is out (its claim) or done (a completion in
-- the hot tables), and if it has fewer than @max_per_item receipts or this
-- one repeats one it has (a repeat refreshes the time and address). known
-- says whether the item was out or done, kept whether the receipt is kept.
WITH item AS (
    SELECT coalesce(
        (SELECT c.id FROM claims c WHERE c.hash = @hash AND c.project_id = @project_id),
        (SELECT d.id FROM done d WHERE d.project_id = @project_id AND d.id = @id LIMIT 1)) AS id
), kept AS (
    INSERT INTO uploads (project_id, id, uploader, server, ip)
    SELECT @project_id::integer, i.id, @uploader::text, @server::text, sqlc.narg(ip)::inet FROM item i
    WHERE i.id IS NOT NULL
      AND ((SELECT count(*) FROM uploads x WHERE x.project_id = @project_id AND x.id = i.id) < @max_per_item::bigint
           OR EXISTS (SELECT 1 FROM uploads x WHERE x.project_id = @project_id AND x.id = i.id
                      AND x.uploader = @uploader::text AND x.server = @server::text))
    -- (excluded.at is now(), the column's default: Citus takes no function
    -- but an immutable one in DO UPDATE SET.)
    ON CONFLICT (project_id, id, uploader, server) DO UPDATE SET at = excluded.at, ip = excluded.ip
    RETURNING 1
)
SELECT (SELECT i.id IS NOT NULL FROM item i)::boolean AS known, EXISTS (SELECT 1 FROM kept)::boolean AS kept;

-- name: UploadsPurgeBatch :execrows
-- Deletes up to @max of a deleting project's rows (see items.Engine.Purge).
DELETE FROM uploads WHERE uploads.project_id = @project_id AND ctid = ANY(ARRAY(SELECT p.ctid FROM uploads p WHERE p.project_id = @project_id LIMIT @max));

-- name: UploadsOfItem :many
-- An item's upload receipts, newest first.
SELECT uploader, server, ip, at FROM uploads WHERE project_id = @project_id AND id = @id ORDER BY at DESC;
