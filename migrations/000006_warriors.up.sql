-- Warriors that use the tracker as their warrior HQ (register.json,
-- update.json), for the Warriors page, its map and the gauges. A row is
-- written at registration and on each update; rows not seen for 30 days
-- are dropped by the housekeeping job.
CREATE TABLE warriors (
    -- Issued by the tracker (random, URL-safe), or the id an update
    -- brought that the tracker did not know, or, for warriors that send an
    -- empty id, one derived from their address and nick.
    id               text        PRIMARY KEY,
    nick             text        NOT NULL DEFAULT '',
    seesaw_version   text        NOT NULL DEFAULT '',
    -- The runner type from the User-Agent ("Warrior", "Standalone", ...).
    runner_type      text        NOT NULL DEFAULT '',
    -- A project slug, 'auto', or '' for none.
    selected_project text        NOT NULL DEFAULT '',
    -- The location in whole degrees: the column type keeps anything finer
    -- out.
    lat              smallint    CHECK (lat BETWEEN -90 AND 90),
    lng              smallint    CHECK (lng BETWEEN -180 AND 180),
    -- The address that created the row: registrations are limited per
    -- address and hour.
    registered_from  inet,
    first_seen_at    timestamptz NOT NULL DEFAULT now(),
    last_seen_at     timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX warriors_last_seen ON warriors (last_seen_at);
CREATE INDEX warriors_registered_from ON warriors (registered_from, first_seen_at);
