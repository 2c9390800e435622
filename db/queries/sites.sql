-- name: SitesAdd :exec
-- Makes a site row for each of @names the project has none for.
INSERT INTO sites (project_id, name)
SELECT @project_id, n.name FROM unnest(@names::text[]) AS n (name) ORDER BY n.name
ON CONFLICT (project_id, name) DO NOTHING;

-- name: SitesIDs :many
-- The ids of the project's sites named in @names.
SELECT id, name FROM sites WHERE project_id = @project_id AND name = ANY(@names::text[]);

-- name: SitesCount :exec
-- Adds @queued[i] items queued and @outs[i] items out to site @sites[i]
-- (@holders[i]: the downloader who took them, when they went out; '' or
-- none when none did), as every statement that moves items with a site
-- counts them: with db/fragments/sites_count.sql, the one way the sites'
-- counts are kept. (The hand-out, SitesTake, and the completion,
-- DoneRecordBatch, count their sites in the one update of each site they
-- make anyway.)
WITH site_deltas AS (
    SELECT x.site, (@queued::bigint[])[x.i] AS queued, (@outs::bigint[])[x.i] AS out, nullif((@holders::text[])[x.i], '') AS holder
    FROM unnest(@sites::integer[]) WITH ORDINALITY AS x (site, i)
), -- include: sites_count
)
SELECT count(*) FROM site_sums;

-- name: SitesDue :many
-- Up to @max sites a batch of requests may be served from, longest due
-- first, locked for the claim that follows (SitesTake; a site another
-- claim holds is skipped): sites with items queued, not blocked, under
-- their limit of items out and past their interval. With @affinity, a
-- site holding items out only when it holds them for one of @nicks.
-- Returns each site's items queued and out and the downloader holding
-- them ('' when none is out). A site is under its limit by @site_limit
-- (0: none), the project's limit now: at_limit was set under the limit of
-- the last hand-out, and a site over a lowered limit, taken first for
-- being due longest, would hold up every site behind it.
SELECT s.id, s.queued, s.out, CASE WHEN s.out > 0 THEN coalesce(s.downloader, '') ELSE '' END::text AS downloader FROM sites s
WHERE s.project_id = @project_id
  AND s.queued > 0 AND NOT s.blocked AND NOT s.at_limit -- the condition of sites_due
  AND (@site_limit::integer = 0 OR s.out < @site_limit::integer)
  -- The statement's own time, not the transaction's: SitesTake records
  -- the hand-out at its statement's time, after this one took the locks.
  AND s.due_at <= statement_timestamp()
  AND (NOT @affinity::boolean OR s.out = 0 OR s.downloader = ANY(@nicks::text[]))
ORDER BY s.due_at
LIMIT @max
FOR UPDATE SKIP LOCKED;

-- name: SitesHeld :many
-- How many sites each of @nicks holds items of.
SELECT downloader, count(DISTINCT site) AS sites FROM claims
WHERE project_id = @project_id AND downloader = ANY(@nicks::text[])
  AND claim_count > 0 -- the condition of claims_downloader
  AND site <> 0
GROUP BY downloader;

-- name: SitesNextDue :many
-- When the next site with items queued is due (no row: none waits but
-- those at their limit or blocked).
SELECT due_at FROM sites
WHERE project_id = @project_id
  AND queued > 0 AND NOT blocked AND NOT at_limit -- the condition of sites_due
  AND (@site_limit::integer = 0 OR out < @site_limit::integer)
ORDER BY due_at
LIMIT 1;

