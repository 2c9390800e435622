-- name: ItemParamsGet :one
-- An item's parameters ('' when it has none).
SELECT coalesce((SELECT params::text FROM item_params WHERE project_id = @project_id AND id = @id), '')::text AS params;

-- name: ItemParamsPurgeBatch :execrows
-- Deletes up to @max of a deleting project's rows (see items.Engine.Purge).
DELETE FROM item_params WHERE item_params.project_id = @project_id AND ctid = ANY(ARRAY(SELECT p.ctid FROM item_params p WHERE p.project_id = @project_id LIMIT @max));

-- name: BooksItemParamsUntracked :one
-- The books: parameters of items the project no longer tracks: neither
-- queued, out, waiting for a visit nor done in the hot table. Each a probe
-- of the tables of a state by id (a hash of each when there are many).
SELECT count(*) FROM item_params ip
WHERE ip.project_id = @project_id
  AND NOT EXISTS (SELECT 1 FROM todo t WHERE t.project_id = @project_id AND t.id = ip.id)
  AND NOT EXISTS (SELECT 1 FROM claims c WHERE c.project_id = @project_id AND c.id = ip.id)
  AND NOT EXISTS (SELECT 1 FROM revisits r WHERE r.project_id = @project_id AND r.id = ip.id)
  AND NOT EXISTS (SELECT 1 FROM done d WHERE d.project_id = @project_id AND d.id = ip.id);
