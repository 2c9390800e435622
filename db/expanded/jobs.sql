-- name: JobEnsure :exec
-- Registers a job with its default interval; an existing row keeps the
-- settings an operator gave it.
INSERT INTO jobs (name, every) VALUES (@name, @every::interval)
ON CONFLICT (name) DO NOTHING;

-- name: JobGet :one
SELECT * FROM jobs WHERE name = @name;

-- name: JobList :many
SELECT * FROM jobs ORDER BY name;

-- name: JobStatusList :many
-- Every job, and whether a process runs it now: holds its advisory lock
-- (two int4 keys: classid and objid, objsubid 2).
SELECT j.*, EXISTS (
    SELECT 1 FROM pg_catalog.pg_locks l
    WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 2
      AND l.classid = hashtext('tracker.jobs')::oid AND l.objid = hashtext(j.name)::oid
)::boolean AS running
FROM jobs j ORDER BY j.name;

-- name: JobGetForUpdate :one
-- The job as it is before an admin's change, held until it commits.
SELECT * FROM jobs WHERE name = @name FOR UPDATE;

-- name: JobDue :one
-- Whether the job should run now: enabled and past its time, or asked for.
SELECT coalesce((enabled AND next_run_at <= now()) OR run_requested_at IS NOT NULL, false)::boolean AS due FROM jobs WHERE name = @name;

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
-- A run starts: a run asked for is under way.
UPDATE jobs SET last_started_at = now(), run_requested_at = NULL WHERE name = @name;

-- name: JobFinished :exec
-- Records how a run went and schedules the next one an interval after it
-- ended.
UPDATE jobs
SET last_finished_at = now(),
    last_outcome = @outcome,
    last_error = @error,
    last_summary = @summary,
    last_failed = @failed::jsonb,
    runs = runs + 1,
    failures = failures + CASE WHEN @outcome::text = 'error' THEN 1 ELSE 0 END,
    next_run_at = now() + every
WHERE name = @name;

-- name: JobSet :one
UPDATE jobs
SET enabled = @enabled, every = @every::interval, next_run_at = least(next_run_at, now() + @every::interval)
WHERE name = @name
RETURNING *;

-- name: JobRequestRun :one
-- Asks for a run: the next process to find the job due runs it, switched
-- on or not. A request already waiting stays as it is.
UPDATE jobs SET run_requested_at = coalesce(run_requested_at, now())
WHERE name = @name
RETURNING *;
