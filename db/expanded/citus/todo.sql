-- name: TodoAddUnseen :one
-- Queues the names of a batch that the project has never seen (repeats
-- within the batch included) and returns how many it queued. @names are
-- the names; beside each, at its place in the arrays that follow (each as
-- long as @names, or no array at all):
--   @keys    what it is deduplicated on (backfeed's KEY, when it differs
--            from the item queued; NULL or no array: the name itself),
--            within shard @shard (empty: the project's default scope; see
--            item_key_hash);
--   @params  its parameters document ('' or no array: none), kept for the
--            items queued;
--   @sites   its site (0 or no array: none; kept only while the project
--            keeps sites);
--   @tags    its update tag ('' or no array: none).
-- Ids are the batch's block (@id_block, from ItemIDBlockNext) and each
-- name's position, so a queue hands items out as they were imported (or,
-- with @shuffle, in an order of their own: a random high part above the
-- id's low bits keeps them unique), while the seen index is written in
-- hash order: sorted batches touch far fewer index pages. Items of a type
-- the project limits get their own stretch of the queue, items with a site
-- the stretch ':site' (project_limited_types, project_site: the
-- configuration as it is now, under ProjectStretchesShare). Seen records
-- the item's own hash only when it differs from the key's. A batch that
-- queues new items is recorded in item_batches with its @source, queue
-- and shard (not in random order, whose ids do not lead back to their
-- block): when and how its items were first queued.
--
-- With @recrawl_after (seconds; 0: off), a name seen before is queued
-- again, under its own id, when its item is neither queued (in @queues)
-- nor out nor waiting for its next visit, and either its last hand-out is
-- older than that or it comes with an update tag other than the one it
-- was queued with last. With @skip_seen (a backfeed post's skipbloom=1),
-- such a name is queued again whatever its last hand-out and tag:
-- returned as again, and counted as 'backfed_again', are those queued
-- again only because of it (not those a recrawl queues anyway).
--
-- What it does, in this order (every part sees the tables as they were
-- when the statement began):
--   1. hashes the batch and numbers it (batch);
--   2. records the names new to the project as seen (fresh) and, when it
--      recrawls or skips the seen check, finds those seen before that are
--      to be queued again (again);
--   3. queues both (queued_fresh, queued_again; queued), counts those
--      queued again only for skip_seen (backfed_again), keeps the tags of
--      the items queued (entering, tagged) and the parameters of the new
--      ones (params_kept), and records the batch (batch_recorded);
--   4. adjusts the project's counters (counter_deltas, added by the
--      fragment counters_add: counted) and the counts of the sites of the
--      items queued (site_deltas, counted by the fragment sites_count:
--      site_sums, sites_locked, sites_counted).
WITH batch AS MATERIALIZED (
    SELECT b.name, item_key_hash(@shard::text, coalesce(b.key, b.name)) AS hash,
           CASE WHEN b.key IS NULL AND @shard::text = '' THEN NULL ELSE item_hash(b.name) END AS item,
           CASE WHEN @shuffle::boolean
                -- The id seen drew for a new name (SeenAddBatch, which draws
                -- them: @fresh_ids empty there), by its low 20 bits, its
                -- place in the batch; a name seen before draws one unused.
                THEN coalesce((SELECT f.id FROM unnest(@fresh_ids::bigint[]) AS f (id) WHERE f.id & 1048575 = b.ord),
                              (floor(random() * 1099511627776)::bigint << 23) | (((@id_block::bigint << 20) | b.ord) & 8388607))
                ELSE (@id_block::bigint << 20) | b.ord END AS id,
           b.params, coalesce(b.site, 0) AS site, coalesce(b.tag, '') AS tag
    -- The arrays side by side: a missing one reads as NULLs.
    FROM ROWS FROM (unnest(@names::text[]), unnest(@keys::text[]), unnest(@params::text[]), unnest(@sites::integer[]), unnest(@tags::text[]))
         WITH ORDINALITY AS b (name, key, params, site, tag, ord)
), fresh AS (
    -- Recorded before, on every worker (SeenAddBatch): seen is spread over
    -- them, and this statement runs on the project's.
    SELECT f.id FROM unnest(@fresh_ids::bigint[]) AS f (id)
), again AS (
    -- Seen before this statement (a name new to it is in fresh instead).
    -- Nothing is read unless the project recrawls or the post skips the
    -- seen check.
    SELECT DISTINCT ON (seen.id) seen.id, batch.name, batch.site, batch.tag, NOT due.recrawl AS skipped
    -- The keys seen before, read from every worker first (SeenOfBatch).
    FROM batch JOIN ROWS FROM (unnest(@seen_hashes::bytea[]), unnest(@seen_ids::bigint[])) AS seen (hash, id) ON seen.hash = batch.hash
    -- Whether a recrawl queues it anyway: read only when the project
    -- recrawls (AND stops at its first false); never null (no completion:
    -- not due).
    CROSS JOIN LATERAL (SELECT coalesce(@recrawl_after::bigint > 0
      AND ((batch.tag <> '' AND batch.tag IS DISTINCT FROM (SELECT it.tag FROM item_tags it WHERE it.project_id = @project_id AND it.id = seen.id))
           OR (SELECT max(d.claimed_at) FROM done d WHERE d.project_id = @project_id AND d.id = seen.id)
              < now() - make_interval(secs => @recrawl_after::bigint)), false) AS recrawl) AS due
    WHERE (@recrawl_after::bigint > 0 OR @skip_seen::boolean)
      AND NOT EXISTS (SELECT 1 FROM claims c WHERE c.hash = item_hash(batch.name) AND c.project_id = @project_id)
      AND NOT EXISTS (SELECT 1 FROM todo t WHERE t.project_id = @project_id AND t.queue = ANY(@queues::text[])
                      AND t.type = ANY(project_limited_types(@project_id) || ARRAY['', ':site']) AND t.id = seen.id)
      -- Nor waiting for its next visit: a recurring project's schedule is
      -- the item's only way back (a project recrawling before it became
      -- recurring may still meet such items).
      AND NOT EXISTS (SELECT 1 FROM revisits r WHERE r.project_id = @project_id AND r.id = seen.id)
      AND (@skip_seen::boolean OR due.recrawl)
    ORDER BY seen.id, batch.id
), entering AS (
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
), counter_deltas AS (
    SELECT 'queue:' || @queue::text AS name, (SELECT count(*) FROM queued) AS delta
    UNION ALL SELECT 'recrawled', (SELECT count(*) FROM queued_again) - (SELECT backfed_again.n FROM backfed_again)
    UNION ALL SELECT 'backfed_again', (SELECT backfed_again.n FROM backfed_again)
), counted AS (
    INSERT INTO counters AS c (project_id, name, shard, value)
    SELECT @project_id, d.name, counter_shard(), LEAST(sum(d.delta), 9223372036854775807)::bigint
    FROM counter_deltas d
    GROUP BY d.name
    HAVING sum(d.delta) <> 0
    ORDER BY d.name
    ON CONFLICT (project_id, name, shard) DO UPDATE
    SET value = CASE WHEN excluded.value > 0 AND c.value > 9223372036854775807 - excluded.value THEN 9223372036854775807 ELSE c.value + excluded.value END
), site_deltas AS (
    SELECT q.site, 1 AS queued, 0 AS out, NULL::text AS holder
    FROM (SELECT queued_fresh.site, queued_fresh.type FROM queued_fresh
          UNION ALL SELECT queued_again.site, queued_again.type FROM queued_again) q
    WHERE q.type = ':site'
), site_sums AS (
    SELECT x.site, sum(x.queued)::bigint AS queued, sum(x.out)::integer AS out, min(x.holder) AS holder
    FROM site_deltas x
    WHERE x.site <> 0
    GROUP BY x.site
    HAVING sum(x.queued) <> 0 OR sum(x.out) <> 0
), sites_locked AS (
    SELECT s.id FROM sites s
    WHERE s.project_id = @project_id AND s.id = ANY(ARRAY(SELECT d.site FROM site_sums d))
    ORDER BY s.id
    FOR UPDATE
), sites_counted AS (
    UPDATE sites s
    SET queued = s.queued + d.queued, out = s.out + d.out,
        at_limit = s.at_limit AND d.out >= 0,
        downloader = CASE WHEN d.out > 0 AND s.out = 0 THEN d.holder ELSE s.downloader END
    FROM site_sums d
    WHERE s.project_id = @project_id AND s.id = d.site
      AND (SELECT count(*) FROM sites_locked) >= 0 /* after */
)
SELECT (SELECT count(*) FROM queued) AS queued, (SELECT backfed_again.n FROM backfed_again) AS again;

