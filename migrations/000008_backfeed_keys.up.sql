-- Backfeed keys and shards. A backfeed entry "KEY SEP ITEM" is deduplicated
-- on KEY within its shard (a deduplication scope of the project) but queues
-- ITEM; so the hash seen keeps (what deduplicates) and the hash of the item
-- (what claims, completions and archives are found by) can differ.

-- item_key_hash is what seen keeps for KEY in a shard. The default scope
-- ('') keeps item_hash(KEY), so every row written before shards existed
-- stays valid. A shard's keys hash the shard's name, a NUL and the key: a
-- NUL never occurs in an item name, so no key of the default scope or of
-- another shard hashes the same bytes.
CREATE FUNCTION item_key_hash(shard text, key text) RETURNS bytea
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    RETURN CASE WHEN shard = '' THEN item_hash(key)
                ELSE substring(sha256(convert_to(shard, 'UTF8') || '\x00'::bytea
                                      || convert_to(split_part(key, E'\x1F', 1), 'UTF8')) FROM 1 FOR 16)
           END;

-- The item's own hash (item_hash of the name queued) when it differs from
-- the key's; NULL when it is the same, as for every import and every row
-- written before. Books and lookups follow it to the claim or archive of an
-- item whose key is not its name. Existing rows need no rewrite: adding a
-- column without a default only changes the catalogue.
ALTER TABLE seen ADD COLUMN item bytea;

-- Finds an item by its name when it was queued under another key. Partial:
-- imports and default-scope backfeed without a separate key write nothing
-- to it.
CREATE INDEX seen_item ON seen (project_id, item) WHERE item IS NOT NULL;
