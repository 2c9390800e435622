DROP TABLE downloaders;
DROP FUNCTION done_partitions_ensure(integer, date, date);
DROP TABLE done;
DROP TABLE claims;
DROP TABLE todo;
DROP TABLE seen;
DROP SEQUENCE item_ids;
DROP FUNCTION item_hash(text);
