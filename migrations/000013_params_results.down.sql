ALTER TABLE done DROP COLUMN result;
DROP TABLE item_params;
