-- name: VolunteerSecrets :many
-- The secrets in use, newest first: the current one and the one before.
SELECT created_at, secret FROM volunteer_secrets ORDER BY created_at DESC LIMIT 2;

-- name: VolunteerSecretAdd :exec
-- A new secret, unless another process made one since @since.
INSERT INTO volunteer_secrets (created_at, secret)
SELECT @created_at::timestamptz, @secret::bytea
WHERE NOT EXISTS (SELECT 1 FROM volunteer_secrets s WHERE s.created_at > @since::timestamptz);

-- name: VolunteerSecretsPrune :execrows
-- Forgets the secrets no live mark can have been made with.
DELETE FROM volunteer_secrets
WHERE created_at < (SELECT created_at FROM volunteer_secrets ORDER BY created_at DESC OFFSET 1 LIMIT 1);

-- name: VolunteerMark :many
-- Marks an address (its marks under the secrets in use: @marks, the current
-- one's first) for each of @project_ids, where it has no live mark, until
-- @expires_at; counts each new mark as a volunteer of @day. Returns the
-- projects it was new to. A project being deleted or gone (a request that
-- read it before) is not counted: its rows would outlive its purge. The
-- tracker's own counts are project 0's.
WITH wanted AS (
    SELECT p.project_id FROM unnest(@project_ids::integer[]) AS p (project_id)
    WHERE NOT EXISTS (SELECT 1 FROM volunteer_marks m
                      WHERE m.project_id = p.project_id AND m.mark = ANY(@marks::bytea[]) AND m.expires_at > @now)
      AND (p.project_id = 0 OR EXISTS (SELECT 1 FROM projects x
                                       WHERE x.id = p.project_id AND x.config -> 'deleting' IS DISTINCT FROM 'true'))
), marked AS (
    INSERT INTO volunteer_marks AS m (project_id, mark, expires_at)
    SELECT wanted.project_id, (@marks::bytea[])[1], @expires_at FROM wanted
    ORDER BY wanted.project_id
    ON CONFLICT (project_id, mark) DO UPDATE SET expires_at = excluded.expires_at WHERE m.expires_at <= @now
    RETURNING m.project_id
), counted AS (
    INSERT INTO volunteer_days AS d (project_id, day, volunteers)
    SELECT marked.project_id, @day, 1 FROM marked
    ORDER BY marked.project_id
    ON CONFLICT (project_id, day) DO UPDATE SET volunteers = d.volunteers + 1
)
SELECT marked.project_id FROM marked;

-- name: VolunteerCounts :one
-- A project's (0: the tracker's) new volunteers since @month_start and
-- since @window_start (each at most 30 days back).
SELECT coalesce(sum(volunteers) FILTER (WHERE day >= @month_start), 0)::bigint AS month,
       coalesce(sum(volunteers) FILTER (WHERE day >= @window_start), 0)::bigint AS last_30d
FROM volunteer_days
WHERE project_id = @project_id AND day >= least(@month_start::date, @window_start::date);

-- name: VolunteerMarksPrune :execrows
-- Forgets up to @max marks that expired.
DELETE FROM volunteer_marks WHERE ctid = ANY(ARRAY(
    SELECT m.ctid FROM volunteer_marks m WHERE m.expires_at <= @now LIMIT @max));

-- name: VolunteerDaysPrune :execrows
-- Forgets the days before @before.
DELETE FROM volunteer_days WHERE day < @before;

-- name: VolunteersPurgeBatch :execrows
-- Deletes up to @max of a deleting project's marks (see volunteers.Counter.Purge).
DELETE FROM volunteer_marks WHERE volunteer_marks.project_id = @project_id AND ctid = ANY(ARRAY(SELECT p.ctid FROM volunteer_marks p WHERE p.project_id = @project_id LIMIT @max));

-- name: VolunteerDaysPurgeBatch :execrows
-- Deletes up to @max of a deleting project's days (see volunteers.Counter.Purge).
DELETE FROM volunteer_days WHERE volunteer_days.project_id = @project_id AND ctid = ANY(ARRAY(SELECT p.ctid FROM volunteer_days p WHERE p.project_id = @project_id LIMIT @max));

-- name: BooksVolunteersOff :one
-- The books: a project's days that count no volunteer (a day's row is
-- made by its first), and marks that are not 16 bytes.
SELECT ((SELECT count(*) FROM volunteer_days d WHERE d.project_id = @project_id AND d.volunteers < 1)
      + (SELECT count(*) FROM volunteer_marks m WHERE m.project_id = @project_id AND octet_length(m.mark) <> 16))::bigint AS off;
