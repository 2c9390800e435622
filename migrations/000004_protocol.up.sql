-- Blocked downloaders: a nick, or an IP address or network, refused with 403.
-- project_id NULL blocks on every project.
CREATE TABLE blocks (
    id         integer     GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    project_id integer     REFERENCES projects (id) ON DELETE CASCADE,
    kind       text        NOT NULL CHECK (kind IN ('nick', 'ip')),
    -- A nick, or a network in CIDR notation (a single address is a /32 or /128).
    value      text        NOT NULL,
    reason     text        NOT NULL DEFAULT '',
    created_at timestamptz NOT NULL DEFAULT now()
);

CREATE UNIQUE INDEX blocks_unique ON blocks (coalesce(project_id, 0), kind, value);

-- Where warriors upload their results. A target URL is rsync://host/module/path/
-- or http(s)://...; ":downloader" in it stands for the uploader's nick.
CREATE TABLE upload_targets (
    id         integer     GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    project_id integer     NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    url        text        NOT NULL,
    weight     integer     NOT NULL DEFAULT 1 CHECK (weight > 0),
    enabled    boolean     NOT NULL DEFAULT true,
    created_at timestamptz NOT NULL DEFAULT now(),
    UNIQUE (project_id, url)
);

-- Rate limits as the generic cell rate algorithm: for each limit the
-- theoretical arrival time of the next item. Items are handed out no closer
-- than the limit's interval to each other, across every tracker process,
-- with no burst when a new minute starts. key is '' for the project's limit
-- and the type for a per-type limit.
CREATE TABLE rate_limits (
    project_id integer     NOT NULL,
    key        text        NOT NULL,
    tat        timestamptz NOT NULL,
    PRIMARY KEY (project_id, key)
);

-- rate_take takes the next item of a limit of per_minute items a minute.
-- It returns 0 when the item is granted, else the seconds until it is due.
-- There is no burst allowance: however the requests bunch up, no two items
-- of one limit are closer than 60/per_minute seconds, so no second sees more
-- than per_minute/60 + 1 items.
--
-- It commits without waiting for the disk: a rate limit's state is worth less
-- than a flush, and losing a moment of it in a crash only lets an item
-- through a little early.
CREATE FUNCTION rate_take(project integer, limit_key text, per_minute bigint)
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

-- rate_refund gives back an item granted but not handed out (the queues
-- were empty).
CREATE FUNCTION rate_refund(project integer, limit_key text, per_minute bigint)
    RETURNS void
    LANGUAGE sql AS $$
    SELECT set_config('synchronous_commit', 'off', true);
    UPDATE rate_limits SET tat = tat - make_interval(secs => 60.0 / per_minute)
    WHERE project_id = project AND key = limit_key;
$$;

-- Upload receipts the warriors send after uploading an item.
CREATE TABLE uploads (
    project_id integer     NOT NULL,
    uploader   text        NOT NULL,
    item       text        NOT NULL,
    server     text        NOT NULL,
    ip         inet,
    at         timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX uploads_project_at ON uploads (project_id, at);
