DROP TABLE uploads;
DROP FUNCTION rate_refund(integer, text, bigint);
DROP FUNCTION rate_take(integer, text, bigint);
DROP TABLE rate_limits;
DROP TABLE upload_targets;
DROP TABLE blocks;
