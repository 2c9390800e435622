DROP TABLE audit_log;
DROP TABLE archived;
DROP TABLE archives;
DROP TABLE downloader_hours;
DROP TABLE series_hours;
DROP TABLE series_minutes;
DROP TABLE done_tallies;
DROP TABLE jobs;
