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
WITH -- include: todo_add_batch
), -- include: todo_add_seen
), -- include: todo_add_queued
), counter_deltas AS (
    SELECT 'queue:' || @queue::text AS name, (SELECT count(*) FROM queued) AS delta
    UNION ALL SELECT 'recrawled', (SELECT count(*) FROM queued_again) - (SELECT backfed_again.n FROM backfed_again)
    UNION ALL SELECT 'backfed_again', (SELECT backfed_again.n FROM backfed_again)
), counted AS (
    -- include: counters_add
), site_deltas AS (
    SELECT q.site, 1 AS queued, 0 AS out, NULL::text AS holder
    FROM (SELECT queued_fresh.site, queued_fresh.type FROM queued_fresh
          UNION ALL SELECT queued_again.site, queued_again.type FROM queued_again) q
    WHERE q.type = ':site'
), -- include: sites_count
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
), -- include: sites_count
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
), -- include: moved_requeued
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
    -- if citus
    -- By key: Citus takes no subquery that skips locked rows into a
    -- delete, so a move of picked items waits for a claim holding one.
    WHERE todo.project_id = @project_id AND todo.queue = @from_queue::text
      AND todo.type = ANY(project_limited_types(@project_id) || ARRAY['', ':site'])
      AND todo.id = ANY(@ids::bigint[]) AND todo.name = ANY(@names::text[])
    -- else
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
    -- end if
    RETURNING todo.id, todo.name, todo.type, todo.site, todo.claim_count, todo.last_downloader, todo.last_ip
), -- include: moved_requeued
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
 -- include: browse_search
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
 -- include: browse_search
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
    -- include: counters_add
), site_deltas AS (
    SELECT taken.site, -1 AS queued, 0 AS out, NULL::text AS holder FROM taken WHERE taken.type = ':site'
    UNION ALL SELECT claimed.site, 0, 1, claimed.downloader FROM claimed
), -- include: sites_count
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
