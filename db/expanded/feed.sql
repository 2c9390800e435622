-- name: FeedLatest :many
SELECT at, downloader, items, bytes, item FROM feed
WHERE project_id = @project_id
ORDER BY at DESC
LIMIT @max;

-- name: FeedLog :many
-- The newest @max folded done requests of a project since @since, with
-- what the live log tells of each.
SELECT at, downloader, items, bytes, version, domains, item, names, user_agent FROM feed
WHERE project_id = @project_id AND at > @since
ORDER BY at DESC
LIMIT @max;

-- name: DomainTotals :many
-- A project's bytes per domain, most first: the rollup keeps at most
-- stats.DomainsKept of them and 'other', @max bounds the read besides.
SELECT domain, bytes FROM domain_totals
WHERE project_id = @project_id
ORDER BY bytes DESC, domain
LIMIT @max;

-- name: FeedPurgeBatch :execrows
-- Deletes up to @max of a deleting project's rows (see stats.Store.Purge).
DELETE FROM feed WHERE feed.project_id = @project_id AND ctid = ANY(ARRAY(SELECT p.ctid FROM feed p WHERE p.project_id = @project_id LIMIT @max));

-- name: DomainTotalsPurgeBatch :execrows
-- Deletes up to @max of a deleting project's rows (see stats.Store.Purge).
DELETE FROM domain_totals WHERE domain_totals.project_id = @project_id AND ctid = ANY(ARRAY(SELECT p.ctid FROM domain_totals p WHERE p.project_id = @project_id LIMIT @max));

-- name: BooksFeedOff :one
-- The books: feed entries that credit no item or negative bytes, and
-- domains with negative bytes.
SELECT ((SELECT count(*) FROM feed f WHERE f.project_id = @project_id AND (f.items < 1 OR f.bytes < 0))
      + (SELECT count(*) FROM domain_totals d WHERE d.project_id = @project_id AND d.bytes < 0))::bigint AS off;
