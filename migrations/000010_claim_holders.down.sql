ALTER TABLE todo DROP COLUMN last_downloader;
ALTER TABLE claims DROP COLUMN last_downloader;