-- name: TodoMove :one
-- Moves up to @max items of queue @from_queue whose names start with
-- @prefix and match the regular expression @pattern (each when not empty)
-- to queue @to_queue, or, when @to_queue is empty, drops them (a drained
-- queue: the items stay seen, so they are not queued again), as
-- moved_requeued says. Returns how many.
WITH moved AS (
    DELETE FROM todo
    WHERE todo.project_id = @project_id AND ctid = ANY(ARRAY(
        SELECT t.ctid FROM todo t
        WHERE t.project_id = @project_id AND t.queue = @from_queue::text
          AND (@prefix::text = '' OR starts_with(t.name, @prefix::text))
          AND (@pattern::text = '' OR t.name ~ @pattern::text)
        LIMIT @max
        FOR UPDATE SKIP LOCKED
    ))
    RETURNING todo.id, todo.name, todo.type, todo.site, todo.claim_count, todo.last_downloader, todo.last_ip
), queued AS (
    INSERT INTO todo (project_id, queue, type, site, id, name, claim_count, last_downloader, last_ip)
    SELECT @project_id, @to_queue::text,
           queue_type(@to_queue::text, moved.name, project_limited_types(@project_id), project_site(@project_id, moved.site)),
           project_site(@project_id, moved.site), moved.id, moved.name,
           CASE WHEN @from_queue::text = 'error' THEN 0 ELSE moved.claim_count END,
           moved.last_downloader, moved.last_ip
    FROM moved
    WHERE @to_queue::text <> ''
    ON CONFLICT DO NOTHING
    RETURNING todo.type, todo.site
), revived AS (
    -- Each a probe of the key, as below.
    DELETE FROM item_scores
    WHERE @from_queue::text = 'retired' AND @to_queue::text <> ''
      AND item_scores.project_id = @project_id AND item_scores.id = ANY(ARRAY(SELECT moved.id FROM moved))
), dropped AS (
    SELECT moved.id FROM moved
    WHERE @to_queue::text = ''
      AND (EXISTS (SELECT 1 FROM item_params x WHERE x.project_id = @project_id)
           OR EXISTS (SELECT 1 FROM item_scores x WHERE x.project_id = @project_id))
      AND NOT EXISTS (SELECT 1 FROM todo t
                      WHERE t.project_id = @project_id AND t.queue = ANY(@queues::text[]) AND t.type = ANY(@types::text[])
                        AND t.id = moved.id AND t.queue <> @from_queue::text)
      AND NOT EXISTS (SELECT 1 FROM claims c WHERE c.hash = item_hash(moved.name) AND c.project_id = @project_id)
      AND NOT EXISTS (SELECT 1 FROM revisits r WHERE r.project_id = @project_id AND r.id = moved.id)
      -- A probe of each day for each (a fence).
      AND NOT EXISTS (SELECT 1 FROM done d WHERE d.project_id = @project_id AND d.id = moved.id OFFSET 0 /* fence */)
), unparamed AS (
    DELETE FROM item_params
    WHERE item_params.project_id = @project_id AND item_params.id = ANY(ARRAY(SELECT dropped.id FROM dropped))
), unscored AS (
    DELETE FROM item_scores
    WHERE item_scores.project_id = @project_id AND item_scores.id = ANY(ARRAY(SELECT dropped.id FROM dropped))
), counter_deltas AS (
    -- Nothing is queued when the items are dropped (@to_queue empty).
    SELECT 'queue:' || @from_queue::text AS name, -(SELECT count(*) FROM moved) AS delta
    UNION ALL SELECT 'queue:' || @to_queue::text, count(*) FROM queued
    UNION ALL SELECT 'requeued', count(*) FROM queued
    UNION ALL SELECT 'dropped', (SELECT count(*) FROM moved) - (SELECT count(*) FROM queued)
), counted AS (
    INSERT INTO counters AS c (project_id, name, shard, value)
    SELECT @project_id, d.name, counter_shard(), LEAST(sum(d.delta), 9223372036854775807)::bigint
    FROM counter_deltas d
    GROUP BY d.name
    HAVING sum(d.delta) <> 0
    ORDER BY d.name
    ON CONFLICT (project_id, name, shard) DO UPDATE
    SET value = CASE WHEN excluded.value > 0 AND c.value > 9223372036854775807 - excluded.value THEN 9223372036854775807 ELSE c.value + excluded.value END
), site_deltas AS (
    SELECT moved.site, -1 AS queued, 0 AS out, NULL::text AS holder FROM moved WHERE moved.type = ':site'
    UNION ALL SELECT queued.site, 1, 0, NULL FROM queued WHERE queued.type = ':site'
), site_sums AS (
    SELECT x.site, sum(x.queued)::bigint AS queued, sum(x.out)::integer AS out, min(x.holder) AS holder
    FROM site_deltas x
    WHERE x.site <> 0
    GROUP BY x.site
    HAVING sum(x.queued) <> 0 OR sum(x.out) <> 0
), sites_locked AS (
    SELECT s.id FROM sites s
    WHERE s.project_id = @project_id AND s.id = ANY(ARRAY(SELECT d.site FROM site_sums d))
    ORDER BY s.id
    FOR UPDATE
), sites_counted AS (
    UPDATE sites s
    SET queued = s.queued + d.queued, out = s.out + d.out,
        at_limit = s.at_limit AND d.out >= 0,
        downloader = CASE WHEN d.out > 0 AND s.out = 0 THEN d.holder ELSE s.downloader END
    FROM site_sums d
    WHERE s.project_id = @project_id AND s.id = d.site
      AND (SELECT count(*) FROM sites_locked) >= 0 /* after */
)
SELECT count(*) FROM moved;

