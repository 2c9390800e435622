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
                THEN (floor(random() * 1099511627776)::bigint << 23) | (((@id_block::bigint << 20) | b.ord) & 8388607)
                ELSE (@id_block::bigint << 20) | b.ord END AS id,
           b.params, coalesce(b.site, 0) AS site, coalesce(b.tag, '') AS tag
    -- The arrays side by side: a missing one reads as NULLs.
    FROM ROWS FROM (unnest(@names::text[]), unnest(@keys::text[]), unnest(@params::text[]), unnest(@sites::integer[]), unnest(@tags::text[]))
         WITH ORDINALITY AS b (name, key, params, site, tag, ord)
), fresh AS (
    INSERT INTO seen (project_id, hash, id, item)
    SELECT @project_id, batch.hash, batch.id, nullif(batch.item, batch.hash) FROM batch ORDER BY batch.hash
    ON CONFLICT DO NOTHING
    RETURNING seen.id
), again AS (
    -- Seen before this statement (a name new to it is in fresh instead).
    -- Nothing is read unless the project recrawls or the post skips the
    -- seen check.
    SELECT DISTINCT ON (seen.id) seen.id, batch.name, batch.site, batch.tag, NOT due.recrawl AS skipped
    FROM batch JOIN seen ON seen.project_id = @project_id AND seen.hash = batch.hash
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

-- name: TodoRetype :exec
-- Regroups a project's queued items after its per-type limits changed.
-- Items with a site stay in the stretch ':site', where the sites count
-- them: the limits never move an item into it or out of it. The limits are
-- read once, in FROM: Citus runs an UPDATE on a worker only when no
-- function it cannot evaluate on the coordinator sits inside a CASE of its
-- SET list (queue_type is one).
UPDATE todo
SET type = queue_type(todo.queue, todo.name, lt.types, todo.site)
FROM (SELECT project_limited_types(@project_id) AS types) lt
WHERE todo.project_id = @project_id
  AND todo.type IS DISTINCT FROM queue_type(todo.queue, todo.name, lt.types, todo.site)
  AND todo.type <> ':site' AND queue_type(todo.queue, todo.name, lt.types, todo.site) <> ':site';

-- name: TodoUnsite :exec
-- Forgets the sites of a project's queued items once it keeps none
-- (site_key off): they are served by the queue walks again, and their
-- sites no longer count them. The update reads each item's row a second
-- time (o) for the site it had: RETURNING gives only the new row. The
-- limits are read in FROM, as in TodoRetype.
WITH unsited AS (
    UPDATE todo t SET site = 0, type = queue_type(t.queue, t.name, lt.types, 0)
    FROM todo o, (SELECT project_limited_types(@project_id) AS types) lt
    WHERE t.project_id = @project_id AND t.type = ':site'
      AND o.project_id = @project_id AND o.queue = t.queue AND o.type = ':site' AND o.id = t.id
    RETURNING o.site
), site_deltas AS (
    SELECT unsited.site, -1 AS queued, 0 AS out, NULL::text AS holder FROM unsited
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
SELECT count(*) FROM unsited;

-- name: TodoGet :one
-- Finds a queued item by id in @queues, stretch by stretch as the project
-- files items now.
SELECT queue, claim_count, name FROM todo
WHERE project_id = @project_id AND queue = ANY(@queues::text[])
  AND type = ANY(project_limited_types(@project_id) || ARRAY['', ':site']) AND id = @id;

-- name: ItemIDBlockNext :one
-- A block of 2^20 item ids for one batch of names (see TodoAddUnseen).
SELECT nextval('item_id_blocks')::bigint AS block;

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
      AND item_scores.ctid = ANY(ARRAY(SELECT x.ctid FROM moved, LATERAL (
          SELECT s.ctid FROM item_scores s WHERE s.project_id = @project_id AND s.id = moved.id OFFSET 0 /* fence */) x))
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
    WHERE item_params.ctid = ANY(ARRAY(SELECT x.ctid FROM dropped, LATERAL (
        SELECT s.ctid FROM item_params s WHERE s.project_id = @project_id AND s.id = dropped.id OFFSET 0 /* fence */) x))
), unscored AS (
    DELETE FROM item_scores
    WHERE item_scores.ctid = ANY(ARRAY(SELECT x.ctid FROM dropped, LATERAL (
        SELECT s.ctid FROM item_scores s WHERE s.project_id = @project_id AND s.id = dropped.id OFFSET 0 /* fence */) x))
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
    WHERE todo.project_id = @project_id AND ctid = ANY(ARRAY(
        SELECT t.ctid
        FROM unnest(@ids::bigint[]) i (id), unnest(project_limited_types(@project_id) || ARRAY['', ':site']) ty (type),
             LATERAL (
                 SELECT x.ctid FROM todo x
                 WHERE x.project_id = @project_id AND x.queue = @from_queue::text AND x.type = ty.type AND x.id = i.id
                   AND x.name = ANY(@names::text[])
                 OFFSET 0 /* fence */
                 FOR UPDATE SKIP LOCKED) t
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
      AND item_scores.ctid = ANY(ARRAY(SELECT x.ctid FROM moved, LATERAL (
          SELECT s.ctid FROM item_scores s WHERE s.project_id = @project_id AND s.id = moved.id OFFSET 0 /* fence */) x))
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
    WHERE item_params.ctid = ANY(ARRAY(SELECT x.ctid FROM dropped, LATERAL (
        SELECT s.ctid FROM item_params s WHERE s.project_id = @project_id AND s.id = dropped.id OFFSET 0 /* fence */) x))
), unscored AS (
    DELETE FROM item_scores
    WHERE item_scores.ctid = ANY(ARRAY(SELECT x.ctid FROM dropped, LATERAL (
        SELECT s.ctid FROM item_scores s WHERE s.project_id = @project_id AND s.id = dropped.id OFFSET 0 /* fence */) x))
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

-- name: TodoCountItems :one
-- How many of the items TodoMoveItems would move are in queue @queue:
-- each a probe of the key, as there.
SELECT count(*)
FROM unnest(@ids::bigint[]) i (id), unnest(project_limited_types(@project_id) || ARRAY['', ':site']) ty (type),
     LATERAL (
         SELECT 1 FROM todo x
         WHERE x.project_id = @project_id AND x.queue = @queue::text AND x.type = ty.type AND x.id = i.id
           AND x.name = ANY(@names::text[])
         OFFSET 0 /* fence */) t;

-- name: TodoBrowse :many
-- A page of queue @queue for the admin panel's queue browser, in id order
-- after item @after_id: up to @max items of the first @scan the queue holds
-- there (each stretch read from its place in the key and merged by id, so
-- a page costs the same at the head of ten million items as of ten) whose
-- names start with @prefix, contain @contains and match the regular
-- expression @pattern (each when set). A last row, edge, holds the last
-- id read and how many were (scanned): a filter that matched nothing in
-- @scan items still moves the page on, and never reads the whole queue.
WITH win AS MATERIALIZED (
    SELECT w.id, w.name, w.claim_count, w.last_downloader
    FROM unnest(project_limited_types(@project_id) || ARRAY['', ':site']) AS s (type)
    CROSS JOIN LATERAL (
        SELECT t.id, t.name, t.claim_count, t.last_downloader FROM todo t
        WHERE t.project_id = @project_id AND t.queue = @queue::text AND t.type = s.type AND t.id > @after_id::bigint
        ORDER BY t.id
        LIMIT @scan::integer) w
    ORDER BY w.id
    LIMIT @scan::integer
)
(SELECT w.id, w.name, w.claim_count, coalesce(w.last_downloader, '')::text AS last_downloader, false AS edge, 0::bigint AS scanned
 FROM win w
 WHERE (@prefix::text = '' OR starts_with(w.name, @prefix::text))
   AND (@contains::text = '' OR strpos(w.name, @contains::text) > 0)
   AND (@pattern::text = '' OR w.name ~ @pattern::text)
 ORDER BY w.id
 LIMIT @max::integer)
UNION ALL
SELECT max(w.id)::bigint, '', 0, '', true, count(*) FROM win w HAVING count(*) > 0;

-- name: TodoBrowseBack :many
-- TodoBrowse backwards: the page before item @before_id, last item first
-- (the edge row holds the first id read).
WITH win AS MATERIALIZED (
    SELECT w.id, w.name, w.claim_count, w.last_downloader
    FROM unnest(project_limited_types(@project_id) || ARRAY['', ':site']) AS s (type)
    CROSS JOIN LATERAL (
        SELECT t.id, t.name, t.claim_count, t.last_downloader FROM todo t
        WHERE t.project_id = @project_id AND t.queue = @queue::text AND t.type = s.type AND t.id < @before_id::bigint
        ORDER BY t.id DESC
        LIMIT @scan::integer) w
    ORDER BY w.id DESC
    LIMIT @scan::integer
)
(SELECT w.id, w.name, w.claim_count, coalesce(w.last_downloader, '')::text AS last_downloader, false AS edge, 0::bigint AS scanned
 FROM win w
 WHERE (@prefix::text = '' OR starts_with(w.name, @prefix::text))
   AND (@contains::text = '' OR strpos(w.name, @contains::text) > 0)
   AND (@pattern::text = '' OR w.name ~ @pattern::text)
 ORDER BY w.id DESC
 LIMIT @max::integer)
UNION ALL
SELECT min(w.id)::bigint, '', 0, '', true, count(*) FROM win w HAVING count(*) > 0;

-- name: TodoClaimOne :one
-- Hands the queued item @id to @downloader, whatever its place: an admin
-- completing it by hand. Returns how many (0 or 1): none when the item
-- left the queue meanwhile, or while another copy of it (queued from
-- another backfeed shard) is out, since claims hold one item per name.
WITH taken AS (
    DELETE FROM todo
    WHERE todo.project_id = @project_id AND ctid = ANY(ARRAY(
        SELECT t.ctid FROM todo t
        WHERE t.project_id = @project_id AND t.queue = ANY(@queues::text[]) AND t.type = ANY(@types::text[])
          AND t.id = @id
          AND NOT EXISTS (SELECT 1 FROM claims c WHERE c.hash = item_hash(t.name) AND c.project_id = @project_id)
        LIMIT 1
        FOR UPDATE SKIP LOCKED
    ))
    RETURNING todo.id, todo.name, todo.queue, todo.type, todo.site, todo.claim_count
), claimed AS (
    INSERT INTO claims (project_id, hash, id, name, queue, site, downloader, claim_count)
    SELECT @project_id, item_hash(taken.name), taken.id, taken.name, taken.queue, taken.site, @downloader, taken.claim_count + 1
    FROM taken
    RETURNING claims.site, claims.downloader
), counter_deltas AS (
    SELECT 'claims' AS name, 1 AS delta FROM taken
    UNION ALL SELECT 'queue:' || taken.queue, -1 FROM taken
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
    SELECT taken.site, -1 AS queued, 0 AS out, NULL::text AS holder FROM taken WHERE taken.type = ':site'
    UNION ALL SELECT claimed.site, 0, 1, claimed.downloader FROM claimed
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
SELECT count(*) FROM taken;

-- name: TodoPurgeBatch :execrows
-- Deletes up to @max of a deleting project's rows (see items.Engine.Purge).
DELETE FROM todo WHERE todo.project_id = @project_id AND ctid = ANY(ARRAY(SELECT p.ctid FROM todo p WHERE p.project_id = @project_id LIMIT @max));

-- name: ItemTagsPurgeBatch :execrows
-- Deletes up to @max of a deleting project's update tags (see items.Engine.Purge).
DELETE FROM item_tags WHERE item_tags.project_id = @project_id AND ctid = ANY(ARRAY(SELECT p.ctid FROM item_tags p WHERE p.project_id = @project_id LIMIT @max));

-- name: BooksTodo :one
-- The books, in one read of the project's queues: the items queued, the
-- queue rows beyond the first of their item (0 when no item is queued
-- twice), and the items out of the stretch of their queue that their
-- queue, type and site put them in (see queue_type) or, in a project that
-- keeps no sites (not @sited), in the stretch ':site', which no walk of
-- such a project reads.
SELECT count(*) AS queued,
       (count(*) - count(DISTINCT t.id))::bigint AS duplicates,
       count(*) FILTER (WHERE t.type IS DISTINCT FROM queue_type(t.queue, t.name, @limited_types::text[], t.site)
                           OR (NOT @sited::boolean AND t.type = ':site')) AS out_of_stretch
FROM todo t
WHERE t.project_id = @project_id;

-- name: BooksTodoClaimedCount :one
-- The books: items queued and out at once.
SELECT count(*) FROM todo t JOIN claims c ON c.project_id = t.project_id AND c.id = t.id
WHERE t.project_id = @project_id;

-- name: TodoCountWhere :one
-- How many items of a queue TodoMove would move or drop: the admin panel
-- says so before it does.
SELECT count(*) FROM todo t
WHERE t.project_id = @project_id AND t.queue = @queue::text
  AND (@prefix::text = '' OR starts_with(t.name, @prefix::text))
  AND (@pattern::text = '' OR t.name ~ @pattern::text);

-- name: TodoPage :many
-- A page of a queue in order, after item @after_id, of names starting with
-- @prefix (when set): the error queue's items for the admin panel and
-- `tracker queue list`. On the primary key, each stretch of @types read
-- from its place and the stretches merged by id (one scan over them all
-- could only give ids in order by sorting the whole queue): a page costs
-- the same however long the queue.
SELECT p.id, p.name, p.claim_count, coalesce(p.last_downloader, '')::text AS last_downloader
FROM unnest(@types::text[]) AS s (type)
CROSS JOIN LATERAL (
    SELECT t.id, t.name, t.claim_count, t.last_downloader FROM todo t
    WHERE t.project_id = @project_id AND t.queue = @queue::text AND t.type = s.type
      AND t.id > @after_id
      AND (@prefix::text = '' OR starts_with(t.name, @prefix::text))
    ORDER BY t.id
    LIMIT @max) p
ORDER BY p.id
LIMIT @max;
