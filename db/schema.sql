-- The tracker's schema as the migrations leave it (PostgreSQL 15), made by
-- cmd/schemadump (make generate). Read it; change the schema with a migration.
--
-- PostgreSQL database dump
--

--
-- Name: done_request; Type: TYPE; Schema: public; Owner: -
--

CREATE TYPE public.done_request AS (
	downloader text,
	version text,
	bytes bigint,
	domains jsonb,
	client_id json,
	ip inet,
	user_agent text,
	names text[],
	results jsonb,
	factors jsonb
);

--
-- Name: site_take; Type: TYPE; Schema: public; Owner: -
--

CREATE TYPE public.site_take AS (
	site integer,
	items integer,
	slot integer,
	downloader text,
	version text,
	ip inet,
	carried bigint
);

--
-- Name: answer_bytes(text, bigint); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.answer_bytes(name text, params_bytes bigint) RETURNS bigint
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    RETURN (((CASE WHEN (name ~ '[\x01-\x1f"\\<>&\u2028\u2029]'::text) THEN ((((octet_length(name) + 2) + regexp_count(name, '["\\]'::text)) + (5 * regexp_count(name, '[<>&\x01-\x1f]'::text))) + (3 * regexp_count(name, '[\u2028\u2029]'::text))) ELSE (octet_length(name) + 2) END * CASE WHEN (params_bytes > 0) THEN 2 ELSE 1 END) + 6) + CASE WHEN (params_bytes > 0) THEN (params_bytes + 2) ELSE (0)::bigint END);

