DROP INDEX seen_item;
ALTER TABLE seen DROP COLUMN item;
DROP FUNCTION item_key_hash(text, text);
