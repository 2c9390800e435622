-- name: ItemParamsGet :one
-- An item's parameters ('' when it has none).
SELECT coalesce((SELECT params::text FROM item_params WHERE project_id = @project_id AND id = @id), '')::text AS params;

-- name: ItemParamsPurgeBatch :execrows
-- Deletes up to @max of a deleting project's rows (see projects.Purge).
DELETE FROM item_params WHERE ctid = ANY(ARRAY(SELECT p.ctid FROM item_params p WHERE p.project_id = @project_id LIMIT @max));
