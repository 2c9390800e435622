-- name: SeenGet :one
-- The id of a name the project has seen.
SELECT id FROM seen WHERE project_id = @project_id AND hash = item_hash(@name);