-- name: SitesTake :many
-- Hands out the items of sites SitesDue locked. @takes holds a row per
-- site (site_take): up to how many of its items go to which request (its
-- slot, returned with each item, the request's downloader, version and
-- address, and the bytes its answer carries already). A
-- site's items come from the downloader's own queue (with @own_queues:
-- some requester has one) and then from @queues in order, each in id
-- order. Every site named is paced: due again @interval on, and at its
-- limit when it now holds @site_limit items out (0: no limit). A
-- request's answer carries at most @budget bytes of names and parameters,
-- the sites in the order given: see ClaimsTakeSlots. A site whose items
-- were all cut so stays as it was, due.
--
-- What it does, in this order (every part sees the tables as they were
-- when the statement began):
--   1. finds each site's items in its queues, locked (locked), and which
--      of them fit in their request's answer (sized);
--   2. takes those out of the queues (taken) and claims them for their
--      requests (taken_for, claimed); an item whose name is out already
--      (a copy queued again from another backfeed shard: claims hold one
--      item per name) goes back to its queue (put_back);
--   3. paces each site and counts its items queued and out (paced: the
--      sites' counts follow from the rows moved, see SitesCount), and
--      adjusts the project's counters by the items claimed
--      (counter_deltas, added by the fragment counters_add: counted);
--   4. returns the items claimed, each with its slot and parameters, and
--      those cut.
-- The claims are made at this statement's time, which is after SitesDue
-- locked the sites and read their items out: a site's hand-outs, and its
-- items out at any moment, can be checked from the completions
-- afterwards (BooksSitesUnderInterval, BooksSitesOverLimit).
WITH takes AS (
    SELECT w.ord, w.site, w.items, w.slot, w.downloader, w.version, w.ip, w.carried
    FROM unnest(@takes::site_take[]) WITH ORDINALITY AS w (site, items, slot, downloader, version, ip, carried, ord)
), -- include: sites_take_sized
), -- include: sites_take_claimed
), paced AS (
    -- Locked by SitesDue: as it was before this statement. The one update
    -- of each site: its pace, its items queued and out, its holder (see
    -- SitesCount).
    UPDATE sites s
    SET due_at = statement_timestamp() + @interval::interval, last_at = statement_timestamp(),
        at_limit = @site_limit::integer > 0 AND s.out + c.n >= @site_limit::integer,
        queued = s.queued - c.n,
        out = s.out + c.n,
        downloader = CASE WHEN c.n > 0 AND s.out = 0 THEN c.downloader ELSE s.downloader END
    FROM (SELECT w.site, w.downloader, count(claimed.id) AS n
          FROM takes w LEFT JOIN claimed ON claimed.site = w.site
          -- A site whose items were all cut gave nothing: it stays due.
          WHERE EXISTS (SELECT 1 FROM sized WHERE sized.ord = w.ord AND sized.fits)
             OR NOT EXISTS (SELECT 1 FROM sized WHERE sized.ord = w.ord)
          GROUP BY w.site, w.downloader) c
    -- if citus
    -- By key: Citus plans no update by addresses, nor by a lateral join
    -- under it.
    WHERE s.project_id = @project_id AND s.id = ANY(ARRAY(SELECT DISTINCT w.site FROM takes w))
    -- else
    -- Each site a probe of its key, then its row by its physical address:
    -- a join could be planned as a read of all the project's sites.
    WHERE s.project_id = @project_id AND s.ctid = ANY(ARRAY(
            SELECT x.ctid FROM (SELECT DISTINCT w.site FROM takes w) ws,
                 LATERAL (SELECT y.ctid FROM sites y WHERE y.project_id = @project_id AND y.id = ws.site OFFSET 0 /* fence */) x))
    -- end if
      AND s.id = c.site
), counter_deltas AS (
    SELECT 'claims' AS name, 1 AS delta FROM claimed
    UNION ALL SELECT 'queue:' || claimed.queue, -1 FROM claimed
), counted AS (
    -- include: counters_add
)
-- include: handed_out
ORDER BY slot, id;

-- name: SitesSummary :one
-- A project's sites by state: with items out (active), due now, waiting
-- on their interval or limit, blocked.
SELECT count(*) FILTER (WHERE out > 0) AS active,
       count(*) FILTER (WHERE queued > 0 AND NOT blocked AND NOT at_limit AND due_at <= now()) AS due,
       count(*) FILTER (WHERE queued > 0 AND NOT blocked AND (at_limit OR due_at > now())) AS waiting,
       count(*) FILTER (WHERE blocked) AS blocked,
       count(*) AS sites
FROM sites WHERE project_id = @project_id;

-- name: SitesTop :many
-- The project's sites with the most completions.
SELECT name, queued, out, done, bytes FROM sites
WHERE project_id = @project_id AND done > 0
ORDER BY done DESC, name
LIMIT @max;

-- name: SitesPage :many
-- A page of the project's sites: named from @prefix on (when set), with
-- items queued or out first when @busy.
SELECT id, name, queued, out, at_limit, due_at, last_at, CASE WHEN out > 0 THEN coalesce(downloader, '') ELSE '' END::text AS downloader, blocked, done, bytes
FROM sites
WHERE project_id = @project_id AND name > @after::text
  AND (NOT @busy::boolean OR queued > 0 OR out > 0)
ORDER BY name
LIMIT @max;

-- name: SiteGet :one
SELECT id, name, queued, out, at_limit, due_at, last_at, CASE WHEN out > 0 THEN coalesce(downloader, '') ELSE '' END::text AS downloader, blocked, done, bytes
FROM sites WHERE project_id = @project_id AND name = @name;

-- name: SiteSetBlocked :execrows
UPDATE sites SET blocked = @blocked WHERE project_id = @project_id AND id = @id;

-- name: SiteMakeDue :exec
-- Lets a released site be handed out again at once.
UPDATE sites SET due_at = now(), at_limit = false WHERE project_id = @project_id AND id = @id;

-- name: BooksSites :one
-- The books: sites whose counters differ from the rows they count (items
-- queued in served queues, items out).
SELECT count(*) FROM sites s
LEFT JOIN (SELECT td.site, count(*) AS n FROM todo td WHERE td.project_id = @project_id AND td.type = ':site' GROUP BY td.site) t ON t.site = s.id
LEFT JOIN (SELECT cl.site, count(*) AS n FROM claims cl WHERE cl.project_id = @project_id AND cl.site <> 0 GROUP BY cl.site) c ON c.site = s.id
WHERE s.project_id = @project_id
  AND (s.queued <> coalesce(t.n, 0) OR s.out <> coalesce(c.n, 0));

