-- Items with parameters, and completions with results: a test request
-- carries the parameters of its run, and its result comes back with the
-- node that ran it (the downloader) and its start and end (the claim and
-- the done).

-- An item's parameters, a JSON object of at most 64 KiB, kept by id while
-- the item moves between queues, claims and completions: a claim reads them
-- by the item's id in the statement that hands it out. Written once, when
-- the item is first queued.
CREATE TABLE item_params (
    project_id integer NOT NULL,
    id         bigint  NOT NULL,
    params     jsonb   NOT NULL,
    PRIMARY KEY (project_id, id)
);

-- A completion's result as the done reported it (JSON, at most 64 KiB), or
-- NULL. Adding a column without a default only changes the catalogue.
ALTER TABLE done ADD COLUMN result jsonb;
