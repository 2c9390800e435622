-- name: WarriorRegister :many
-- A new warrior's row, unless @address already created @max_created rows
-- within the last hour (then no row). @address is the network the limit
-- counts by (an IPv6 client's /64 as its first address; see
-- warriors.registeredFrom), and is what registered_from keeps. Concurrent registrations from one
-- address may pass the count together, so the table can pass the limit by
-- at most the requests in flight at that moment: still bounded.
INSERT INTO warriors (id, seesaw_version, runner_type, registered_from)
SELECT @id, @seesaw_version, @runner_type, sqlc.narg('address')::inet
WHERE (SELECT count(*) FROM warriors
       WHERE registered_from = sqlc.narg('address')::inet AND first_seen_at > now() - interval '1 hour') < @max_created::bigint
RETURNING id;

-- name: WarriorUpdate :one
-- A warrior's contact, one statement: the row updated in place, or, for an
-- id not known, created within the same per-address limit as
-- WarriorRegister. Returns how many rows were written (0: over the limit).
WITH touched AS (
    UPDATE warriors SET
        nick = @nick, seesaw_version = @seesaw_version, runner_type = @runner_type,
        selected_project = @selected_project, lat = sqlc.narg('lat')::smallint, lng = sqlc.narg('lng')::smallint,
        last_seen_at = now()
    WHERE warriors.id = @id
    RETURNING warriors.id
), created AS (
    INSERT INTO warriors (id, nick, seesaw_version, runner_type, selected_project, lat, lng, registered_from)
    SELECT @id, @nick, @seesaw_version, @runner_type, @selected_project,
           sqlc.narg('lat')::smallint, sqlc.narg('lng')::smallint, sqlc.narg('address')::inet
    WHERE NOT EXISTS (SELECT 1 FROM touched)
      AND (SELECT count(*) FROM warriors
           WHERE registered_from = sqlc.narg('address')::inet AND first_seen_at > now() - interval '1 hour') < @max_created::bigint
    -- Another request created the same id meanwhile.
    ON CONFLICT (id) DO UPDATE SET
        nick = excluded.nick, seesaw_version = excluded.seesaw_version, runner_type = excluded.runner_type,
        selected_project = excluded.selected_project, lat = excluded.lat, lng = excluded.lng,
        last_seen_at = now()
    RETURNING warriors.id
)
SELECT ((SELECT count(*) FROM touched) + (SELECT count(*) FROM created))::bigint;

-- name: WarriorsOnline :many
-- The warriors seen since @since, counted by what the Warriors page and
-- the gauges group them by.
SELECT selected_project, seesaw_version, lat, lng, count(*)::bigint AS warriors
FROM warriors
WHERE last_seen_at > @since
GROUP BY selected_project, seesaw_version, lat, lng;

-- name: WarriorsPrune :execrows
DELETE FROM warriors WHERE last_seen_at < @before;
