-- rate_take as in migration 4.
CREATE OR REPLACE FUNCTION rate_take(project integer, limit_key text, per_minute bigint)
    RETURNS double precision
    LANGUAGE plpgsql AS $$
DECLARE
    step   interval := make_interval(secs => 60.0 / per_minute);
    now_at timestamptz := clock_timestamp();
    due    timestamptz;
BEGIN
    PERFORM set_config('synchronous_commit', 'off', true);
    INSERT INTO rate_limits (project_id, key, tat) VALUES (project, limit_key, now_at)
    ON CONFLICT (project_id, key) DO NOTHING;
    SELECT r.tat INTO due FROM rate_limits r
    WHERE r.project_id = project AND r.key = limit_key FOR UPDATE;
    IF due > now_at THEN
        RETURN extract(epoch FROM due - now_at);
    END IF;
    UPDATE rate_limits SET tat = now_at + step
    WHERE rate_limits.project_id = project AND rate_limits.key = limit_key;
    RETURN 0;
END
$$;
