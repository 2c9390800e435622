-- The items a done batch completes taken out of the claims and the queues
-- (DoneRecordBatch, step 3).
taken_from_claims AS (
    -- Locked by claimed: still as read there.
    DELETE FROM claims
    WHERE claims.project_id = @project_id AND claims.hash = ANY(ARRAY(SELECT claimed_for.hash FROM claimed_for))
    RETURNING 1
), taken_from_queues AS (
    -- Locked by queued: probed again, then deleted by their physical
    -- address. The project is not named beside the addresses: with it the
    -- plan may read the project's key for an empty list, a probe of todo
    -- in a batch that found every item claimed. (On Citus, which names
    -- the project, the items are deleted by key: DoneRecordBatchDistributed.)
    DELETE FROM todo
    WHERE todo.ctid = ANY(ARRAY(
        SELECT t.ctid FROM queued_for qf, probed s,
             LATERAL (
                 SELECT x.ctid FROM todo x
                 WHERE x.project_id = @project_id AND x.queue = s.queue AND x.type = s.type AND x.id = qf.id
                 OFFSET 0) t))
    RETURNING 1
