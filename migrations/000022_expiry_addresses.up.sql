-- The address each expired claim was made from: expired_claims_limit
-- counts a downloader's expiries by nick and network together
-- (items.tooManyExpired), so whoever claims under a warrior's nick from
-- elsewhere and lets the claims run out is refused, not the warrior.
-- Expiries recorded before have none: they count for no network.
ALTER TABLE claim_expiries ADD COLUMN ip inet;

-- The limit reads the last hour's expiries with their addresses from the
-- index alone, as it read their downloaders.
DROP INDEX claim_expiries_recent;
CREATE INDEX claim_expiries_recent ON claim_expiries (project_id, expired_at) INCLUDE (downloader, ip);
