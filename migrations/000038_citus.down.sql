CREATE OR REPLACE FUNCTION done_partitions_ensure(project integer, first_day date, last_day date)
    RETURNS integer
    LANGUAGE plpgsql AS $$
DECLARE
    branch  text := format('done_p%s', project);
    day     date;
    created integer := 0;
BEGIN
    PERFORM pg_advisory_xact_lock(hashtext('done_partitions_ensure'));
    IF to_regclass(branch) IS NULL THEN
        EXECUTE format('CREATE TABLE %I PARTITION OF done FOR VALUES IN (%s) PARTITION BY RANGE (done_at)',
                       branch, project);
        EXECUTE format('CREATE TABLE %I PARTITION OF %I DEFAULT', branch || '_default', branch);
    END IF;
    FOR day IN SELECT d::date FROM generate_series(first_day, last_day, interval '1 day') AS d LOOP
        IF to_regclass(format('%s_%s', branch, to_char(day, 'YYYYMMDD'))) IS NULL THEN
            EXECUTE format('CREATE TABLE %I PARTITION OF %I FOR VALUES FROM (%L) TO (%L)',
                           format('%s_%s', branch, to_char(day, 'YYYYMMDD')), branch,
                           day::timestamp AT TIME ZONE 'UTC', (day + 1)::timestamp AT TIME ZONE 'UTC');
            created := created + 1;
        END IF;
    END LOOP;
    RETURN created;
END
$$;
