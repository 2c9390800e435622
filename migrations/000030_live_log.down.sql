ALTER TABLE feed
    DROP COLUMN names,
    DROP COLUMN user_agent,
    DROP COLUMN domains,
    DROP COLUMN version;

ALTER TABLE done_tallies
    DROP COLUMN names,
    DROP COLUMN user_agent;
