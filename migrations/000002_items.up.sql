-- The item engine. An item's state is the table its row is in: todo, then
-- claims, then done. Rows move between narrow tables instead of flipping a
-- status column, because a status change is never a HOT update and would
-- write new entries into every index of one wide table on every claim and
-- completion.
--
-- The hot tables carry no foreign keys: a foreign key to projects would take
-- a KEY SHARE lock on the project's row for every inserted item, and with
-- many concurrent claims that single row becomes a MultiXact hot spot.
-- Deleting a project cleans these tables explicitly.

-- item_hash is the identity of an item inside a project: the first 16 bytes
-- of the SHA-256 of its key. The key is the name up to the first unit
-- separator (0x1F): backfeed may attach context after it ("name\x1Fcontext"),
-- and the context does not make another item.
CREATE FUNCTION item_hash(name text) RETURNS bytea
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    RETURN substring(sha256(convert_to(split_part(name, E'\x1F', 1), 'UTF8')) FROM 1 FOR 16);

-- item_type is the "type" of a "type:value" name ('' when it has none): what
-- per-type rate limits key on.
CREATE FUNCTION item_type(name text) RETURNS text
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    RETURN CASE WHEN strpos(name, ':') > 1 THEN split_part(name, ':', 1) ELSE '' END;

-- Item ids give the import order within a queue and stay with an item for
-- its whole life, through every queue, claim and completion. Each batch of
-- names queued takes a block of 2^20 ids from this sequence (id = block <<
-- 20 | position in the batch): blocks are drawn in input order, so batches
-- can then be written concurrently and still queue in input order.
CREATE SEQUENCE item_id_blocks AS bigint;

-- Every name ever accepted into a project, whatever its state now (queued,
-- claimed, done, archived or discarded): exact deduplication for imports and
-- backfeed, about 43 bytes of index per name.
CREATE TABLE seen (
    project_id integer NOT NULL,
    hash       bytea   NOT NULL,
    id         bigint  NOT NULL,
    PRIMARY KEY (project_id, hash)
);

-- Items waiting to be handed out. Keyed (project_id, queue, type, id) and
-- nothing else: a claim walks this one index from the queue's head.
-- queue is 'todo', 'backfeed', 'secondary', 'redo' or 'downloader:NICK'.
CREATE TABLE todo (
    project_id  integer NOT NULL,
    queue       text    NOT NULL,
    -- The item's type when the project rate-limits that type, else ''. Each
    -- limited type is its own stretch of the index, so a type out of tokens
    -- is skipped without reading its items.
    type        text    NOT NULL DEFAULT '',
    id          bigint  NOT NULL,
    name        text    NOT NULL,
    -- How many times the item was handed out before it came back here;
    -- the reclaim TTL grows with it.
    claim_count integer NOT NULL DEFAULT 0,
    PRIMARY KEY (project_id, queue, type, id)
) WITH (
    -- Claims delete from the head of the index all day long: vacuum by row
    -- count, not by table fraction, and without throttling, so dead entries
    -- never pile up in front of the first claimable row.
    autovacuum_vacuum_scale_factor = 0,
    autovacuum_vacuum_threshold = 10000,
    autovacuum_vacuum_cost_delay = 0,
    autovacuum_vacuum_insert_scale_factor = 0,
    autovacuum_vacuum_insert_threshold = 100000,
    autovacuum_analyze_scale_factor = 0,
    autovacuum_analyze_threshold = 100000
);

-- Items handed out and not yet reported done. Keyed by the name's hash
-- because the name is what a done request carries.
CREATE TABLE claims (
    project_id  integer     NOT NULL,
    hash        bytea       NOT NULL,
    id          bigint      NOT NULL,
    name        text        NOT NULL,
    -- The queue the item was taken from: a release puts it back there.
    queue       text        NOT NULL,
    downloader  text        NOT NULL,
    ip          inet,
    version     text        NOT NULL DEFAULT '',
    claimed_at  timestamptz NOT NULL DEFAULT now(),
    -- Times this item has been handed out, this claim included.
    claim_count integer     NOT NULL DEFAULT 1 CHECK (claim_count > 0),
    -- The hash leads: a completion names up to hundreds of items, found with
    -- "hash = ANY(...)", and with the hash first no plan can find them by
    -- reading the project's stretch of the key instead, however wrong the
    -- statistics (a plan that never uses the hash would read the whole
    -- index, which the planner prices right).
    PRIMARY KEY (hash, project_id)
) WITH (
    autovacuum_vacuum_scale_factor = 0,
    autovacuum_vacuum_threshold = 10000,
    autovacuum_vacuum_cost_delay = 0,
    autovacuum_analyze_scale_factor = 0,
    autovacuum_analyze_threshold = 1000
);

