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
)
SELECT f.table_name::text AS table_name,
       count(DISTINCT f.id) FILTER (WHERE NOT EXISTS (SELECT 1 FROM projects p WHERE p.id = f.id))::bigint AS projects
FROM found f
GROUP BY f.table_name
ORDER BY f.table_name;

