-- An import batch's names queued (TodoAddUnseen, step 3): the tags the
-- items enter with (entering), the new names and those queued again
-- (queued_fresh, queued_again; queued), those queued again only for
-- skip_seen (backfed_again), the tags and parameters kept (tagged,
-- params_kept), and the batch recorded (batch_recorded).
entering AS (
    -- The names to be queued, new or again, with their tags.
    SELECT batch.id, batch.name, batch.site, batch.tag FROM fresh JOIN batch ON batch.id = fresh.id
    UNION ALL
    SELECT again.id, again.name, again.site, again.tag FROM again
), queued_fresh AS (
    -- A fresh name's id is of this statement's block: nothing to check it
    -- against (an insert ON CONFLICT probes the key before it writes it),
    -- and in id order each entry lands next to the one before. (A
    -- shuffled id meets an earlier one at odds of 2^-40 per pair sharing
    -- its low bits; the statement then fails whole, where ON CONFLICT
    -- would have kept the name seen and never queued it.)
    INSERT INTO todo (project_id, queue, type, site, id, name)
    SELECT @project_id, @queue, queue_type(@queue::text, batch.name, project_limited_types(@project_id), project_site(@project_id, batch.site)),
           project_site(@project_id, batch.site), batch.id, batch.name
    FROM fresh JOIN batch ON batch.id = fresh.id
    ORDER BY batch.id
    RETURNING todo.id, todo.type, todo.site
), queued_again AS (
    INSERT INTO todo (project_id, queue, type, site, id, name)
    SELECT @project_id, @queue, queue_type(@queue::text, again.name, project_limited_types(@project_id), project_site(@project_id, again.site)),
           project_site(@project_id, again.site), again.id, again.name
    FROM again
    -- Two posts may queue one seen name again at once: the key holds it once.
    ON CONFLICT DO NOTHING
    RETURNING todo.id, todo.type, todo.site
), queued AS (
    SELECT queued_fresh.id FROM queued_fresh
    UNION ALL
    SELECT queued_again.id FROM queued_again
), backfed_again AS (
    -- Those queued again that a recrawl would not have queued.
    SELECT count(*) AS n FROM queued_again JOIN again ON again.id = queued_again.id WHERE again.skipped
), tagged AS (
    INSERT INTO item_tags AS it (project_id, id, tag)
    SELECT @project_id, e.id, e.tag FROM entering e
    WHERE e.tag <> '' AND e.id IN (SELECT queued.id FROM queued)
    ON CONFLICT (project_id, id) DO UPDATE SET tag = excluded.tag
), params_kept AS (
    -- The document as the tracker encoded it is what an answer sends: its
    -- length is the bytes a claim counts (see item_params.bytes).
    INSERT INTO item_params (project_id, id, params, bytes)
    SELECT @project_id, batch.id, batch.params::jsonb, octet_length(batch.params)
    FROM fresh JOIN batch ON batch.id = fresh.id
    WHERE batch.params <> ''
), batch_recorded AS (
    -- Tests may reuse a block: the first batch keeps it.
    INSERT INTO item_batches (project_id, block, source, queue, shard)
    SELECT @project_id, @id_block::bigint, @source::text, @queue::text, @shard::text
    WHERE NOT @shuffle::boolean AND EXISTS (SELECT 1 FROM queued_fresh)
    ON CONFLICT DO NOTHING