-- name: TodoMoveItems :one
-- TodoMove for the items an admin picked: those of @ids (found from their
-- names through seen) whose names are in @names, each a probe of todo's
-- key in queue @from_queue, stretch by stretch (a fence), never a read of
-- the queue.
-- The rest is TodoMove's: to @to_queue, or dropped when it is empty.
WITH moved AS (
    DELETE FROM todo
    -- By key: Citus takes no subquery that skips locked rows into a
    -- delete, so a move of picked items waits for a claim holding one.
    WHERE todo.project_id = @project_id AND todo.queue = @from_queue::text
      AND todo.type = ANY(project_limited_types(@project_id) || ARRAY['', ':site'])
      AND todo.id = ANY(@ids::bigint[]) AND todo.name = ANY(@names::text[])
    RETURNING todo.id, todo.name, todo.type, todo.site, todo.claim_count, todo.last_downloader, todo.last_ip
), queued AS (
    INSERT INTO todo (project_id, queue, type, site, id, name, claim_count, last_downloader, last_ip)
    SELECT @project_id, @to_queue::text,
           queue_type(@to_queue::text, moved.name, project_limited_types(@project_id), project_site(@project_id, moved.site)),
           project_site(@project_id, moved.site), moved.id, moved.name,
           CASE WHEN @from_queue::text = 'error' THEN 0 ELSE moved.claim_count END,
           moved.last_downloader, moved.last_ip
    FROM moved
    WHERE @to_queue::text <> ''
    ON CONFLICT DO NOTHING
    RETURNING todo.type, todo.site
), revived AS (
    -- Each a probe of the key, as below.
    DELETE FROM item_scores
    WHERE @from_queue::text = 'retired' AND @to_queue::text <> ''
      AND item_scores.project_id = @project_id AND item_scores.id = ANY(ARRAY(SELECT moved.id FROM moved))
), dropped AS (
    SELECT moved.id FROM moved
    WHERE @to_queue::text = ''
      AND (EXISTS (SELECT 1 FROM item_params x WHERE x.project_id = @project_id)
           OR EXISTS (SELECT 1 FROM item_scores x WHERE x.project_id = @project_id))
      AND NOT EXISTS (SELECT 1 FROM todo t
                      WHERE t.project_id = @project_id AND t.queue = ANY(@queues::text[]) AND t.type = ANY(@types::text[])
                        AND t.id = moved.id AND t.queue <> @from_queue::text)
      AND NOT EXISTS (SELECT 1 FROM claims c WHERE c.hash = item_hash(moved.name) AND c.project_id = @project_id)
      AND NOT EXISTS (SELECT 1 FROM revisits r WHERE r.project_id = @project_id AND r.id = moved.id)
      -- A probe of each day for each (a fence).
      AND NOT EXISTS (SELECT 1 FROM done d WHERE d.project_id = @project_id AND d.id = moved.id OFFSET 0 /* fence */)
), unparamed AS (
    DELETE FROM item_params
    WHERE item_params.project_id = @project_id AND item_params.id = ANY(ARRAY(SELECT dropped.id FROM dropped))
), unscored AS (
    DELETE FROM item_scores
    WHERE item_scores.project_id = @project_id AND item_scores.id = ANY(ARRAY(SELECT dropped.id FROM dropped))
), counter_deltas AS (
    -- Nothing is queued when the items are dropped (@to_queue empty).
    SELECT 'queue:' || @from_queue::text AS name, -(SELECT count(*) FROM moved) AS delta
    UNION ALL SELECT 'queue:' || @to_queue::text, count(*) FROM queued
    UNION ALL SELECT 'requeued', count(*) FROM queued
    UNION ALL SELECT 'dropped', (SELECT count(*) FROM moved) - (SELECT count(*) FROM queued)
), counted AS (
    INSERT INTO counters AS c (project_id, name, shard, value)
    SELECT @project_id, d.name, counter_shard(), LEAST(sum(d.delta), 9223372036854775807)::bigint
    FROM counter_deltas d
    GROUP BY d.name
    HAVING sum(d.delta) <> 0
    ORDER BY d.name
    ON CONFLICT (project_id, name, shard) DO UPDATE
    SET value = CASE WHEN excluded.value > 0 AND c.value > 9223372036854775807 - excluded.value THEN 9223372036854775807 ELSE c.value + excluded.value END
), site_deltas AS (
    SELECT moved.site, -1 AS queued, 0 AS out, NULL::text AS holder FROM moved WHERE moved.type = ':site'
    UNION ALL SELECT queued.site, 1, 0, NULL FROM queued WHERE queued.type = ':site'
), site_sums AS (
    SELECT x.site, sum(x.queued)::bigint AS queued, sum(x.out)::integer AS out, min(x.holder) AS holder
    FROM site_deltas x
    WHERE x.site <> 0
    GROUP BY x.site
    HAVING sum(x.queued) <> 0 OR sum(x.out) <> 0
), sites_locked AS (
    SELECT s.id FROM sites s
    WHERE s.project_id = @project_id AND s.id = ANY(ARRAY(SELECT d.site FROM site_sums d))
    ORDER BY s.id
    FOR UPDATE
), sites_counted AS (
    UPDATE sites s
    SET queued = s.queued + d.queued, out = s.out + d.out,
        at_limit = s.at_limit AND d.out >= 0,
        downloader = CASE WHEN d.out > 0 AND s.out = 0 THEN d.holder ELSE s.downloader END
    FROM site_sums d
    WHERE s.project_id = @project_id AND s.id = d.site
      AND (SELECT count(*) FROM sites_locked) >= 0 /* after */
)
SELECT count(*) FROM moved;

