-- A run asked for from the admin panel: whichever tracker process takes
-- the job's lock first runs it once, switched on or not, after a run in
-- progress ends. Its start clears it.
ALTER TABLE jobs ADD COLUMN run_requested_at timestamptz;

-- The projects whose step of the last run failed, and why:
-- [{"project": "aaa", "error": "…"}]. The other projects were done in
-- that run; last_error names them all in one line.
ALTER TABLE jobs ADD COLUMN last_failed jsonb NOT NULL DEFAULT '[]';
