ALTER TABLE blocks DROP COLUMN created_by;
