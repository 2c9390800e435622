-- name: DoneGet :one
-- The completion of an item, newest first should it have several.
SELECT * FROM done WHERE project_id = @project_id AND id = @id ORDER BY done_at DESC LIMIT 1;

-- name: DoneRecordBatch :many
-- Completes the done requests of a batch in one statement. @requests holds
-- a row per request (done_request: who reported, their bytes, the items
-- reported, their results and outcomes, by item name up to its context); a
-- request is known by its place in it, 1 for the first. An item is
-- completed for the first request of the batch whose downloader holds its
-- claim or held it last (before a reclaim handed it to someone else, or
-- while it waits in its queue again after its claim expired or was
-- released): they did the work. Anyone else's done for an item claimed or
-- queued completes nothing and is counted ('done_not_held'); items neither
-- claimed nor queued (a repeated done) are ignored. A request naming an
-- item under its holder's (or last holder's) nick from another network
-- than that holder claimed it from (same_network: its /24, its /48) is
-- counted ('done_other_network'); with @claimer_network it completes
-- nothing, as a stranger's, and without, a request from the holder's
-- network is preferred to it. A queued item is
-- looked for in @queues and @types (the standard queues and the reporters'
-- own, the project's stretches), in those of them that hold items, unless
-- it waits for its next visit. In a @recurring project a completion
-- schedules the item's next visit @revisit_after on: its score is
-- multiplied by the factor reported for it (1 when none), and an item
-- whose score falls below @retire_below retires instead (the queue
-- 'retired').
--
-- What it does, in this order (every part sees the tables as they were
-- when the statement began):
--   1. reads who holds each item reported: its claim (claimed), or for an
--      item nobody holds (unclaimed), its id (unclaimed_ids), whether it
--      waits for its next visit (unscheduled: those that do not), the
--      stretches holding items (probed) and its queue row there (queued),
--      each locked;
--   2. decides which request each item is completed for (claimed_by,
--      claimed_for, queued_by, queued_for), which requests reported items
--      held for someone else (refused) and which reported them from
--      another network than their holder's (away);
--   3. takes the items completed out of claims and queues
--      (taken_from_claims, taken_from_queues);
--   4. shares each request's bytes out over its items completed, so the
--      shares add up to its total, and records the completions with their
--      results (completions, recorded);
--   5. in a recurring project, rescores the items and schedules their
--      next visit or retires them (rescored, scores_kept, scheduled,
--      retired);
--   6. counts the completions of the items' sites (site_counts,
--      sites_counted), appends the downloaders' tallies with the live
--      log's names and User-Agent (tallied) and adjusts the project's
--      counters by what moved (counter_deltas, added by the fragment
--      counters_add: counted).
-- Returns, per request that completed, was refused or came from another
-- network for something, how many items it completed, how many it was
-- refused as another downloader's and how many it named from another
-- network than their holder's (completed or not).
WITH requests AS (
    SELECT r.req::integer AS req, r.downloader, r.version, r.bytes, r.domains, r.client_id, r.ip, r.user_agent, r.names, r.results, r.factors
    FROM unnest(@requests::done_request[]) WITH ORDINALITY AS r (downloader, version, bytes, domains, client_id, ip, user_agent, names, results, factors, req)
), -- include: done_claimed
), -- include: done_queued
), -- include: done_refused
), -- include: done_taken
), -- include: done_recorded
), -- include: done_rescheduled
), -- include: done_tallied
), counted AS (
    -- include: counters_add
)
SELECT o.req::integer AS req, count(*) FILTER (WHERE o.kind = 'completed') AS completed,
       count(*) FILTER (WHERE o.kind = 'refused') AS refused, count(*) FILTER (WHERE o.kind = 'away') AS away
FROM (SELECT completions.req, 'completed' AS kind FROM completions
      UNION ALL SELECT refused.req, 'refused' FROM refused
      UNION ALL SELECT away.req, 'away' FROM away) o
GROUP BY o.req;

-- name: DoneRequeue :one
-- Queues again, in queue @queue, up to @max completed items (archived ones
-- are out of reach) whose names start with @prefix and match @pattern
-- (each when not empty) and whose id is above @after_id, in id order; an
-- item claimed or queued already is left alone, and one waiting for its
-- next visit (a recurring project's) is visited now instead. Returns how
-- many were queued and the last id looked at (0 when none). An item queued
-- again starts a fresh count of hand-outs, as a recrawled or revisited one
-- does: max_claims counts the hand-outs of this round of work.
WITH candidates AS (
    -- Under the name of its latest completion (a recrawl may have queued
    -- it with another context since).
    SELECT DISTINCT ON (d.id) d.id, d.name, d.site FROM done d
    WHERE d.project_id = @project_id AND d.id > @after_id
      AND (@prefix::text = '' OR starts_with(d.name, @prefix::text))
      AND (@pattern::text = '' OR d.name ~ @pattern::text)
    ORDER BY d.id, d.done_at DESC
    LIMIT @max
), -- include: done_requeued
)
SELECT (SELECT count(*) FROM queued)::bigint AS queued, coalesce((SELECT max(id) FROM candidates), 0)::bigint AS last_id;