-- name: BooksSitesMissing :one
-- The books: items queued, out or waiting for a visit with a site the
-- project has no row for. Queued items with a site are in the stretch
-- ':site' (todo_sites) or in the queues no request is served from; one
-- anywhere else is out of its stretch (BooksTodo).
SELECT ((SELECT count(*) FROM todo t WHERE t.project_id = @project_id AND t.type = ':site'
          AND NOT EXISTS (SELECT 1 FROM sites s WHERE s.project_id = @project_id AND s.id = t.site))
     + (SELECT count(*) FROM todo t WHERE t.project_id = @project_id AND t.queue IN ('error', 'retired') AND t.site <> 0
          AND NOT EXISTS (SELECT 1 FROM sites s WHERE s.project_id = @project_id AND s.id = t.site))
     + (SELECT count(*) FROM claims c WHERE c.project_id = @project_id AND c.site <> 0
          AND NOT EXISTS (SELECT 1 FROM sites s WHERE s.project_id = @project_id AND s.id = c.site))
     + (SELECT count(*) FROM revisits r WHERE r.project_id = @project_id AND r.site <> 0
          AND NOT EXISTS (SELECT 1 FROM sites s WHERE s.project_id = @project_id AND s.id = r.site)))::bigint AS missing;

-- name: BooksSitesDone :one
-- The books: each site's completions and bytes (counted by the statement
-- that completes) against its completions in the hot table. Archival
-- takes completions out of the hot table and leaves the sites' counts, so
-- a site may count more than the hot table holds, never fewer; what the
-- sites count beyond it is at most what was archived. Returns the sites
-- counting fewer, the completions and bytes counted beyond the hot table,
-- and the sites of completions that have no row.
SELECT count(*) FILTER (WHERE s.id IS NOT NULL AND (s.done < coalesce(d.n, 0) OR s.bytes < coalesce(d.bytes, 0)))::bigint AS short,
       coalesce(sum(s.done - coalesce(d.n, 0)), 0)::bigint AS beyond_items,
       LEAST(coalesce(sum(s.bytes - coalesce(d.bytes, 0)), 0), 9223372036854775807)::bigint AS beyond_bytes,
       count(*) FILTER (WHERE s.id IS NULL)::bigint AS unknown
FROM (SELECT x.id, x.done, x.bytes FROM sites x WHERE x.project_id = @project_id) s
FULL JOIN (SELECT dn.site, count(*) AS n, sum(dn.bytes) AS bytes FROM done dn
           WHERE dn.project_id = @project_id AND dn.site <> 0 GROUP BY dn.site) d ON d.site = s.id;

-- name: SitesPurgeBatch :execrows
-- Deletes up to @max of a deleting project's rows (see sites.Store.Purge).
DELETE FROM sites WHERE sites.project_id = @project_id AND ctid = ANY(ARRAY(SELECT p.ctid FROM sites p WHERE p.project_id = @project_id LIMIT @max));

-- name: BooksSitesUnderInterval :one
-- Politeness, from the completions and the claims: hand-outs of a site
-- closer than @interval to the one before. A completion whose claim time
-- is its own done time was never handed out: it was completed from its
-- queue by its last holder, or by an admin by hand (MarkDone claims and
-- completes in one transaction), and both times are that transaction's.
-- A hand-out's claim is made in a transaction before its completion's.
SELECT count(*) FROM (
    SELECT h.claimed_at - lag(h.claimed_at) OVER (PARTITION BY h.site ORDER BY h.claimed_at) AS gap
    FROM (SELECT d.site, d.claimed_at FROM done d WHERE d.project_id = @project_id AND d.site <> 0 AND d.claimed_at <> d.done_at
          UNION
          SELECT c.site, c.claimed_at FROM claims c WHERE c.project_id = @project_id AND c.site <> 0) h
) x
WHERE x.gap < @interval::interval;

-- name: BooksSitesOverLimit :one
-- Politeness, from the completions and the claims: sites that had more
-- than @site_limit items out at some moment (an item is out from its claim
-- until its completion; one completed and one claimed at the same moment
-- do not overlap). Completions that were never handed out (claim time =
-- done time, see BooksSitesUnderInterval) were never out.
SELECT count(DISTINCT x.site) FROM (
    SELECT e.site, sum(e.delta) OVER (PARTITION BY e.site ORDER BY e.at, e.delta ROWS UNBOUNDED PRECEDING) AS out
    FROM (SELECT d.site, d.claimed_at AS at, 1 AS delta FROM done d WHERE d.project_id = @project_id AND d.site <> 0 AND d.claimed_at <> d.done_at
          UNION ALL
          SELECT d.site, d.done_at, -1 FROM done d WHERE d.project_id = @project_id AND d.site <> 0 AND d.claimed_at <> d.done_at
          UNION ALL
          SELECT c.site, c.claimed_at, 1 FROM claims c WHERE c.project_id = @project_id AND c.site <> 0) e
) x
WHERE x.out > @site_limit::bigint;

-- name: SitesLimitChanged :exec
-- A project's site_claims_limit changed: no site is at its limit until a
-- hand-out says so under the new one (SitesDue compares the items out with
-- the limit itself).
UPDATE sites SET at_limit = false WHERE project_id = @project_id AND at_limit;
