-- name: DownloadersTotals :one
-- Completions on record for a project, archived ones included: the sum of
-- the downloaders' totals, which archival leaves untouched.
SELECT coalesce(sum(items), 0)::bigint AS items, coalesce(sum(bytes), 0)::bigint AS bytes
FROM downloaders WHERE project_id = @project_id;
