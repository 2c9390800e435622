-- What an item's page in the admin panel tells of its life that no other
-- table kept: when and how it was first queued, and the admin actions
-- that named it.

-- One row per batch of names that queued new items (an import's batch of
-- up to 10,000 lines, a backfeed post's statement): when, by what, into
-- which queue and in which backfeed shard. An item's id carries its
-- batch's block (id >> 20, see item_id_blocks), so the row is found by key
-- and costs nothing per item: a column on seen would cost every name 8
-- bytes (a seventh of its dedup record) for what the batch already knows
-- of all of them. A project in random order puts random bits above the
-- block (see TodoAddUnseen): its batches are not recorded, as its ids no
-- longer lead back to them. Written by the statement that queues the
-- batch, never by a statement of its own.
CREATE TABLE item_batches (
    project_id integer     NOT NULL,
    block      bigint      NOT NULL,
    queued_at  timestamptz NOT NULL DEFAULT now(),
    -- 'import' (the command line, the admin panel's upload) or 'backfeed'.
    source     text        NOT NULL,
    queue      text        NOT NULL,
    -- The backfeed shard the names were deduplicated in ('' the default).
    shard      text        NOT NULL DEFAULT '',
    PRIMARY KEY (project_id, block)
);

-- The audit entries that name an item: single-item actions keep it as
-- "item", bulk actions on a selection as "names". Few rows are written,
-- so an index of their details costs nothing that matters, and an item's
-- entries are found without reading a project's whole log.
CREATE INDEX audit_log_detail ON audit_log USING gin (detail jsonb_path_ops);
