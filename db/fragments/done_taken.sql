-- The items a done batch completes taken out of the claims and the queues
-- (DoneRecordBatch, step 3).
taken_from_claims AS (
    -- Locked by claimed: still as read there.
    DELETE FROM claims
    WHERE claims.project_id = @project_id AND claims.hash = ANY(ARRAY(SELECT claimed_for.hash FROM claimed_for))
    RETURNING 1
), taken_from_queues AS (
    -- if citus
    -- By key: Citus runs the statement's parts one after the other, and
    -- deletes no rows by addresses another part found.
    DELETE FROM todo
    WHERE todo.project_id = @project_id AND (todo.queue, todo.type, todo.id) IN (
        SELECT s.queue, s.type, qf.id FROM queued_for qf, probed s)
    -- else
    -- Locked by queued: probed again, then deleted by their physical
    -- address. The project is not named beside the addresses: with it the
    -- plan may read the project's key for an empty list, a probe of todo
    -- in a batch that found every item claimed.
    DELETE FROM todo
    WHERE todo.ctid = ANY(ARRAY(
        SELECT t.ctid FROM queued_for qf, probed s,
             LATERAL (
                 SELECT x.ctid FROM todo x
                 WHERE x.project_id = @project_id AND x.queue = s.queue AND x.type = s.type AND x.id = qf.id
                 OFFSET 0 /* fence */) t))
    -- end if
    RETURNING 1
