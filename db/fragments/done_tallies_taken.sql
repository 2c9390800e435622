-- The tallies the rollup folds this time (DoneTalliesFold): those picked
-- past the mark, taken out of done_tallies, and the mark moved on.
-- if postgres
mark AS MATERIALIZED (
    SELECT m.folded, m.next_seq, pg_snapshot_xmin(pg_current_snapshot()) >= m.next_xid AS settled
    FROM done_tallies_mark m
), picked AS MATERIALIZED (
    SELECT ARRAY(SELECT t.ctid FROM done_tallies t
                 WHERE t.seq > (SELECT mark.folded FROM mark)
                   AND (@project_id::integer = 0 OR t.project_id = @project_id::integer)
                 ORDER BY t.seq
                 LIMIT @max) AS tids
), taken AS (
    DELETE FROM done_tallies
    WHERE ctid = ANY((SELECT picked.tids FROM picked)::tid[])
-- else
-- One project's oldest tallies, by their number; Citus sends a delete by
-- rows' addresses to a worker only when it names the project.
taken AS (
    DELETE FROM done_tallies
    WHERE done_tallies.project_id = @project_id AND ctid = ANY(ARRAY(SELECT t.ctid FROM done_tallies t
                                                                    WHERE t.project_id = @project_id
                                                                    ORDER BY t.seq LIMIT @max))
-- end if
    RETURNING done_tallies.project_id, done_tallies.downloader, done_tallies.items, done_tallies.bytes,
              done_tallies.version, done_tallies.domains, done_tallies.item, done_tallies.at,
              done_tallies.user_agent, done_tallies.names, done_tallies.seq
-- if postgres
), marked AS (
    -- Settled: every tally numbered up to next_seq was visible to this
    -- statement, so it picked them all unless it stopped at @max; then it
    -- took every one up to the last it took. Counted on what it picked,
    -- not what it deleted: a fold running beside it may have deleted (and
    -- folded) some.
    UPDATE done_tallies_mark m
    SET folded = CASE WHEN NOT mark.settled THEN m.folded
                      WHEN (SELECT cardinality(picked.tids) FROM picked) < @max THEN greatest(m.folded, mark.next_seq)
                      ELSE greatest(m.folded, least(mark.next_seq, coalesce((SELECT max(taken.seq) FROM taken), m.folded))) END,
        next_seq = @next_seq::bigint,
        next_xid = pg_current_xact_id()
    FROM mark
    WHERE @project_id::integer = 0
-- end if
