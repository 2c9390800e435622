-- The rollup folds the tallies appended since its last fold, found through
-- an index on their number from a watermark, instead of reading the table
-- from its first page: the tallies it folded stay there as dead rows until
-- vacuum comes, and while a long transaction holds vacuum back a scan from
-- the start walks all of them at every fold, and every board's read of the
-- pending tallies with it.
--
-- A tally's number is drawn after its transaction has its id (the CASE
-- takes the id first): a transaction holding a number up to some N had its
-- id before N was read, so once every transaction older than the fold that
-- read N has ended, no tally numbered up to N can still appear (see
-- done_tallies_mark). The sequence hands numbers out one at a time (no
-- cache), so its last value read is the highest number handed out.
CREATE SEQUENCE done_tallies_seq CACHE 1;
ALTER TABLE done_tallies ADD COLUMN seq bigint;
UPDATE done_tallies SET seq = nextval('done_tallies_seq');
ALTER TABLE done_tallies
    ALTER COLUMN seq SET NOT NULL,
    ALTER COLUMN seq SET DEFAULT CASE WHEN pg_current_xact_id() IS NOT NULL THEN nextval('done_tallies_seq') END;
ALTER SEQUENCE done_tallies_seq OWNED BY done_tallies.seq;
CREATE INDEX done_tallies_by_seq ON done_tallies (seq);

-- The rollup's watermark: every tally numbered up to folded is folded (and
-- gone). next_seq is the highest number handed out when the last fold
-- began and next_xid that fold's transaction: once no transaction older
-- than next_xid is running, every tally up to next_seq is visible, and the
-- fold that sees so and takes them all moves folded up to next_seq.
CREATE TABLE done_tallies_mark (
    one      boolean PRIMARY KEY DEFAULT true CHECK (one),
    folded   bigint  NOT NULL DEFAULT 0,
    next_seq bigint  NOT NULL DEFAULT 0,
    next_xid xid8    NOT NULL DEFAULT '0'
);
INSERT INTO done_tallies_mark DEFAULT VALUES;
