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

-- name: ProjectsGone :many
-- The projects that are gone: the ids the projects' sequence handed out
-- that no project holds (deleted, their purge over, or a creation rolled
-- back). Rows of any other id are no deleted project's: a fault the
-- tracker's books report, and no purge removes.
SELECT g.id::integer AS id
FROM generate_series(1, coalesce(pg_sequence_last_value(pg_get_serial_sequence('projects', 'id')::regclass), 0)) AS g (id)
WHERE NOT EXISTS (SELECT 1 FROM projects p WHERE p.id = g.id)
ORDER BY g.id;

-- name: ProjectsGoneHolding :many
-- Which of the gone projects @ids (ProjectsGone) some table still holds
-- rows of, written after their purge: by a request, or a process's
-- counts, that read the project before it was deleted, or by a tracker
-- that did not skip them yet. The tables the purge empties (those without
-- a foreign key to projects, whose rows go with the project's), each
-- probed for @ids through its index leading with project_id; done by its
-- rows and, on plain PostgreSQL, by its partitions (done_pN, made whether
-- or not they hold a row).
SELECT DISTINCT f.id::integer AS id FROM (
    SELECT project_id AS id FROM archived WHERE project_id = ANY(@ids::integer[])
    UNION ALL SELECT project_id FROM backfeed_minutes WHERE project_id = ANY(@ids::integer[])
    UNION ALL SELECT project_id FROM claim_expiries WHERE project_id = ANY(@ids::integer[])
    UNION ALL SELECT project_id FROM claims WHERE project_id = ANY(@ids::integer[])
    UNION ALL SELECT project_id FROM counters WHERE project_id = ANY(@ids::integer[])
    UNION ALL SELECT project_id FROM domain_totals WHERE project_id = ANY(@ids::integer[])
    UNION ALL SELECT project_id FROM done WHERE project_id = ANY(@ids::integer[])
    UNION ALL SELECT substring(c.relname FROM '^done_p([0-9]+)$')::integer
        FROM pg_catalog.pg_inherits i JOIN pg_catalog.pg_class c ON c.oid = i.inhrelid
        WHERE i.inhparent = 'done'::regclass AND substring(c.relname FROM '^done_p([0-9]+)$')::integer = ANY(@ids::integer[])
    UNION ALL SELECT project_id FROM done_tallies WHERE project_id = ANY(@ids::integer[])
    UNION ALL SELECT project_id FROM downloader_hours WHERE project_id = ANY(@ids::integer[])
    UNION ALL SELECT project_id FROM downloaders WHERE project_id = ANY(@ids::integer[])
    UNION ALL SELECT project_id FROM feed WHERE project_id = ANY(@ids::integer[])
    UNION ALL SELECT project_id FROM item_batches WHERE project_id = ANY(@ids::integer[])
    UNION ALL SELECT project_id FROM item_params WHERE project_id = ANY(@ids::integer[])
    UNION ALL SELECT project_id FROM item_scores WHERE project_id = ANY(@ids::integer[])
    UNION ALL SELECT project_id FROM item_tags WHERE project_id = ANY(@ids::integer[])
    UNION ALL SELECT project_id FROM rate_limits WHERE project_id = ANY(@ids::integer[])
    UNION ALL SELECT project_id FROM revisits WHERE project_id = ANY(@ids::integer[])
    UNION ALL SELECT project_id FROM seen WHERE project_id = ANY(@ids::integer[])
    UNION ALL SELECT project_id FROM series_hours WHERE project_id = ANY(@ids::integer[])
    UNION ALL SELECT project_id FROM series_minutes WHERE project_id = ANY(@ids::integer[])
    UNION ALL SELECT project_id FROM sites WHERE project_id = ANY(@ids::integer[])
    UNION ALL SELECT project_id FROM todo WHERE project_id = ANY(@ids::integer[])
    UNION ALL SELECT project_id FROM uploads WHERE project_id = ANY(@ids::integer[])
    UNION ALL SELECT project_id FROM volunteer_days WHERE project_id = ANY(@ids::integer[])
    UNION ALL SELECT project_id FROM volunteer_marks WHERE project_id = ANY(@ids::integer[])
) f
-- Looked for again, as this statement sees the projects: a project whose
-- creation committed since ProjectsGone read them is no gone one.
WHERE NOT EXISTS (SELECT 1 FROM projects p WHERE p.id = f.id)
ORDER BY 1;

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

-- name: BooksOrphans :many
-- The books of the tracker: per table keyed by project, how many projects
-- that do not exist its rows belong to (a project being deleted still
-- exists until its purge ends). Each table is read as a skip scan of an
-- index leading with project_id: a probe per project holding rows, not a
-- read of its rows; the few small tables without one are read whole. The
-- volunteers' tables keep the tracker's own counts under project 0.
-- Completions are found by their partitions (done_pN, see
-- done_partitions_ensure): a row of done has a branch of its project.
-- Every table with a project_id column is named here (books.TestTablesCovered).
-- if citus
-- Citus runs no recursive skip scan over distributed tables: each table's
-- projects are read as its distinct project ids, on every worker at once;
-- done's from its rows, its partitions being days there.
WITH found (table_name, id) AS (
    SELECT DISTINCT 'archived', project_id FROM archived UNION ALL SELECT 'archived', NULL
    UNION ALL SELECT DISTINCT 'archives', project_id FROM archives UNION ALL SELECT 'archives', NULL
    UNION ALL SELECT DISTINCT 'audit_log', project_id FROM audit_log UNION ALL SELECT 'audit_log', NULL
    UNION ALL SELECT DISTINCT 'backfeed_minutes', project_id FROM backfeed_minutes UNION ALL SELECT 'backfeed_minutes', NULL
    -- Small, without an index by project (project_id NULL: every project).
    UNION ALL SELECT DISTINCT 'blocks', project_id FROM blocks
    UNION ALL SELECT DISTINCT 'claim_expiries', project_id FROM claim_expiries UNION ALL SELECT 'claim_expiries', NULL
    UNION ALL SELECT DISTINCT 'claims', project_id FROM claims UNION ALL SELECT 'claims', NULL
    UNION ALL SELECT DISTINCT 'counters', project_id FROM counters UNION ALL SELECT 'counters', NULL
    UNION ALL SELECT DISTINCT 'dictionaries', project_id FROM dictionaries UNION ALL SELECT 'dictionaries', NULL
    UNION ALL SELECT DISTINCT 'domain_totals', project_id FROM domain_totals UNION ALL SELECT 'domain_totals', NULL
    UNION ALL SELECT DISTINCT 'done', project_id FROM done
    -- Folded away every few seconds: small, and read whole.
    UNION ALL SELECT DISTINCT 'done_tallies', project_id FROM done_tallies
    UNION ALL SELECT DISTINCT 'downloader_hours', project_id FROM downloader_hours UNION ALL SELECT 'downloader_hours', NULL
    UNION ALL SELECT DISTINCT 'downloaders', project_id FROM downloaders UNION ALL SELECT 'downloaders', NULL
    UNION ALL SELECT DISTINCT 'feed', project_id FROM feed UNION ALL SELECT 'feed', NULL
    UNION ALL SELECT DISTINCT 'item_batches', project_id FROM item_batches UNION ALL SELECT 'item_batches', NULL
    UNION ALL SELECT DISTINCT 'item_params', project_id FROM item_params UNION ALL SELECT 'item_params', NULL
    UNION ALL SELECT DISTINCT 'item_scores', project_id FROM item_scores UNION ALL SELECT 'item_scores', NULL
    UNION ALL SELECT DISTINCT 'item_tags', project_id FROM item_tags UNION ALL SELECT 'item_tags', NULL
    UNION ALL SELECT DISTINCT 'project_admins', project_id FROM project_admins
    UNION ALL SELECT DISTINCT 'rate_limits', project_id FROM rate_limits UNION ALL SELECT 'rate_limits', NULL
    UNION ALL SELECT DISTINCT 'revisits', project_id FROM revisits UNION ALL SELECT 'revisits', NULL
    UNION ALL SELECT DISTINCT 'seen', project_id FROM seen UNION ALL SELECT 'seen', NULL
    UNION ALL SELECT DISTINCT 'series_hours', project_id FROM series_hours UNION ALL SELECT 'series_hours', NULL
    UNION ALL SELECT DISTINCT 'series_minutes', project_id FROM series_minutes UNION ALL SELECT 'series_minutes', NULL
    UNION ALL SELECT DISTINCT 'sites', project_id FROM sites UNION ALL SELECT 'sites', NULL
    UNION ALL SELECT DISTINCT 'todo', project_id FROM todo UNION ALL SELECT 'todo', NULL
    UNION ALL SELECT DISTINCT 'upload_targets', project_id FROM upload_targets UNION ALL SELECT 'upload_targets', NULL
    UNION ALL SELECT DISTINCT 'uploads', project_id FROM uploads UNION ALL SELECT 'uploads', NULL
    UNION ALL SELECT DISTINCT 'volunteer_days', nullif(project_id, 0) FROM volunteer_days UNION ALL SELECT 'volunteer_days', NULL
    UNION ALL SELECT DISTINCT 'volunteer_marks', nullif(project_id, 0) FROM volunteer_marks UNION ALL SELECT 'volunteer_marks', NULL
    -- A row for each table read whole, should it hold none.
    UNION ALL SELECT v.table_name, NULL FROM (VALUES ('blocks'), ('done'), ('done_tallies'), ('project_admins')) AS v (table_name)
-- else
WITH RECURSIVE
-- include: books_project_ids
found (table_name, id) AS (
    SELECT 'archived', id FROM archived_ids
    UNION ALL SELECT 'archives', id FROM archives_ids
    UNION ALL SELECT 'audit_log', id FROM audit_log_ids
    UNION ALL SELECT 'backfeed_minutes', id FROM backfeed_minutes_ids
    -- Small, without an index by project (project_id NULL: every project).
    UNION ALL SELECT DISTINCT 'blocks', project_id FROM blocks
    UNION ALL SELECT 'claim_expiries', id FROM claim_expiries_ids
    UNION ALL SELECT 'claims', id FROM claims_ids
    UNION ALL SELECT 'counters', id FROM counters_ids
    UNION ALL SELECT 'dictionaries', id FROM dictionaries_ids
    UNION ALL SELECT 'domain_totals', id FROM domain_totals_ids
    UNION ALL SELECT 'done', substring(c.relname FROM '^done_p([0-9]+)$')::integer
        FROM pg_catalog.pg_inherits i JOIN pg_catalog.pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = 'done'::regclass
    -- Folded away every few seconds: small, and read whole.
    UNION ALL SELECT DISTINCT 'done_tallies', project_id FROM done_tallies
    UNION ALL SELECT 'downloader_hours', id FROM downloader_hours_ids
    UNION ALL SELECT 'downloaders', id FROM downloaders_ids
    UNION ALL SELECT 'feed', id FROM feed_ids
    UNION ALL SELECT 'item_batches', id FROM item_batches_ids
    UNION ALL SELECT 'item_params', id FROM item_params_ids
    UNION ALL SELECT 'item_scores', id FROM item_scores_ids
    UNION ALL SELECT 'item_tags', id FROM item_tags_ids
    UNION ALL SELECT DISTINCT 'project_admins', project_id FROM project_admins
    UNION ALL SELECT 'rate_limits', id FROM rate_limits_ids
    UNION ALL SELECT 'revisits', id FROM revisits_ids
    UNION ALL SELECT 'seen', id FROM seen_ids
    UNION ALL SELECT 'series_hours', id FROM series_hours_ids
    UNION ALL SELECT 'series_minutes', id FROM series_minutes_ids
    UNION ALL SELECT 'sites', id FROM sites_ids
    UNION ALL SELECT 'todo', id FROM todo_ids
    UNION ALL SELECT 'upload_targets', id FROM upload_targets_ids
    UNION ALL SELECT 'uploads', id FROM uploads_ids
    UNION ALL SELECT 'volunteer_days', nullif(id, 0) FROM volunteer_days_ids
    UNION ALL SELECT 'volunteer_marks', nullif(id, 0) FROM volunteer_marks_ids
    -- A row for each table read whole, should it hold none.
    UNION ALL SELECT v.table_name, NULL FROM (VALUES ('blocks'), ('done'), ('done_tallies'), ('project_admins')) AS v (table_name)
-- end if
)
SELECT f.table_name::text AS table_name,
       count(DISTINCT f.id) FILTER (WHERE NOT EXISTS (SELECT 1 FROM projects p WHERE p.id = f.id))::bigint AS projects
FROM found f
GROUP BY f.table_name
ORDER BY f.table_name;

-- name: BooksProjectsLong :one
-- The books of the tracker: projects holding a text past what an admin may
-- enter (projects.Create and the configuration keys): the title, the free
-- text of the pages, the URLs, the host, the lowest script version, and
-- the entries of the list keys.
SELECT count(*) FROM projects
WHERE octet_length(title) > @max_title::int
   OR octet_length(config->>'description') > @max_text::int
   OR octet_length(config->>'marker_html') > @max_text::int
   OR octet_length(config->>'repository') > @max_url::int
   OR octet_length(config->>'logo') > @max_url::int
   OR octet_length(config->>'host') > @max_host::int
   OR octet_length(config->>'min_version') > @max_min_version::int
   OR (jsonb_typeof(config->'domains') = 'array' AND jsonb_array_length(config->'domains') > @max_listed::int)
   OR (jsonb_typeof(config->'type_limits') = 'object'
       AND (SELECT count(*) FROM jsonb_object_keys(config->'type_limits')) > @max_listed::int);
