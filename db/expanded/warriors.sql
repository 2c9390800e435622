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

-- name: BooksWarriorsMalformed :one
-- The books of the tracker: warrior records not of the form the warriors
-- package writes (see warriors.Update): an id of 1 to 64 characters
-- without control characters, never the shared anonymous one; a location
-- with both coordinates or neither; a seesaw version, runner type and
-- selected project each empty or of its form; last seen no earlier than
-- first seen.
SELECT count(*) FROM warriors
WHERE id = '' OR length(id) > 64 OR id ~ '[[:cntrl:]]' OR id = 'anonymous'
   OR (lat IS NULL) <> (lng IS NULL)
   OR NOT (seesaw_version = '' OR seesaw_version ~ '^[0-9]{1,6}(\.[0-9]{1,6}){0,3}([ab][0-9]{1,4})?$')
   OR NOT (runner_type = '' OR runner_type ~ '^[A-Za-z0-9_-]{1,32}$')
   OR NOT (selected_project IN ('', 'auto') OR selected_project ~ '^[a-z0-9][a-z0-9_-]{0,63}$')
   OR nick ~ '[[:cntrl:]]'
   OR last_seen_at < first_seen_at;