--
-- Name: counter_shard(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.counter_shard() RETURNS smallint
    LANGUAGE sql
    RETURN ((txid_current() % (1024)::bigint))::smallint;

--
-- Name: done_partitions_ensure(integer, date, date); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.done_partitions_ensure(project integer, first_day date, last_day date) RETURNS integer
    LANGUAGE plpgsql
    AS $$
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

--
-- Name: item_hash(text); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.item_hash(name text) RETURNS bytea
    LANGUAGE sql STABLE STRICT PARALLEL SAFE
    RETURN SUBSTRING(sha256(convert_to(split_part(name, ''::text, 1), 'UTF8'::name)) FROM 1 FOR 16);

--
-- Name: item_key_hash(text, text); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.item_key_hash(shard text, key text) RETURNS bytea
    LANGUAGE sql STABLE PARALLEL SAFE
    RETURN CASE WHEN (shard = ''::text) THEN public.item_hash(key) ELSE SUBSTRING(sha256(((convert_to(shard, 'UTF8'::name) || '\x00'::bytea) || convert_to(split_part(key, ''::text, 1), 'UTF8'::name))) FROM 1 FOR 16) END;

--
-- Name: item_type(text); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.item_type(name text) RETURNS text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    RETURN CASE WHEN (strpos(name, ':'::text) > 1) THEN split_part(name, ':'::text, 1) ELSE ''::text END;

--
-- Name: projects; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.projects (
    id integer NOT NULL,
    slug text NOT NULL,
    title text DEFAULT ''::text NOT NULL,
    config jsonb DEFAULT '{}'::jsonb NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT projects_slug_check CHECK ((slug ~ '^[a-z0-9][a-z0-9_-]{0,63}$'::text))
);

--
-- Name: project_limited_types(integer); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.project_limited_types(project integer) RETURNS text[]
    LANGUAGE sql STABLE PARALLEL SAFE
    RETURN (SELECT COALESCE(array_agg(k.key ORDER BY k.key), '{}'::text[]) AS "coalesce" FROM public.projects p, LATERAL jsonb_object_keys(CASE WHEN (jsonb_typeof((p.config -> 'type_limits'::text)) = 'object'::text) THEN (p.config -> 'type_limits'::text) ELSE '{}'::jsonb END) k(key) WHERE (p.id = project_limited_types.project));

--
-- Name: project_site(integer, integer); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.project_site(project integer, site integer) RETURNS integer
    LANGUAGE sql STABLE PARALLEL SAFE
    RETURN CASE WHEN (site = 0) THEN 0 WHEN (SELECT (COALESCE((p.config ->> 'site_key'::text), 'off'::text) <> ALL (ARRAY[''::text, 'off'::text])) FROM public.projects p WHERE (p.id = project_site.project)) THEN site ELSE 0 END;

--
-- Name: queue_type(text, text, text[], integer); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.queue_type(queue text, name text, limited_types text[], site integer) RETURNS text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    RETURN CASE WHEN (queue = ANY (ARRAY['error'::text, 'retired'::text])) THEN ''::text WHEN (site <> 0) THEN ':site'::text WHEN (public.item_type(name) = ANY (limited_types)) THEN public.item_type(name) ELSE ''::text END;

--
-- Name: rate_refund(integer, text, bigint); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.rate_refund(project integer, limit_key text, per_minute bigint) RETURNS void
    LANGUAGE sql
    AS $$
    SELECT set_config('synchronous_commit', 'off', true);
    UPDATE rate_limits SET tat = tat - make_interval(secs => 60.0 / per_minute)
    WHERE project_id = project AND key = limit_key;
$$;

--
-- Name: rate_take(integer, text, bigint); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.rate_take(project integer, limit_key text, per_minute bigint) RETURNS double precision
    LANGUAGE plpgsql
    AS $$
DECLARE
    step   interval := make_interval(secs => 60.0 / per_minute);
    now_at timestamptz := clock_timestamp();
    due    timestamptz;
BEGIN
    PERFORM set_config('synchronous_commit', 'off', true);
    INSERT INTO rate_limits (project_id, key, tat)
    SELECT project, limit_key, now_at
    WHERE EXISTS (SELECT 1 FROM projects p WHERE p.id = project AND p.config -> 'deleting' IS DISTINCT FROM 'true')
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

--
-- Name: revisit_queue(double precision); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.revisit_queue(score double precision) RETURNS text
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    RETURN ('revisit:'::text || lpad(((LEAST((99)::double precision, GREATEST((0)::double precision, ((20)::double precision - floor((ln(GREATEST(score, (0.000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000001)::double precision)) / (ln(1.2))::double precision))))))::integer)::text, 2, '0'::text));

--
-- Name: same_network(inet, inet); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.same_network(a inet, b inet) RETURNS boolean
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    RETURN ((a IS NULL) OR (b IS NULL) OR (a <<= set_masklen(b, CASE WHEN (family(b) = 4) THEN 24 ELSE 48 END)));

--
-- Name: sent_bytes(text); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.sent_bytes(doc text) RETURNS bigint
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    RETURN ((octet_length(doc) + (5 * (octet_length(doc) - octet_length(translate(doc, '<>&'::text, ''::text))))) + (octet_length(doc) - octet_length(translate(doc, '  '::text, ''::text))));

--
-- Name: todo_stretches(integer); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.todo_stretches(project integer) RETURNS TABLE(queue text, type text)
    LANGUAGE plpgsql STABLE ROWS 10 PARALLEL SAFE
    AS $$
#variable_conflict use_column
BEGIN
    RETURN QUERY
    WITH RECURSIVE found (queue, type) AS (
        (SELECT t.queue, t.type FROM todo t
         WHERE t.project_id = project
         ORDER BY t.queue DESC, t.type DESC
         LIMIT 1)
        UNION ALL
        SELECT b.queue, b.type FROM found f, LATERAL (
            SELECT t.queue, t.type FROM todo t
            WHERE t.project_id = project AND (t.queue, t.type) < (f.queue, f.type)
            ORDER BY t.queue DESC, t.type DESC
            LIMIT 1) b
    )
    SELECT found.queue, found.type FROM found;
END
$$;

--
-- Name: api_tokens; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.api_tokens (
    id integer NOT NULL,
    user_id integer NOT NULL,
    name text NOT NULL,
    secret_hash bytea NOT NULL,
    scope text NOT NULL,
    project_ids integer[],
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    last_used_at timestamp with time zone,
    revoked_at timestamp with time zone
);

--
-- Name: api_tokens_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.api_tokens ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.api_tokens_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

--
-- Name: archived; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.archived (
    project_id integer NOT NULL,
    hash bytea NOT NULL,
    archive_id integer NOT NULL
);

--
-- Name: archives; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.archives (
    id integer NOT NULL,
    project_id integer NOT NULL,
    day date NOT NULL,
    mode text NOT NULL,
    path text DEFAULT ''::text NOT NULL,
    items bigint NOT NULL,
    bytes bigint NOT NULL,
    first_done_at timestamp with time zone,
    last_done_at timestamp with time zone,
    sha256 bytea,
    file_size bigint DEFAULT 0 NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT archives_mode_check CHECK ((mode = ANY (ARRAY['files'::text, 'discard'::text])))
);

--
-- Name: archives_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.archives ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.archives_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

--
-- Name: audit_log; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.audit_log (
    id bigint NOT NULL,
    at timestamp with time zone DEFAULT now() NOT NULL,
    user_id integer,
    username text DEFAULT ''::text NOT NULL,
    ip inet,
    action text NOT NULL,
    project_id integer,
    detail jsonb DEFAULT '{}'::jsonb NOT NULL
);

--
-- Name: audit_log_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.audit_log ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.audit_log_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

--
-- Name: auto_choice; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.auto_choice (
    one boolean DEFAULT true NOT NULL,
    list text NOT NULL,
    slug text NOT NULL,
    reason text NOT NULL,
    decided_at timestamp with time zone NOT NULL,
    CONSTRAINT auto_choice_one_check CHECK (one)
);

--
-- Name: backfeed_minutes; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.backfeed_minutes (
    project_id integer NOT NULL,
    shard text NOT NULL,
    minute timestamp with time zone NOT NULL,
    items bigint NOT NULL
);

--
-- Name: blocks; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.blocks (
    id integer NOT NULL,
    project_id integer,
    kind text NOT NULL,
    value text NOT NULL,
    reason text DEFAULT ''::text NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    created_by text DEFAULT ''::text NOT NULL,
    CONSTRAINT blocks_kind_check CHECK ((kind = ANY (ARRAY['nick'::text, 'ip'::text])))
);

--
-- Name: blocks_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.blocks ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.blocks_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

--
-- Name: claim_expiries; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.claim_expiries (
    project_id integer NOT NULL,
    id bigint NOT NULL,
    downloader text NOT NULL,
    claimed_at timestamp with time zone NOT NULL,
    expired_at timestamp with time zone DEFAULT now() NOT NULL,
    ip inet
);

--
-- Name: claims; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.claims (
    project_id integer NOT NULL,
    hash bytea NOT NULL,
    id bigint NOT NULL,
    name text NOT NULL,
    queue text NOT NULL,
    downloader text NOT NULL,
    ip inet,
    version text DEFAULT ''::text NOT NULL,
    claimed_at timestamp with time zone DEFAULT now() NOT NULL,
    claim_count integer DEFAULT 1 NOT NULL,
    last_downloader text,
    site integer DEFAULT 0 NOT NULL,
    last_ip inet,
    CONSTRAINT claims_claim_count_check CHECK ((claim_count > 0))
)
WITH (autovacuum_vacuum_scale_factor='0', autovacuum_vacuum_threshold='10000', autovacuum_vacuum_cost_delay='0', autovacuum_analyze_scale_factor='0', autovacuum_analyze_threshold='1000');

--
-- Name: counters; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.counters (
    project_id integer NOT NULL,
    name text NOT NULL,
    shard smallint NOT NULL,
    value bigint NOT NULL
);

--
-- Name: dictionaries; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.dictionaries (
    id bigint NOT NULL,
    project_id integer NOT NULL,
    bytes bytea NOT NULL,
    sha256 text NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    created_by text DEFAULT ''::text NOT NULL,
    token text DEFAULT replace((gen_random_uuid())::text, '-'::text, ''::text) NOT NULL,
    public_id bigint NOT NULL,
    legacy_id bigint
);

--
-- Name: dictionaries_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.dictionaries ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.dictionaries_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

--
-- Name: domain_totals; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.domain_totals (
    project_id integer NOT NULL,
    domain text NOT NULL,
    bytes bigint NOT NULL
);

--
-- Name: done; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.done (
    project_id integer NOT NULL,
    id bigint NOT NULL,
    name text NOT NULL,
    downloader text NOT NULL,
    version text DEFAULT ''::text NOT NULL,
    bytes bigint NOT NULL,
    domains jsonb DEFAULT '{}'::jsonb NOT NULL,
    client_id json,
    claimed_at timestamp with time zone NOT NULL,
    done_at timestamp with time zone DEFAULT now() NOT NULL,
    claim_count integer NOT NULL,
    ip inet,
    result jsonb,
    site integer DEFAULT 0 NOT NULL
)
PARTITION BY LIST (project_id);

--
-- Name: done_tallies; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.done_tallies (
    project_id integer NOT NULL,
    downloader text NOT NULL,
    items bigint NOT NULL,
    bytes bigint NOT NULL,
    version text NOT NULL,
    domains jsonb NOT NULL,
    item text NOT NULL,
    at timestamp with time zone DEFAULT now() NOT NULL,
    user_agent text DEFAULT ''::text NOT NULL,
    names text[] DEFAULT '{}'::text[] NOT NULL,
    seq bigint NOT NULL
)
WITH (autovacuum_vacuum_scale_factor='0', autovacuum_vacuum_threshold='10000', autovacuum_vacuum_cost_delay='0', autovacuum_vacuum_insert_scale_factor='0', autovacuum_vacuum_insert_threshold='10000');

--
-- Name: done_tallies_mark; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.done_tallies_mark (
    one boolean DEFAULT true NOT NULL,
    folded bigint DEFAULT 0 NOT NULL,
    next_seq bigint DEFAULT 0 NOT NULL,
    next_xid xid8 DEFAULT '0'::xid8 NOT NULL,
    CONSTRAINT done_tallies_mark_one_check CHECK (one)
);

--
-- Name: done_tallies_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.done_tallies_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

--
-- Name: done_tallies_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.done_tallies_seq OWNED BY public.done_tallies.seq;

--
-- Name: downloader_hours; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.downloader_hours (
    project_id integer NOT NULL,
    downloader text NOT NULL,
    hour timestamp with time zone NOT NULL,
    items bigint NOT NULL,
    bytes bigint NOT NULL
);

--
-- Name: downloaders; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.downloaders (
    project_id integer NOT NULL,
    nick text NOT NULL,
    items bigint DEFAULT 0 NOT NULL,
    bytes bigint DEFAULT 0 NOT NULL,
    version text DEFAULT ''::text NOT NULL,
    first_seen timestamp with time zone DEFAULT now() NOT NULL,
    last_seen timestamp with time zone DEFAULT now() NOT NULL
);

--
-- Name: feed; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.feed (
    project_id integer NOT NULL,
    at timestamp with time zone NOT NULL,
    downloader text NOT NULL,
    items bigint NOT NULL,
    bytes bigint NOT NULL,
    item text NOT NULL,
    version text DEFAULT ''::text NOT NULL,
    domains jsonb DEFAULT '{}'::jsonb NOT NULL,
    user_agent text DEFAULT ''::text NOT NULL,
    names text[] DEFAULT '{}'::text[] NOT NULL
);

--
-- Name: item_batches; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.item_batches (
    project_id integer NOT NULL,
    block bigint NOT NULL,
    queued_at timestamp with time zone DEFAULT now() NOT NULL,
    source text NOT NULL,
    queue text NOT NULL,
    shard text DEFAULT ''::text NOT NULL
);

--
-- Name: item_id_blocks; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.item_id_blocks
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

--
-- Name: item_params; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.item_params (
    project_id integer NOT NULL,
    id bigint NOT NULL,
    params jsonb NOT NULL,
    bytes integer
);

--
-- Name: item_scores; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.item_scores (
    project_id integer NOT NULL,
    id bigint NOT NULL,
    score double precision NOT NULL
);

--
-- Name: item_tags; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.item_tags (
    project_id integer NOT NULL,
    id bigint NOT NULL,
    tag text NOT NULL
);

--
-- Name: jobs; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.jobs (
    name text NOT NULL,
    enabled boolean DEFAULT true NOT NULL,
    every interval NOT NULL,
    next_run_at timestamp with time zone DEFAULT now() NOT NULL,
    last_started_at timestamp with time zone,
    last_finished_at timestamp with time zone,
    last_outcome text DEFAULT ''::text NOT NULL,
    last_error text DEFAULT ''::text NOT NULL,
    last_summary text DEFAULT ''::text NOT NULL,
    runs bigint DEFAULT 0 NOT NULL,
    failures bigint DEFAULT 0 NOT NULL,
    run_requested_at timestamp with time zone,
    last_failed jsonb DEFAULT '[]'::jsonb NOT NULL,
    CONSTRAINT jobs_every_check CHECK ((every >= '00:00:01'::interval)),
    CONSTRAINT jobs_last_outcome_check CHECK ((last_outcome = ANY (ARRAY[''::text, 'ok'::text, 'error'::text, 'stopped'::text])))
);

--
-- Name: login_failures; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.login_failures (
    key text NOT NULL,
    at timestamp with time zone DEFAULT now() NOT NULL
);

--
-- Name: project_admins; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.project_admins (
    user_id integer NOT NULL,
    project_id integer NOT NULL
);

--
-- Name: projects_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.projects ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.projects_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

--
-- Name: rate_limits; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.rate_limits (
    project_id integer NOT NULL,
    key text NOT NULL,
    tat timestamp with time zone NOT NULL
);

--
-- Name: revisits; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.revisits (
    project_id integer NOT NULL,
    due_at timestamp with time zone NOT NULL,
    id bigint NOT NULL,
    name text NOT NULL,
    score double precision NOT NULL,
    site integer DEFAULT 0 NOT NULL
);

--
-- Name: seen; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.seen (
    project_id integer NOT NULL,
    hash bytea NOT NULL,
    id bigint NOT NULL,
    item bytea
);

--
-- Name: series_hours; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.series_hours (
    project_id integer NOT NULL,
    hour timestamp with time zone NOT NULL,
    items bigint NOT NULL,
    bytes bigint NOT NULL
);

--
-- Name: series_minutes; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.series_minutes (
    project_id integer NOT NULL,
    minute timestamp with time zone NOT NULL,
    items bigint NOT NULL,
    bytes bigint NOT NULL
);

--
-- Name: sessions; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.sessions (
    token text NOT NULL,
    data bytea NOT NULL,
    expiry timestamp with time zone NOT NULL
);

--
-- Name: settings; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.settings (
    key text NOT NULL,
    value text NOT NULL
);

--
-- Name: site_ids; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.site_ids
    AS integer
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

--
-- Name: sites; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.sites (
    project_id integer NOT NULL,
    id integer DEFAULT nextval('public.site_ids'::regclass) NOT NULL,
    name text NOT NULL,
    queued bigint DEFAULT 0 NOT NULL,
    "out" integer DEFAULT 0 NOT NULL,
    at_limit boolean DEFAULT false NOT NULL,
    due_at timestamp with time zone DEFAULT now() NOT NULL,
    last_at timestamp with time zone,
    downloader text,
    blocked boolean DEFAULT false NOT NULL,
    done bigint DEFAULT 0 NOT NULL,
    bytes bigint DEFAULT 0 NOT NULL,
    CONSTRAINT sites_out_check CHECK (("out" >= 0)),
    CONSTRAINT sites_queued_check CHECK ((queued >= 0))
)
WITH (fillfactor='70', autovacuum_vacuum_scale_factor='0', autovacuum_vacuum_threshold='5000', autovacuum_vacuum_cost_delay='0', autovacuum_analyze_scale_factor='0', autovacuum_analyze_threshold='50000');

--
-- Name: todo; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.todo (
    project_id integer NOT NULL,
    queue text NOT NULL,
    type text DEFAULT ''::text NOT NULL,
    id bigint NOT NULL,
    name text NOT NULL,
    claim_count integer DEFAULT 0 NOT NULL,
    last_downloader text,
    site integer DEFAULT 0 NOT NULL,
    last_ip inet
)
WITH (autovacuum_vacuum_scale_factor='0', autovacuum_vacuum_threshold='10000', autovacuum_vacuum_cost_delay='0', autovacuum_vacuum_insert_scale_factor='0', autovacuum_vacuum_insert_threshold='100000', autovacuum_analyze_scale_factor='0', autovacuum_analyze_threshold='100000');

--
-- Name: upload_targets; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.upload_targets (
    id integer NOT NULL,
    project_id integer NOT NULL,
    url text NOT NULL,
    weight integer DEFAULT 1 NOT NULL,
    enabled boolean DEFAULT true NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT upload_targets_weight_check CHECK ((weight > 0))
);

--
-- Name: upload_targets_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.upload_targets ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.upload_targets_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

--
-- Name: uploads; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.uploads (
    project_id integer NOT NULL,
    uploader text NOT NULL,
    server text NOT NULL,
    ip inet,
    at timestamp with time zone DEFAULT now() NOT NULL,
    id bigint NOT NULL
);

--
-- Name: users; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.users (
    id integer NOT NULL,
    username text NOT NULL,
    password_hash text NOT NULL,
    role text NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT users_role_check CHECK ((role = ANY (ARRAY['admin'::text, 'project_admin'::text]))),
    CONSTRAINT users_username_check CHECK ((username ~ '^[A-Za-z0-9_.-]{1,64}$'::text))
);

--
-- Name: users_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.users ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.users_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

--
-- Name: volunteer_days; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.volunteer_days (
    project_id integer NOT NULL,
    day date NOT NULL,
    volunteers bigint NOT NULL
);

--
-- Name: volunteer_marks; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.volunteer_marks (
    project_id integer NOT NULL,
    mark bytea NOT NULL,
    expires_at timestamp with time zone NOT NULL
);

--
-- Name: volunteer_secrets; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.volunteer_secrets (
    created_at timestamp with time zone NOT NULL,
    secret bytea NOT NULL
);

--
-- Name: warriors; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.warriors (
    id text NOT NULL,
    nick text DEFAULT ''::text NOT NULL,
    seesaw_version text DEFAULT ''::text NOT NULL,
    runner_type text DEFAULT ''::text NOT NULL,
    selected_project text DEFAULT ''::text NOT NULL,
    lat smallint,
    lng smallint,
    registered_from inet,
    first_seen_at timestamp with time zone DEFAULT now() NOT NULL,
    last_seen_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT warriors_lat_check CHECK (((lat >= '-90'::integer) AND (lat <= 90))),
    CONSTRAINT warriors_lng_check CHECK (((lng >= '-180'::integer) AND (lng <= 180)))
);

--
-- Name: done_tallies seq; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.done_tallies ALTER COLUMN seq SET DEFAULT 
CASE
    WHEN (pg_current_xact_id() IS NOT NULL) THEN nextval('public.done_tallies_seq'::regclass)
    ELSE NULL::bigint
END;

--
-- Name: api_tokens api_tokens_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.api_tokens
    ADD CONSTRAINT api_tokens_pkey PRIMARY KEY (id);

--
-- Name: archived archived_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.archived
    ADD CONSTRAINT archived_pkey PRIMARY KEY (project_id, hash);

--
-- Name: archives archives_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.archives
    ADD CONSTRAINT archives_pkey PRIMARY KEY (id);

--
-- Name: archives archives_project_id_day_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.archives
    ADD CONSTRAINT archives_project_id_day_key UNIQUE (project_id, day);

--
-- Name: audit_log audit_log_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.audit_log
    ADD CONSTRAINT audit_log_pkey PRIMARY KEY (id);

--
-- Name: auto_choice auto_choice_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.auto_choice
    ADD CONSTRAINT auto_choice_pkey PRIMARY KEY (one);

--
-- Name: backfeed_minutes backfeed_minutes_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.backfeed_minutes
    ADD CONSTRAINT backfeed_minutes_pkey PRIMARY KEY (project_id, minute, shard);

--
-- Name: blocks blocks_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.blocks
    ADD CONSTRAINT blocks_pkey PRIMARY KEY (id);

--
-- Name: claims claims_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.claims
    ADD CONSTRAINT claims_pkey PRIMARY KEY (hash, project_id);

--
-- Name: counters counters_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.counters
    ADD CONSTRAINT counters_pkey PRIMARY KEY (project_id, name, shard);

--
-- Name: dictionaries dictionaries_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.dictionaries
    ADD CONSTRAINT dictionaries_pkey PRIMARY KEY (id);

--
-- Name: domain_totals domain_totals_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.domain_totals
    ADD CONSTRAINT domain_totals_pkey PRIMARY KEY (project_id, domain);

--
-- Name: done_tallies_mark done_tallies_mark_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.done_tallies_mark
    ADD CONSTRAINT done_tallies_mark_pkey PRIMARY KEY (one);

--
-- Name: downloader_hours downloader_hours_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.downloader_hours
    ADD CONSTRAINT downloader_hours_pkey PRIMARY KEY (project_id, downloader, hour);

--
-- Name: downloaders downloaders_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.downloaders
    ADD CONSTRAINT downloaders_pkey PRIMARY KEY (project_id, nick);

--
-- Name: item_batches item_batches_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.item_batches
    ADD CONSTRAINT item_batches_pkey PRIMARY KEY (project_id, block);

--
-- Name: item_params item_params_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.item_params
    ADD CONSTRAINT item_params_pkey PRIMARY KEY (project_id, id);

--
-- Name: item_scores item_scores_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.item_scores
    ADD CONSTRAINT item_scores_pkey PRIMARY KEY (project_id, id);

--
-- Name: item_tags item_tags_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.item_tags
    ADD CONSTRAINT item_tags_pkey PRIMARY KEY (project_id, id);

--
-- Name: jobs jobs_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.jobs
    ADD CONSTRAINT jobs_pkey PRIMARY KEY (name);

--
-- Name: project_admins project_admins_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.project_admins
    ADD CONSTRAINT project_admins_pkey PRIMARY KEY (user_id, project_id);

--
-- Name: projects projects_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.projects
    ADD CONSTRAINT projects_pkey PRIMARY KEY (id);

--
-- Name: projects projects_slug_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.projects
    ADD CONSTRAINT projects_slug_key UNIQUE (slug);

--
-- Name: rate_limits rate_limits_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.rate_limits
    ADD CONSTRAINT rate_limits_pkey PRIMARY KEY (project_id, key);

--
-- Name: revisits revisits_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.revisits
    ADD CONSTRAINT revisits_pkey PRIMARY KEY (project_id, due_at, id);

--
-- Name: seen seen_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.seen
    ADD CONSTRAINT seen_pkey PRIMARY KEY (project_id, hash);

--
-- Name: series_hours series_hours_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.series_hours
    ADD CONSTRAINT series_hours_pkey PRIMARY KEY (project_id, hour);

--
-- Name: series_minutes series_minutes_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.series_minutes
    ADD CONSTRAINT series_minutes_pkey PRIMARY KEY (project_id, minute);

--
-- Name: sessions sessions_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.sessions
    ADD CONSTRAINT sessions_pkey PRIMARY KEY (token);

--
-- Name: settings settings_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.settings
    ADD CONSTRAINT settings_pkey PRIMARY KEY (key);

--
-- Name: sites sites_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.sites
    ADD CONSTRAINT sites_pkey PRIMARY KEY (project_id, id);

--
-- Name: sites sites_project_id_name_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.sites
    ADD CONSTRAINT sites_project_id_name_key UNIQUE (project_id, name);

--
-- Name: todo todo_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.todo
    ADD CONSTRAINT todo_pkey PRIMARY KEY (project_id, queue, type, id);

--
-- Name: upload_targets upload_targets_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.upload_targets
    ADD CONSTRAINT upload_targets_pkey PRIMARY KEY (id);

--
-- Name: upload_targets upload_targets_project_id_url_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.upload_targets
    ADD CONSTRAINT upload_targets_project_id_url_key UNIQUE (project_id, url);

--
-- Name: users users_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.users
    ADD CONSTRAINT users_pkey PRIMARY KEY (id);

--
-- Name: volunteer_days volunteer_days_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.volunteer_days
    ADD CONSTRAINT volunteer_days_pkey PRIMARY KEY (project_id, day);

--
-- Name: volunteer_marks volunteer_marks_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.volunteer_marks
    ADD CONSTRAINT volunteer_marks_pkey PRIMARY KEY (project_id, mark);

--
-- Name: volunteer_secrets volunteer_secrets_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.volunteer_secrets
    ADD CONSTRAINT volunteer_secrets_pkey PRIMARY KEY (created_at);

--
-- Name: warriors warriors_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.warriors
    ADD CONSTRAINT warriors_pkey PRIMARY KEY (id);

--
-- Name: api_tokens_user; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX api_tokens_user ON public.api_tokens USING btree (user_id);

--
-- Name: archived_archive; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX archived_archive ON public.archived USING btree (archive_id);

--
-- Name: audit_log_at; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX audit_log_at ON public.audit_log USING btree (at);

--
-- Name: audit_log_detail; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX audit_log_detail ON public.audit_log USING gin (detail jsonb_path_ops);

--
-- Name: audit_log_project_at; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX audit_log_project_at ON public.audit_log USING btree (project_id, at);

--
-- Name: blocks_unique; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX blocks_unique ON public.blocks USING btree (COALESCE(project_id, 0), kind, value);

--
-- Name: claim_expiries_downloader; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX claim_expiries_downloader ON public.claim_expiries USING btree (project_id, downloader, expired_at);

--
-- Name: claim_expiries_item; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX claim_expiries_item ON public.claim_expiries USING btree (project_id, id);

--
-- Name: claim_expiries_recent; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX claim_expiries_recent ON public.claim_expiries USING btree (project_id, expired_at) INCLUDE (downloader, ip);

--
-- Name: claims_claimed_at; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX claims_claimed_at ON public.claims USING btree (project_id, claimed_at) WHERE (claim_count > 0);

--
-- Name: claims_downloader; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX claims_downloader ON public.claims USING btree (project_id, downloader, claimed_at) WHERE (claim_count > 0);

--
-- Name: dictionaries_legacy_id; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX dictionaries_legacy_id ON public.dictionaries USING btree (legacy_id);

--
-- Name: dictionaries_project; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX dictionaries_project ON public.dictionaries USING btree (project_id, id);

--
-- Name: dictionaries_public_id; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX dictionaries_public_id ON public.dictionaries USING btree (public_id);

--
-- Name: done_project_id_id; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX done_project_id_id ON ONLY public.done USING btree (project_id, id);

--
-- Name: done_tallies_by_seq; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX done_tallies_by_seq ON public.done_tallies USING btree (seq);

--
-- Name: downloader_hours_hour; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX downloader_hours_hour ON public.downloader_hours USING btree (project_id, hour);

--
-- Name: downloaders_bytes; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX downloaders_bytes ON public.downloaders USING btree (project_id, bytes DESC);

--
-- Name: feed_project_at; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX feed_project_at ON public.feed USING btree (project_id, at);

--
-- Name: login_failures_key_at; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX login_failures_key_at ON public.login_failures USING btree (key, at);

--
-- Name: revisits_item; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX revisits_item ON public.revisits USING btree (project_id, id);

--
-- Name: seen_item; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX seen_item ON public.seen USING btree (project_id, item) WHERE (item IS NOT NULL);

--
-- Name: sessions_expiry; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX sessions_expiry ON public.sessions USING btree (expiry);

--
-- Name: sites_due; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX sites_due ON public.sites USING btree (project_id, due_at) WHERE ((queued > 0) AND (NOT blocked) AND (NOT at_limit));

--
-- Name: todo_sites; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX todo_sites ON public.todo USING btree (project_id, site, queue, id) WHERE (type = ':site'::text);

--
-- Name: uploads_item; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX uploads_item ON public.uploads USING btree (project_id, id, uploader, server);

--
-- Name: users_username; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX users_username ON public.users USING btree (lower(username));

--
-- Name: volunteer_marks_expires; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX volunteer_marks_expires ON public.volunteer_marks USING btree (expires_at);

--
-- Name: warriors_last_seen; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX warriors_last_seen ON public.warriors USING btree (last_seen_at);

--
-- Name: warriors_registered_from; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX warriors_registered_from ON public.warriors USING btree (registered_from, first_seen_at);

--
-- Name: api_tokens api_tokens_user_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.api_tokens
    ADD CONSTRAINT api_tokens_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.users(id) ON DELETE CASCADE;

--
-- Name: archived archived_archive_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.archived
    ADD CONSTRAINT archived_archive_id_fkey FOREIGN KEY (archive_id) REFERENCES public.archives(id) ON DELETE CASCADE;

--
-- Name: archives archives_project_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.archives
    ADD CONSTRAINT archives_project_id_fkey FOREIGN KEY (project_id) REFERENCES public.projects(id) ON DELETE CASCADE;

--
-- Name: audit_log audit_log_project_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.audit_log
    ADD CONSTRAINT audit_log_project_id_fkey FOREIGN KEY (project_id) REFERENCES public.projects(id) ON DELETE SET NULL;

--
-- Name: audit_log audit_log_user_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.audit_log
    ADD CONSTRAINT audit_log_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.users(id) ON DELETE SET NULL;

--
-- Name: blocks blocks_project_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.blocks
    ADD CONSTRAINT blocks_project_id_fkey FOREIGN KEY (project_id) REFERENCES public.projects(id) ON DELETE CASCADE;

--
-- Name: dictionaries dictionaries_project_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.dictionaries
    ADD CONSTRAINT dictionaries_project_id_fkey FOREIGN KEY (project_id) REFERENCES public.projects(id) ON DELETE CASCADE;

--
-- Name: project_admins project_admins_project_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.project_admins
    ADD CONSTRAINT project_admins_project_id_fkey FOREIGN KEY (project_id) REFERENCES public.projects(id) ON DELETE CASCADE;

--
-- Name: project_admins project_admins_user_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.project_admins
    ADD CONSTRAINT project_admins_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.users(id) ON DELETE CASCADE;

--
-- Name: upload_targets upload_targets_project_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.upload_targets
    ADD CONSTRAINT upload_targets_project_id_fkey FOREIGN KEY (project_id) REFERENCES public.projects(id) ON DELETE CASCADE;

--
-- PostgreSQL database dump complete
--

