-- name: FeedLatest :many
SELECT at, downloader, items, bytes, item FROM feed
WHERE project_id = @project_id
ORDER BY at DESC
LIMIT @max;

-- name: DomainTotals :many
SELECT domain, bytes FROM domain_totals WHERE project_id = @project_id;
