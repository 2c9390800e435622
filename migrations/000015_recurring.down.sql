DROP FUNCTION revisit_queue;
DROP TABLE revisits;
DROP TABLE item_scores;
