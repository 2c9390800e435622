-- The partitions of done made as in migration 38: a completion in a default
-- partition blocks its day's partition.
CREATE OR REPLACE FUNCTION done_partitions_ensure(project integer, first_day date, last_day date)
    RETURNS integer
    LANGUAGE plpgsql AS $$
DECLARE
    branch  text := format('done_p%s', project);
    day     date;
    created integer := 0;
BEGIN
    -- Serialise concurrent callers: CREATE TABLE ... IF NOT EXISTS on a
    -- partition still fails when two sessions race to attach the same range.
    PERFORM pg_advisory_xact_lock(hashtext('done_partitions_ensure'));
    IF (SELECT p.partstrat FROM pg_partitioned_table p WHERE p.partrelid = 'done'::regclass) = 'r' THEN
        IF to_regclass('done_default') IS NULL THEN
            CREATE TABLE done_default PARTITION OF done DEFAULT;
        END IF;
        FOR day IN SELECT d::date FROM generate_series(first_day, last_day, interval '1 day') AS d LOOP
            IF to_regclass(format('done_%s', to_char(day, 'YYYYMMDD'))) IS NULL THEN
                EXECUTE format('CREATE TABLE %I PARTITION OF done FOR VALUES FROM (%L) TO (%L)',
                               format('done_%s', to_char(day, 'YYYYMMDD')),
                               day::timestamp AT TIME ZONE 'UTC', (day + 1)::timestamp AT TIME ZONE 'UTC');
                created := created + 1;
            END IF;
        END LOOP;
        RETURN created;
    END IF;
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
