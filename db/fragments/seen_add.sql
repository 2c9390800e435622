-- A batch's keys recorded in seen (its CTE batch: see todo_add_batch),
-- returning the ids of the names the project had not seen: TodoAddUnseen's
-- fresh, and on Citus SeenAddBatch.
INSERT INTO seen (project_id, hash, id, item)
SELECT @project_id, batch.hash, batch.id, nullif(batch.item, batch.hash) FROM batch ORDER BY batch.hash
ON CONFLICT DO NOTHING
RETURNING seen.id