-- name: BooksDoneCount :one
-- The books: the completions in the hot table.
SELECT count(*) FROM done WHERE project_id = @project_id;

-- name: BooksDoneBytes :one
-- The books: the bytes of the completions in the hot table, saturated at
-- the largest bigint like the totals it is checked against.
SELECT LEAST(coalesce(sum(bytes), 0), 9223372036854775807)::bigint AS bytes FROM done WHERE project_id = @project_id;

-- name: DoneCountWhere :one
-- How many completed items DoneRequeue would look at (items claimed or
-- queued again meanwhile are left alone then): the admin panel says so
-- before it does.
SELECT count(DISTINCT d.id) FROM done d
WHERE d.project_id = @project_id
  AND (@prefix::text = '' OR starts_with(d.name, @prefix::text))
  AND (@pattern::text = '' OR d.name ~ @pattern::text);

-- name: DoneCountItems :one
-- How many of the items of @ids named in @names are completed in the hot
-- table (what DoneRequeueItems would look at).
SELECT count(DISTINCT d.id) FROM unnest(@ids::bigint[]) i (id), LATERAL (
    SELECT x.id FROM done x
    WHERE x.project_id = @project_id AND x.id = i.id AND x.name = ANY(@names::text[])
    OFFSET 0 /* fence */) d;

-- name: DoneRequeueItems :one
-- DoneRequeue for the items an admin picked: those of @ids completed under
-- a name in @names, each a probe of done_project_id_id. Returns how many
-- were queued.
WITH candidates AS (
    SELECT DISTINCT ON (d.id) d.id, d.name, d.site
    FROM unnest(@ids::bigint[]) i (id), LATERAL (
        SELECT x.id, x.name, x.site, x.done_at FROM done x
        WHERE x.project_id = @project_id AND x.id = i.id AND x.name = ANY(@names::text[])
        OFFSET 0 /* fence */) d
    ORDER BY d.id, d.done_at DESC
), -- include: done_requeued
)
SELECT count(*) FROM queued;

-- name: DoneOfItem :many
-- An item's completions in the hot table, newest first: its visits, in a
-- recurring project.
SELECT downloader, version, bytes, domains::text AS domains, claimed_at, done_at, claim_count, ip,
       coalesce(result::text, '')::text AS result
FROM done
WHERE project_id = @project_id AND id = @id
ORDER BY done_at DESC
LIMIT @max;

-- name: DoneBrowse :many
-- A page of a project's completed items for the admin panel, in id order
-- after item @after_id, each with its latest completion: up to @max of the
-- first @scan items there whose names start with @prefix, contain
-- @contains and match @pattern (each when set); a last row, edge, holds
-- the last id read and how many were (scanned). On done_project_id_id.
WITH win AS MATERIALIZED (
    SELECT DISTINCT ON (d.id) d.id, d.name, d.downloader, d.done_at, d.bytes FROM done d
    WHERE d.project_id = @project_id AND d.id > @after_id::bigint
    ORDER BY d.id, d.done_at DESC
    LIMIT @scan::integer
)
(SELECT w.id, w.name, w.downloader, w.done_at, w.bytes, false AS edge, 0::bigint AS scanned
 FROM win w
 -- include: browse_search
 ORDER BY w.id
 LIMIT @max::integer)
UNION ALL
(SELECT w.id, '', '', w.done_at, 0::bigint, true, (SELECT count(*) FROM win)
 FROM win w ORDER BY w.id DESC LIMIT 1);

-- name: DoneBrowseBack :many
-- DoneBrowse backwards: the page before item @before_id, last item first
-- (the edge row holds the first id read).
WITH win AS MATERIALIZED (
    SELECT DISTINCT ON (d.id) d.id, d.name, d.downloader, d.done_at, d.bytes FROM done d
    WHERE d.project_id = @project_id AND d.id < @before_id::bigint
    ORDER BY d.id DESC, d.done_at DESC
    LIMIT @scan::integer
)
(SELECT w.id, w.name, w.downloader, w.done_at, w.bytes, false AS edge, 0::bigint AS scanned
 FROM win w
 -- include: browse_search
 ORDER BY w.id DESC
 LIMIT @max::integer)
UNION ALL
(SELECT w.id, '', '', w.done_at, 0::bigint, true, (SELECT count(*) FROM win)
 FROM win w ORDER BY w.id LIMIT 1);

-- name: DonePurgeBatch :execrows
-- Deletes the completions of up to @max of a deleting project's items (see
-- items.Engine.Purge). On Citus only, where done's partitions are days
-- every project shares; elsewhere the project's partitions are dropped
-- whole (DonePartitionsDrop).
DELETE FROM done WHERE done.project_id = @project_id
  AND done.id = ANY(ARRAY(SELECT d.id FROM done d WHERE d.project_id = @project_id LIMIT @max));
