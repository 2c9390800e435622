DROP INDEX audit_log_detail;
DROP TABLE item_batches;
