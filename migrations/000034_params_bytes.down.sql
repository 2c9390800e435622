DROP FUNCTION sent_bytes(text);
ALTER TABLE item_params DROP COLUMN bytes;
