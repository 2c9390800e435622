-- The rows' own ids, which the old dictionaries were served under and the
-- ones installed since were given too, are served again.
DROP INDEX dictionaries_legacy_id;
DROP INDEX dictionaries_public_id;
ALTER TABLE dictionaries DROP COLUMN legacy_id;
ALTER TABLE dictionaries DROP COLUMN public_id;
