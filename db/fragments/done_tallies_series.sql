-- What the tallies taken add to the downloaders' totals and to the time
-- series (DoneTalliesFold): per downloader, the totals, the minute and hour
-- buckets, and each downloader's hours.
per AS MATERIALIZED (
    -- The batch summed once by downloader and minute: the totals and the
    -- series sum these few rows, not every tally again.
    SELECT taken.project_id, taken.downloader, date_trunc('minute', taken.at, 'UTC') AS minute,
           sum(taken.items) AS items, sum(taken.bytes) AS bytes, min(taken.at) AS first_at, max(taken.at) AS last_at,
           (array_agg(taken.version ORDER BY taken.at DESC))[1] AS version
    FROM taken
    GROUP BY 1, 2, 3
), totals AS (
    INSERT INTO downloaders AS d (project_id, nick, items, bytes, version, first_seen, last_seen)
    SELECT per.project_id, per.downloader, sum(per.items), LEAST(sum(per.bytes), 9223372036854775807)::bigint,
           (array_agg(per.version ORDER BY per.last_at DESC))[1], min(per.first_at), max(per.last_at)
    FROM per
    GROUP BY per.project_id, per.downloader
    ORDER BY per.project_id, per.downloader
    ON CONFLICT (project_id, nick) DO UPDATE
    SET items = d.items + excluded.items,
        bytes = LEAST(d.bytes::numeric + excluded.bytes, 9223372036854775807)::bigint,
        version = CASE WHEN excluded.last_seen >= d.last_seen THEN excluded.version ELSE d.version END,
        last_seen = greatest(d.last_seen, excluded.last_seen)
), minutes AS (
    INSERT INTO series_minutes AS s (project_id, minute, items, bytes)
    SELECT per.project_id, per.minute, sum(per.items), LEAST(sum(per.bytes), 9223372036854775807)::bigint
    FROM per
    GROUP BY 1, 2
    ORDER BY 1, 2
    ON CONFLICT (project_id, minute) DO UPDATE
    SET items = s.items + excluded.items, bytes = LEAST(s.bytes::numeric + excluded.bytes, 9223372036854775807)::bigint
), hours AS (
    INSERT INTO series_hours AS s (project_id, hour, items, bytes)
    SELECT per.project_id, date_trunc('hour', per.minute, 'UTC'), sum(per.items), LEAST(sum(per.bytes), 9223372036854775807)::bigint
    FROM per
    GROUP BY 1, 2
    ORDER BY 1, 2
    ON CONFLICT (project_id, hour) DO UPDATE
    SET items = s.items + excluded.items, bytes = LEAST(s.bytes::numeric + excluded.bytes, 9223372036854775807)::bigint
), downloader_hours AS (
    INSERT INTO downloader_hours AS s (project_id, downloader, hour, items, bytes)
    SELECT per.project_id, per.downloader, date_trunc('hour', per.minute, 'UTC'), sum(per.items), LEAST(sum(per.bytes), 9223372036854775807)::bigint
    FROM per
    GROUP BY 1, 2, 3
    ORDER BY 1, 2, 3
    ON CONFLICT (project_id, downloader, hour) DO UPDATE
    SET items = s.items + excluded.items, bytes = LEAST(s.bytes::numeric + excluded.bytes, 9223372036854775807)::bigint
