-- name: SeriesMinutesPrune :execrows
-- Minute buckets older than @keep are dropped: the hour buckets, kept
-- alongside from the same tallies, cover them.
DELETE FROM series_minutes WHERE minute < now() - @keep::interval;

-- name: SeriesMinutesSince :many
SELECT minute AS at, items, bytes FROM series_minutes
WHERE project_id = @project_id AND minute >= @since
ORDER BY minute;

-- name: SeriesHoursSince :many
SELECT hour AS at, items, bytes FROM series_hours
WHERE project_id = @project_id AND hour >= @since
ORDER BY hour;

-- name: DownloaderHoursSince :many
SELECT hour AS at, items, bytes FROM downloader_hours
WHERE project_id = @project_id AND downloader = @downloader AND hour >= @since
ORDER BY hour;

-- name: DownloaderHoursTotals :many
-- Each downloader's completions since @since: the 24-hour and 7-day boards
-- (bytes saturated at the largest bigint).
SELECT downloader, sum(items)::bigint AS items, LEAST(sum(bytes), 9223372036854775807)::bigint AS bytes
FROM downloader_hours
WHERE project_id = @project_id AND hour >= @since
GROUP BY downloader;

-- name: SeriesMinutesPurgeBatch :execrows
-- Deletes up to @max of a deleting project's rows (see projects.Purge).
DELETE FROM series_minutes WHERE ctid = ANY(ARRAY(SELECT p.ctid FROM series_minutes p WHERE p.project_id = @project_id LIMIT @max));

-- name: SeriesHoursPurgeBatch :execrows
-- Deletes up to @max of a deleting project's rows (see projects.Purge).
DELETE FROM series_hours WHERE ctid = ANY(ARRAY(SELECT p.ctid FROM series_hours p WHERE p.project_id = @project_id LIMIT @max));

-- name: DownloaderHoursPurgeBatch :execrows
-- Deletes up to @max of a deleting project's rows (see projects.Purge).
DELETE FROM downloader_hours WHERE ctid = ANY(ARRAY(SELECT p.ctid FROM downloader_hours p WHERE p.project_id = @project_id LIMIT @max));

-- name: TransactionNow :one
-- The transaction's start time: the time of everything a snapshot reads.
SELECT now()::timestamptz AS now;
