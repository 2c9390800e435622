-- done_partitions_ensure moves the completions a default partition holds
-- of a day into the day's partition as it makes it. PostgreSQL refuses to
-- make a day's partition while the default one holds rows of that day
-- (a completion stamped past the days made ahead: a clock set forward, or
-- the job kept from running for a week); before, that project's partition
-- of the day could then never be made, and on Citus, where every project
-- shares done's days and their default, no project's. The rows are taken
-- out, the partition made, and the rows put back through done, in the
-- caller's transaction: they are never in neither place.
CREATE OR REPLACE FUNCTION done_partitions_ensure(project integer, first_day date, last_day date)
    RETURNS integer
    LANGUAGE plpgsql AS $$
DECLARE
    -- Plain PostgreSQL: a branch per project (done_pN, done_pN_default),
    -- partitioned by day (done_pN_YYYYMMDD). Citus: done's own days
    -- (done_YYYYMMDD, done_default).
    citus   boolean := (SELECT p.partstrat FROM pg_partitioned_table p WHERE p.partrelid = 'done'::regclass) = 'r';
    parent  text := CASE WHEN citus THEN 'done' ELSE format('done_p%s', project) END;
    part    text;
    low     timestamptz;
    high    timestamptz;
    day     date;
    stray   boolean;
    created integer := 0;
BEGIN
    -- Serialise concurrent callers: CREATE TABLE ... IF NOT EXISTS on a
    -- partition still fails when two sessions race to attach the same range.
    PERFORM pg_advisory_xact_lock(hashtext('done_partitions_ensure'));
    IF citus THEN
        IF to_regclass('done_default') IS NULL THEN
            CREATE TABLE done_default PARTITION OF done DEFAULT;
        END IF;
    ELSIF to_regclass(parent) IS NULL THEN
        EXECUTE format('CREATE TABLE %I PARTITION OF done FOR VALUES IN (%s) PARTITION BY RANGE (done_at)',
                       parent, project);
        EXECUTE format('CREATE TABLE %I PARTITION OF %I DEFAULT', parent || '_default', parent);
    END IF;
    FOR day IN SELECT d::date FROM generate_series(first_day, last_day, interval '1 day') AS d LOOP
        part := format('%s_%s', parent, to_char(day, 'YYYYMMDD'));
        CONTINUE WHEN to_regclass(part) IS NOT NULL;
        low := day::timestamp AT TIME ZONE 'UTC';
        high := (day + 1)::timestamp AT TIME ZONE 'UTC';
        EXECUTE format('SELECT EXISTS (SELECT 1 FROM %I WHERE done_at >= %L AND done_at < %L)', parent || '_default', low, high)
            INTO stray;
        IF stray THEN
            CREATE TEMPORARY TABLE done_strays (LIKE done) ON COMMIT DROP;
            EXECUTE format('WITH taken AS (DELETE FROM %I WHERE done_at >= %L AND done_at < %L RETURNING *)
                            INSERT INTO done_strays SELECT * FROM taken', parent || '_default', low, high);
        END IF;
        EXECUTE format('CREATE TABLE %I PARTITION OF %I FOR VALUES FROM (%L) TO (%L)', part, parent, low, high);
        IF stray THEN
            INSERT INTO done SELECT * FROM done_strays;
            DROP TABLE done_strays;
        END IF;
        created := created + 1;
    END LOOP;
    RETURN created;
END
$$;
