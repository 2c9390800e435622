-- name: SeenGet :one
-- The id of a name the project has seen.
SELECT id FROM seen WHERE project_id = @project_id AND hash = item_hash(@name);

-- name: SeenPurgeBatch :execrows
-- Deletes up to @max of a deleting project's rows (see projects.Purge).
DELETE FROM seen WHERE ctid = ANY(ARRAY(SELECT p.ctid FROM seen p WHERE p.project_id = @project_id LIMIT @max));

-- name: BooksSeenCount :one
-- The books: the items the project ever accepted.
SELECT count(*) FROM seen WHERE project_id = @project_id;

-- name: BooksSeenElsewhereCount :one
-- The books: items seen and in no table of a state (discarded by archival
-- or drained).
SELECT count(*) FROM seen s WHERE s.project_id = @project_id
  AND NOT EXISTS (SELECT 1 FROM todo t WHERE t.project_id = @project_id AND t.id = s.id)
  AND NOT EXISTS (SELECT 1 FROM claims c WHERE c.project_id = @project_id AND c.hash = s.hash)
  AND NOT EXISTS (SELECT 1 FROM done d WHERE d.project_id = @project_id AND d.id = s.id)
  AND NOT EXISTS (SELECT 1 FROM archived a WHERE a.project_id = @project_id AND a.hash = s.hash);
