-- New items per backfeed shard per minute: what the leaderboard's "new from
-- backfeed" table sums over the last hour. One row per project, shard and
-- minute, added to once per post (never once per item), so even a busy
-- grab writes a few rows a minute. The housekeeping job drops minutes older
-- than 48 hours, as long as the completions' minute series is kept.
CREATE TABLE backfeed_minutes (
    project_id integer     NOT NULL,
    shard      text        NOT NULL, -- '' is the project's default scope
    minute     timestamptz NOT NULL,
    items      bigint      NOT NULL,
    PRIMARY KEY (project_id, minute, shard)
);
