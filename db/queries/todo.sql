-- name: TodoAddUnseen :execrows
-- Queues the names of a batch that the project has never seen (repeats
-- within the batch included) and returns how many it queued. Ids are drawn
-- in the batch's order, so a queue hands items out as they were imported,
-- while the seen index is written in hash order: sorted batches touch far
-- fewer index pages.
WITH batch AS MATERIALIZED (
    SELECT b.name, item_hash(b.name) AS hash, nextval('item_ids') AS id
    FROM unnest(@names::text[]) WITH ORDINALITY AS b (name, ord)
    ORDER BY b.ord
), fresh AS (
    INSERT INTO seen (project_id, hash, id)
    SELECT @project_id, batch.hash, batch.id FROM batch ORDER BY batch.hash
    ON CONFLICT DO NOTHING
    RETURNING seen.id
)
INSERT INTO todo (project_id, queue, id, name)
SELECT @project_id, @queue, batch.id, batch.name
FROM fresh JOIN batch ON batch.id = fresh.id;

-- name: TodoCountByQueue :many
SELECT queue, count(*) AS items FROM todo WHERE project_id = @project_id GROUP BY queue ORDER BY queue;
