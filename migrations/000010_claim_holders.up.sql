-- Who held an item before it changed hands: a claim reclaimed for another
-- downloader keeps its previous holder, and an item put back in its queue
-- (claim expired or released) keeps its last holder, carried into the claim
-- that takes it next. The previous holder may still report the item done,
-- having done the work; anyone else's done for it completes nothing (see
-- DoneRecordBatch). NULL for items never handed out, and adding a column
-- without a default only changes the catalogue.
ALTER TABLE claims ADD COLUMN last_downloader text;
ALTER TABLE todo ADD COLUMN last_downloader text;
