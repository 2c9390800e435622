-- The one way the counters are kept. A statement that moves items says
-- what it changed as counter_deltas (name, delta), computed from the rows
-- it moved (its CTEs' RETURNING: a CTE does not see what its siblings
-- wrote), and ends with this insert as its CTE counted:
--
--     ), counted AS (
--         -- include: counters_add
--     )
--
-- so the counters change in the statement and the transaction that move
-- the items. Shards are written in name order, so concurrent writers lock
-- them in one order; a shard saturates at the largest bigint rather than
-- fail the write; a counter whose deltas add up to nothing is not written.
-- Reads @project_id.
INSERT INTO counters AS c (project_id, name, shard, value)
SELECT @project_id, d.name, counter_shard(), LEAST(sum(d.delta), 9223372036854775807)::bigint
FROM counter_deltas d
GROUP BY d.name
HAVING sum(d.delta) <> 0
ORDER BY d.name
ON CONFLICT (project_id, name, shard) DO UPDATE
SET value = CASE WHEN excluded.value > 0 AND c.value > 9223372036854775807 - excluded.value THEN 9223372036854775807 ELSE c.value + excluded.value END