-- Expiry: the oldest claims of a project first; and a downloader's claims,
-- for per-downloader limits and the admin's claim lists.
--
-- Both are partial on a condition every claim meets, and only the queries
-- meant for them repeat it: so the planner can never take them for a lookup
-- by name. When ANALYZE last saw claims empty, every index of the table
-- looks equally good, and a completion planned on one of these would scan a
-- project's claims instead of finding its own (a trap docs/DESIGN.md describes under "Planner traps").
CREATE INDEX claims_claimed_at ON claims (project_id, claimed_at) WHERE claim_count > 0;
CREATE INDEX claims_downloader ON claims (project_id, downloader, claimed_at) WHERE claim_count > 0;

-- Completions, append-only. Partitioned by project, then by day of done_at,
-- so archival detaches whole partitions instead of deleting rows and a
-- deleted project drops its partitions at once.
CREATE TABLE done (
    project_id  integer     NOT NULL,
    id          bigint      NOT NULL,
    name        text        NOT NULL,
    downloader  text        NOT NULL,
    version     text        NOT NULL DEFAULT '',
    -- This item's share of the bytes its done request reported (a multi-item
    -- request reports one total for the batch): the shares of a batch add up
    -- to its total, so sums over done equal the downloaders' totals.
    bytes       bigint      NOT NULL,
    -- Bytes per domain exactly as the done request reported them.
    domains     jsonb       NOT NULL DEFAULT '{}',
    -- The client's "id" value, verbatim (json, not jsonb: kept as sent).
    client_id   json,
    claimed_at  timestamptz NOT NULL,
    done_at     timestamptz NOT NULL DEFAULT now(),
    claim_count integer     NOT NULL,
    -- The address the done request came from.
    ip          inet
) PARTITION BY LIST (project_id);

CREATE INDEX done_project_id_id ON done (project_id, id);

-- done_partitions_ensure creates a project's branch of done (on first use)
-- and one partition per UTC day from first_day to last_day. The branch gets a
-- default partition too, so a completion is never refused for want of a
-- partition; housekeeping keeps the days ahead created so it stays empty.
-- Returns how many day partitions it created.
CREATE FUNCTION done_partitions_ensure(project integer, first_day date, last_day date)
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

-- Counters of a project: 'claims', 'done', 'bytes', 'reclaims',
-- 'queue:NAME' for each queue's size, 'archived' and 'discarded' (completions
-- moved out of done by archival), and 'requeued' (items put back behind a
-- queue's head: releases, reclaims; processes seeing it grow look for items
-- from the start of their queues again). Every statement that moves items
-- updates them in the same transaction, so they always equal the rows they
-- count. Each transaction writes one of 1024 shards, its own for its whole
-- life, so concurrent transactions seldom wait on each other and never
-- cross (no deadlock); and each row is updated rarely, so the dead versions
-- a long-running transaction elsewhere keeps alive pile up slowly. Readers
-- add the shards.
CREATE TABLE counters (
    project_id integer  NOT NULL,
    name       text     NOT NULL,
    shard      smallint NOT NULL,
    value      bigint   NOT NULL,
    PRIMARY KEY (project_id, name, shard)
);

-- counter_shard is the shard the current transaction writes.
CREATE FUNCTION counter_shard() RETURNS smallint
    LANGUAGE sql VOLATILE PARALLEL UNSAFE
    RETURN (txid_current() % 1024)::smallint;

-- Per-downloader totals of a project, folded in from done_tallies by the
-- rollup job (the completions append tallies instead of updating these rows).
CREATE TABLE downloaders (
    project_id integer     NOT NULL,
    nick       text        NOT NULL,
    items      bigint      NOT NULL DEFAULT 0,
    bytes      bigint      NOT NULL DEFAULT 0,
    -- The script version of the downloader's latest done.
    version    text        NOT NULL DEFAULT '',
    first_seen timestamptz NOT NULL DEFAULT now(),
    last_seen  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (project_id, nick)
);
