-- name: ClaimsTakeFromQueue :many
-- Moves up to @max items from the head of one queue into claims. SKIP LOCKED
-- lets concurrent requests take different items instead of queueing behind
-- each other; @after_id skips the head of the index that earlier claims
-- left dead.
WITH taken AS (
    DELETE FROM todo
    WHERE (project_id, queue, id) IN (
        SELECT t.project_id, t.queue, t.id FROM todo t
        WHERE t.project_id = @project_id AND t.queue = @queue AND t.id > @after_id
        ORDER BY t.id
        LIMIT @max
        FOR UPDATE SKIP LOCKED
    )
    RETURNING todo.id, todo.name, todo.queue, todo.claim_count
)
INSERT INTO claims (project_id, hash, id, name, queue, downloader, ip, version, claim_count)
SELECT @project_id, item_hash(taken.name), taken.id, taken.name, taken.queue,
       @downloader, @ip, @version, taken.claim_count + 1
FROM taken
RETURNING claims.id, claims.name;

-- name: ClaimsCount :one
SELECT count(*) FROM claims WHERE project_id = @project_id;
