DROP TABLE backfeed_minutes;
