-- Unique volunteers, without storing addresses: an address is kept as a
-- mark, the keyed hash (HMAC-SHA-256 with a secret of the tracker's,
-- 16 bytes) of it, for 30 days from the first time it asked for work. An
-- address with a live mark is not counted again; a new mark counts the
-- address once on the day it was made. Per project, and tracker-wide under
-- project 0.
CREATE TABLE volunteer_marks (
    project_id integer     NOT NULL,
    mark       bytea       NOT NULL,
    expires_at timestamptz NOT NULL,
    PRIMARY KEY (project_id, mark)
);
CREATE INDEX volunteer_marks_expires ON volunteer_marks (expires_at);

-- New volunteers per UTC day: the sum over a window of at most 30 days
-- counts each address at most once.
CREATE TABLE volunteer_days (
    project_id integer NOT NULL,
    day        date    NOT NULL,
    volunteers bigint  NOT NULL,
    PRIMARY KEY (project_id, day)
);

-- The secrets of the marks: made at first use and replaced every 30 days.
-- The one before stays while marks made with it may live (30 days more),
-- so an address is recognised across a change of secret.
CREATE TABLE volunteer_secrets (
    created_at timestamptz PRIMARY KEY,
    secret     bytea       NOT NULL
);
