-- name: ProjectInsert :one
INSERT INTO projects (slug, title, config)
VALUES (@slug, @title, @config)
RETURNING *;

-- name: ProjectGetBySlug :one
SELECT * FROM projects WHERE slug = @slug;

-- name: ProjectList :many
SELECT * FROM projects ORDER BY slug;

-- name: ProjectDonePartitionsEnsure :one
-- Creates the project's done partitions for the given UTC days (see the
-- done_partitions_ensure function in the migrations).
SELECT done_partitions_ensure(@project_id, @first_day::date, @last_day::date)::integer AS created;

-- name: ProjectUpdateConfig :one
UPDATE projects SET title = @title, config = @config, updated_at = now()
WHERE id = @id
RETURNING *;

-- name: ProjectDeleteByID :exec
-- The last step of a purge: the project's other rows are gone already.
DELETE FROM projects WHERE id = @id;
