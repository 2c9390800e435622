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

-- name: DownloaderHoursOf :one
-- One downloader's folded completions since @day and since @week (bytes
-- saturated at the largest bigint): the rows of their key, a week's hours
-- at most.
SELECT coalesce(sum(items) FILTER (WHERE hour >= @day), 0)::bigint AS day_items,
       LEAST(coalesce(sum(bytes) FILTER (WHERE hour >= @day), 0), 9223372036854775807)::bigint AS day_bytes,
       coalesce(sum(items), 0)::bigint AS week_items,
       LEAST(coalesce(sum(bytes), 0), 9223372036854775807)::bigint AS week_bytes
FROM downloader_hours
WHERE project_id = @project_id AND downloader = @downloader AND hour >= @week;

-- name: SeriesMinutesPurgeBatch :execrows
-- Deletes up to @max of a deleting project's rows (see stats.Store.Purge).
DELETE FROM series_minutes WHERE series_minutes.project_id = @project_id AND ctid = ANY(ARRAY(SELECT p.ctid FROM series_minutes p WHERE p.project_id = @project_id LIMIT @max));

-- name: SeriesHoursPurgeBatch :execrows
-- Deletes up to @max of a deleting project's rows (see stats.Store.Purge).
DELETE FROM series_hours WHERE series_hours.project_id = @project_id AND ctid = ANY(ARRAY(SELECT p.ctid FROM series_hours p WHERE p.project_id = @project_id LIMIT @max));

-- name: DownloaderHoursPurgeBatch :execrows
-- Deletes up to @max of a deleting project's rows (see stats.Store.Purge).
DELETE FROM downloader_hours WHERE downloader_hours.project_id = @project_id AND ctid = ANY(ARRAY(SELECT p.ctid FROM downloader_hours p WHERE p.project_id = @project_id LIMIT @max));

-- name: TransactionNow :one
-- The transaction's start time: the time of everything a snapshot reads.
SELECT now()::timestamptz AS now;

-- name: BooksSeries :one
-- The books: the statistics the rollup folds from the tallies, against
-- the downloaders' totals folded from the same tallies in the same
-- statement (and kept for good, as the hours are). Returns the
-- downloaders whose hours do not add up to their totals, the hourly
-- series' items and bytes, the downloaders' totals, and the hours whose
-- minutes (kept two days) hold more than the hour. Each table is read
-- once (a CTE named twice is read once).
WITH d AS (
    SELECT x.nick, x.items, x.bytes FROM downloaders x WHERE x.project_id = @project_id
), h AS (
    SELECT x.hour, x.items, x.bytes FROM series_hours x WHERE x.project_id = @project_id
), dh AS (
    SELECT x.downloader, sum(x.items) AS items, LEAST(sum(x.bytes), 9223372036854775807) AS bytes
    FROM downloader_hours x WHERE x.project_id = @project_id GROUP BY x.downloader
), m AS (
    SELECT date_trunc('hour', x.minute, 'UTC') AS hour, sum(x.items) AS items, sum(x.bytes) AS bytes
    FROM series_minutes x WHERE x.project_id = @project_id GROUP BY 1
)
SELECT
    (SELECT count(*) FROM d FULL JOIN dh ON dh.downloader = d.nick
     WHERE d.nick IS NULL OR dh.downloader IS NULL OR d.items <> dh.items OR d.bytes <> dh.bytes)::bigint AS downloaders_off,
    (SELECT coalesce(sum(h.items), 0) FROM h)::bigint AS hours_items,
    (SELECT LEAST(coalesce(sum(h.bytes), 0), 9223372036854775807) FROM h)::bigint AS hours_bytes,
    (SELECT coalesce(sum(d.items), 0) FROM d)::bigint AS downloaders_items,
    (SELECT LEAST(coalesce(sum(d.bytes), 0), 9223372036854775807) FROM d)::bigint AS downloaders_bytes,
    (SELECT count(*) FROM m LEFT JOIN h ON h.hour = m.hour
     WHERE h.hour IS NULL OR m.items > h.items OR m.bytes > h.bytes)::bigint AS minutes_off;

-- name: SeriesHoursFirst :one
-- The project's first hour with a completion folded: where a chart that
-- fits its data starts.
SELECT hour FROM series_hours WHERE project_id = @project_id ORDER BY hour LIMIT 1;

-- name: SeriesMinutesFirst :one
-- The project's first minute with a completion folded since @since (the
-- minutes are kept two days).
SELECT minute FROM series_minutes WHERE project_id = @project_id AND minute >= @since ORDER BY minute LIMIT 1;

-- name: DownloaderHoursBinned :many
-- The named downloaders' completions since @since, summed in bins of
-- @width seconds from @since (bin 0 first): the chart's lines of the top
-- downloaders. The rows are at most one per downloader per bin.
SELECT downloader, (extract(epoch FROM hour - @since::timestamptz)::bigint / @width::bigint)::integer AS bin,
       sum(items)::bigint AS items, LEAST(sum(bytes), 9223372036854775807)::bigint AS bytes
FROM downloader_hours
WHERE project_id = @project_id AND downloader = ANY(@nicks::text[]) AND hour >= @since::timestamptz
GROUP BY 1, 2
ORDER BY 1, 2;
