ALTER TABLE jobs DROP COLUMN last_failed;
ALTER TABLE jobs DROP COLUMN run_requested_at;
