DROP INDEX claim_expiries_recent;
DROP FUNCTION queue_type;
