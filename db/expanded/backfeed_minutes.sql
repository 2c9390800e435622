-- name: BackfeedMinutesAdd :exec
-- Adds one post's new items to its shard's current minute.
INSERT INTO backfeed_minutes AS b (project_id, shard, minute, items)
VALUES (@project_id, @shard, date_trunc('minute', now()), @items)
ON CONFLICT (project_id, minute, shard) DO UPDATE SET items = b.items + excluded.items;

-- name: BackfeedMinutesByShardSince :many
-- New items per shard in the minutes from @since on, largest first.
SELECT shard, sum(items)::bigint AS items FROM backfeed_minutes
WHERE project_id = @project_id AND minute >= @since
GROUP BY shard
ORDER BY items DESC, shard;

-- name: BackfeedMinutesPrune :execrows
-- Minutes older than @keep are dropped: the board reads only the last hour.
DELETE FROM backfeed_minutes WHERE minute < now() - @keep::interval;

-- name: BackfeedMinutesPurgeBatch :execrows
-- Deletes up to @max of a deleting project's rows (see stats.Store.Purge).
DELETE FROM backfeed_minutes WHERE backfeed_minutes.project_id = @project_id AND ctid = ANY(ARRAY(SELECT p.ctid FROM backfeed_minutes p WHERE p.project_id = @project_id LIMIT @max));

-- name: BooksBackfeedMinutesOff :one
-- The books: backfeed minutes that count no new item (a post adds its
-- minute only when it queued some) or that are no whole minute.
SELECT count(*) FROM backfeed_minutes
WHERE project_id = @project_id AND (items < 1 OR minute <> date_trunc('minute', minute));
