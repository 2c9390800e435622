DROP INDEX claim_expiries_recent;
CREATE INDEX claim_expiries_recent ON claim_expiries (project_id, expired_at) INCLUDE (downloader);
ALTER TABLE claim_expiries DROP COLUMN ip;
