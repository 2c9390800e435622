-- Background jobs. Every tracker process runs the same schedule; a job's
-- run is executed by one process at a time, the one holding the job's
-- advisory lock, and this row says when it is due and how the last run went.
CREATE TABLE jobs (
    name             text        PRIMARY KEY,
    enabled          boolean     NOT NULL DEFAULT true,
    every            interval    NOT NULL CHECK (every >= interval '1 second'),
    next_run_at      timestamptz NOT NULL DEFAULT now(),
    last_started_at  timestamptz,
    last_finished_at timestamptz,
    -- 'ok', 'error', or 'stopped' (the process stopped it mid-run); '' before the first run.
    last_outcome     text        NOT NULL DEFAULT '' CHECK (last_outcome IN ('', 'ok', 'error', 'stopped')),
    last_error       text        NOT NULL DEFAULT '',
    -- What the last run did, in a few words ("reclaimed 120 items").
    last_summary     text        NOT NULL DEFAULT '',
    runs             bigint      NOT NULL DEFAULT 0,
    failures         bigint      NOT NULL DEFAULT 0
);

-- What each done request was credited: appended by the completion
-- statement and folded into downloaders, the time series, the domain
-- totals and the feed by the rollup job. Appending instead of updating the
-- downloaders' rows in place keeps the completion free of hot rows, whose
-- dead versions pile up while any long transaction elsewhere holds vacuum
-- back.
CREATE TABLE done_tallies (
    project_id integer     NOT NULL,
    downloader text        NOT NULL,
    items      bigint      NOT NULL,
    bytes      bigint      NOT NULL,
    version    text        NOT NULL,
    -- Bytes per domain as the request reported them ('{}' when its bytes
    -- stay out of the stats).
    domains    jsonb       NOT NULL,
    -- One of the items completed, for the feed of recent completions.
    item       text        NOT NULL,
    at         timestamptz NOT NULL DEFAULT now()
) WITH (
    autovacuum_vacuum_scale_factor = 0,
    autovacuum_vacuum_threshold = 10000,
    autovacuum_vacuum_cost_delay = 0,
    autovacuum_vacuum_insert_scale_factor = 0,
    autovacuum_vacuum_insert_threshold = 10000
);

-- The leaderboard's head: its first downloaders by bytes, every second.
CREATE INDEX downloaders_bytes ON downloaders (project_id, bytes DESC);

-- Completions per project per minute (kept two days, for the charts of the
-- last day) and per hour (kept for good).
CREATE TABLE series_minutes (
    project_id integer     NOT NULL,
    minute     timestamptz NOT NULL,
    items      bigint      NOT NULL,
    bytes      bigint      NOT NULL,
    PRIMARY KEY (project_id, minute)
);

CREATE TABLE series_hours (
    project_id integer     NOT NULL,
    hour       timestamptz NOT NULL,
    items      bigint      NOT NULL,
    bytes      bigint      NOT NULL,
    PRIMARY KEY (project_id, hour)
);

-- Completions per downloader per hour: the last-24-hours and last-7-days
-- leaderboards and each downloader's chart.
CREATE TABLE downloader_hours (
    project_id integer     NOT NULL,
    downloader text        NOT NULL,
    hour       timestamptz NOT NULL,
    items      bigint      NOT NULL,
    bytes      bigint      NOT NULL,
    PRIMARY KEY (project_id, downloader, hour)
);

CREATE INDEX downloader_hours_hour ON downloader_hours (project_id, hour);

-- Bytes per domain of a project, all time.
CREATE TABLE domain_totals (
    project_id integer NOT NULL,
    domain     text    NOT NULL,
    bytes      bigint  NOT NULL,
    PRIMARY KEY (project_id, domain)
);

-- The latest done requests of each project (the rollup keeps the newest
-- feedKept), for the leaderboard's feed.
CREATE TABLE feed (
    project_id integer     NOT NULL,
    at         timestamptz NOT NULL,
    downloader text        NOT NULL,
    items      bigint      NOT NULL,
    bytes      bigint      NOT NULL,
    item       text        NOT NULL
);

CREATE INDEX feed_project_at ON feed (project_id, at);

-- Archived completions: one day of a project's completions each, written to
-- a compressed file (mode 'files') or thrown away (mode 'discard', keeping
-- only the dedup record and the counters).
CREATE TABLE archives (
    id            integer     GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    project_id    integer     NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    day           date        NOT NULL,
    mode          text        NOT NULL CHECK (mode IN ('files', 'discard')),
    -- The file, relative to the archive directory ('' when discarded).
    path          text        NOT NULL DEFAULT '',
    items         bigint      NOT NULL,
    bytes         bigint      NOT NULL,
    first_done_at timestamptz,
    last_done_at  timestamptz,
    -- SHA-256 of the file as written, and its size.
    sha256        bytea,
    file_size     bigint      NOT NULL DEFAULT 0,
    created_at    timestamptz NOT NULL DEFAULT now(),
    UNIQUE (project_id, day)
);

-- Which archive file holds each archived item (mode 'files' only): item
-- lookups name the file.
CREATE TABLE archived (
    project_id integer NOT NULL,
    hash       bytea   NOT NULL,
    archive_id integer NOT NULL REFERENCES archives (id) ON DELETE CASCADE,
    PRIMARY KEY (project_id, hash)
);

CREATE INDEX archived_archive ON archived (archive_id);

-- Every admin action: who, when, from where, and what changed.
CREATE TABLE audit_log (
    id         bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    at         timestamptz NOT NULL DEFAULT now(),
    -- The acting user; the name stays when the account is deleted. Empty
    -- for actions from the shell.
    user_id    integer     REFERENCES users (id) ON DELETE SET NULL,
    username   text        NOT NULL DEFAULT '',
    ip         inet,
    action     text        NOT NULL,
    project_id integer     REFERENCES projects (id) ON DELETE SET NULL,
    detail     jsonb       NOT NULL DEFAULT '{}'
);

CREATE INDEX audit_log_at ON audit_log (at);
CREATE INDEX audit_log_project_at ON audit_log (project_id, at);

-- Tracker-wide settings: the global fields of the warriors' projects file
-- and of the pages (key → value; keys are checked by the application).
CREATE TABLE settings (
    key   text PRIMARY KEY,
    value text NOT NULL
);

-- Failed admin logins, by account ('user:NAME') and by address ('ip:ADDR'):
-- too many in a while and the next attempts are refused before the
-- password is checked.
CREATE TABLE login_failures (
    key text        NOT NULL,
    at  timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX login_failures_key_at ON login_failures (key, at);
