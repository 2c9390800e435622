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

-- name: ProjectStretchesShare :exec
-- Taken, in its own statement, by a transaction that files items into a
-- project's queues, before it does: a change of the project's stretches
-- (its type limits, whether it keeps sites) waits for it, and it for the
-- change, so every item is filed under the configuration the change leaves
-- or refiled by it (see project_limited_types).
SELECT pg_advisory_xact_lock_shared(hashtext('stretches'), @project_id::integer);

-- name: ProjectStretchesLock :exec
-- Taken by a change of a project's stretches before it writes: see
-- ProjectStretchesShare.
SELECT pg_advisory_xact_lock(hashtext('stretches'), @project_id::integer);

-- name: ProjectGetByID :one
-- A project as stored, locked until the transaction ends: changes of its
-- configuration take their turns.
SELECT * FROM projects WHERE id = @id FOR UPDATE;
