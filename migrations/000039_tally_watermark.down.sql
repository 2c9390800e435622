DROP TABLE done_tallies_mark;
-- The sequence goes with its column.
ALTER TABLE done_tallies DROP COLUMN seq;
