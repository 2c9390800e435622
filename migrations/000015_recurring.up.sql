-- Recurring projects (the torrent scorer's model): a done does not finish
-- an item but schedules its next visit, and each visit's outcome adapts the
-- item's score, by which due items are handed out, highest first; an item
-- whose score falls below the project's retire_below retires (the queue
-- 'retired', never served, from which an admin revives it).

-- An item's score; an item without a row has 1.0.
CREATE TABLE item_scores (
    project_id integer          NOT NULL,
    id         bigint           NOT NULL,
    score      double precision NOT NULL,
    PRIMARY KEY (project_id, id)
);

-- Items waiting for their next visit, until due_at; the revisit job moves
-- the due ones into the queue of their score.
CREATE TABLE revisits (
    project_id integer          NOT NULL,
    due_at     timestamptz      NOT NULL,
    id         bigint           NOT NULL,
    name       text             NOT NULL,
    score      double precision NOT NULL,
    PRIMARY KEY (project_id, due_at, id)
);
-- An item's visit, for lookups.
CREATE INDEX revisits_item ON revisits (project_id, id);

-- revisit_queue is the queue of a due item of that score: a band of
-- scores a factor 1.2 wide, 'revisit:00' the highest (scores of 1.2^20 and
-- more), 'revisit:20' the band of 1.0, 'revisit:99' the lowest. A request
-- walks the bands in order, skipping the empty ones by their counters
-- without reading them: highest scores first at the cost of a queue walk,
-- never a sort.
CREATE FUNCTION revisit_queue(score double precision) RETURNS text
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    RETURN 'revisit:' || lpad(least(99, greatest(0, 20 - floor(ln(greatest(score, 1e-300)) / ln(1.2))))::integer::text, 2, '0');
