-- name: JobEnsure :exec
-- Registers a job with its default interval; an existing row keeps the
-- settings an operator gave it.
INSERT INTO jobs (name, every) VALUES (@name, @every::interval)
ON CONFLICT (name) DO NOTHING;

-- name: JobGet :one
SELECT * FROM jobs WHERE name = @name;

-- name: JobList :many
SELECT * FROM jobs ORDER BY name;

-- name: JobDue :one
-- Whether the job should run now: enabled and past its time.
SELECT coalesce(enabled AND next_run_at <= now(), false)::boolean AS due FROM jobs WHERE name = @name;

-- name: JobTryLock :one
-- The advisory lock that makes one process at a time run the job, held by
-- the session for the length of the run (a killed process's lock goes with
-- its connection).
SELECT pg_try_advisory_lock(hashtext('tracker.jobs'), hashtext(@name::text));

-- name: JobLock :exec
SELECT pg_advisory_lock(hashtext('tracker.jobs'), hashtext(@name::text));

-- name: JobUnlock :exec
SELECT pg_advisory_unlock(hashtext('tracker.jobs'), hashtext(@name::text));

-- name: JobStarted :exec
UPDATE jobs SET last_started_at = now() WHERE name = @name;

-- name: JobFinished :exec
-- Records how a run went and schedules the next one an interval after it
-- ended.
UPDATE jobs
SET last_finished_at = now(),
    last_outcome = @outcome,
    last_error = @error,
    last_summary = @summary,
    runs = runs + 1,
    failures = failures + CASE WHEN @outcome::text = 'error' THEN 1 ELSE 0 END,
    next_run_at = now() + every
WHERE name = @name;

-- name: JobSet :one
UPDATE jobs
SET enabled = @enabled, every = @every::interval, next_run_at = least(next_run_at, now() + @every::interval)
WHERE name = @name
RETURNING *;
