-- Per-project zstd dictionaries, which grab scripts fetch through
-- GET /dictionary and compress their WARCs with. Every upload is a new row
-- and the newest is the one served; older ones stay, since uploaded files
-- name the dictionary they were compressed with and someone may need it to
-- read them.
CREATE TABLE dictionaries (
    id         bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    project_id integer     NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    -- The dictionary as uploaded, raw or zstd-compressed: served byte for
    -- byte, since the scripts check the SHA-256 of what they download.
    bytes      bytea       NOT NULL,
    -- Hex SHA-256 of bytes.
    sha256     text        NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    -- The admin who uploaded it; empty from the shell.
    created_by text        NOT NULL DEFAULT ''
);

CREATE INDEX dictionaries_project ON dictionaries (project_id, id);
