-- name: ClaimsReclaim :many
-- Hands expired claims to a new downloader: a claim expires @ttl seconds
-- times its claim count after it was made. Oldest first, while the answer
-- carries at most @budget bytes of names and parameters, @carried of them
-- already (see ClaimsTakeSlots): the expired claims after that stay as
-- they are, and come back as cut.
WITH expired AS (
    SELECT c.project_id, c.hash, c.id, c.name, c.downloader, c.ip, c.claimed_at FROM claims c
    WHERE c.project_id = @project_id
      AND c.claim_count > 0 -- the condition of claims_claimed_at
      AND c.claimed_at < now() - @ttl::interval
      -- In seconds (numeric): an interval times a large claim count would
      -- leave the range of intervals and timestamps.
      AND extract(epoch FROM now() - c.claimed_at) > c.claim_count * extract(epoch FROM @ttl::interval)
      AND item_type(c.name) <> ALL(@refused_types::text[])
      -- An item with a site goes back to its queue through the reclaim
      -- job, to be handed out when its site is due.
      AND c.site = 0
      -- An item handed out max_claims times fails instead: the reclaim
      -- job sends it to the error queue.
      AND (@max_claims::bigint = 0 OR c.claim_count < @max_claims::bigint)
    ORDER BY c.claimed_at, c.id
    LIMIT @max
    FOR UPDATE SKIP LOCKED
), sized AS MATERIALIZED (
    -- What each item takes in the answer (answer_bytes), and whether it
    -- fits: the answer's first item always does.
    SELECT r.project_id, r.hash, r.id, r.downloader, r.ip, r.claimed_at, r.bytes, r.sent,
           r.upto <= @budget::bigint OR r.upto = r.sent AS fits
    FROM (SELECT p.project_id, p.hash, p.id, p.downloader, p.ip, p.claimed_at, p.bytes, p.sent,
                 sum(p.sent) OVER (ORDER BY p.claimed_at, p.id) + @carried::bigint AS upto
          -- sent measured once an item, in a level of its own: an
          -- expression both shown and summed is computed twice.
          FROM (SELECT b.project_id, b.hash, b.id, b.downloader, b.ip, b.claimed_at, b.bytes, answer_bytes(b.name, b.bytes) AS sent
                FROM (SELECT i.project_id, i.hash, i.id, i.name, i.downloader, i.ip, i.claimed_at,
                             CASE WHEN EXISTS (SELECT 1 FROM item_params x WHERE x.project_id = @project_id)
                                  THEN coalesce((SELECT coalesce(ip.bytes, sent_bytes(ip.params::text)) FROM item_params ip
                                                 WHERE ip.project_id = @project_id AND ip.id = i.id), 0)
                                  ELSE 0 END::bigint AS bytes
                      FROM expired i
                      OFFSET 0 /* fence */) b
                OFFSET 0 /* fence */) p) r
), history AS (
    INSERT INTO claim_expiries (project_id, id, downloader, ip, claimed_at)
    SELECT sized.project_id, sized.id, sized.downloader, sized.ip, sized.claimed_at FROM sized WHERE sized.fits
), reclaimed AS (
    UPDATE claims c
    -- The previous holder may still report the item done (see
    -- DoneRecordBatch), from the network it claimed the item from.
    SET downloader = @downloader, last_downloader = c.downloader, last_ip = c.ip, ip = @ip, version = @version,
        claimed_at = now(), claim_count = c.claim_count + 1
    FROM sized
    -- The project by its parameter, so Citus sends this part to its
    -- worker alone; the claims by their keys, each a probe of the index.
    WHERE c.project_id = @project_id AND c.hash = ANY(ARRAY(SELECT f.hash FROM sized f WHERE f.fits))
      AND c.hash = sized.hash AND sized.fits
    RETURNING c.id, c.name, sized.bytes, sized.sent
), counter_deltas AS (
    SELECT 'reclaims' AS name, count(*) AS delta FROM reclaimed
), counted AS (
    INSERT INTO counters AS c (project_id, name, shard, value)
    SELECT @project_id, d.name, counter_shard(), LEAST(sum(d.delta), 9223372036854775807)::bigint
    FROM counter_deltas d
    GROUP BY d.name
    HAVING sum(d.delta) <> 0
    ORDER BY d.name
    ON CONFLICT (project_id, name, shard) DO UPDATE
    SET value = CASE WHEN excluded.value > 0 AND c.value > 9223372036854775807 - excluded.value THEN 9223372036854775807 ELSE c.value + excluded.value END
)
SELECT reclaimed.id, reclaimed.name,
       CASE WHEN reclaimed.bytes > 0
            THEN coalesce((SELECT ip.params::text FROM item_params ip WHERE ip.project_id = @project_id AND ip.id = reclaimed.id), '')
            ELSE '' END::text AS params,
       reclaimed.sent::bigint AS sent, false AS cut
FROM reclaimed
UNION ALL
SELECT sized.id, ''::text, ''::text, 0::bigint, true FROM sized WHERE NOT sized.fits
ORDER BY id;

-- name: ClaimsRelease :many
-- Gives claimed items back to the queue they came from, in their old place,
-- remembering how often they were claimed, who held them and from where.
-- With @downloader set, only that downloader's claims may be released:
-- when another holds any item named, or, with @claimer_network, the
-- release comes (from @ip) from another network than the claim was made
-- from (same_network), nothing is released and the answer names those
-- items (refused). The downloader's claims named from another network are
-- counted (release_other_network), refused or not: what the check refuses,
-- or would. With @by_network (a warrior's release naming no downloader),
-- only claims made from @ip's network may be released, whoever holds
-- them: one of another network, or made or released from an address not
-- known, refuses the release as another's does.
WITH named AS (
    SELECT claims.hash, claims.name, claims.downloader, claims.ip FROM claims
    WHERE claims.project_id = @project_id
      AND claims.hash = ANY(ARRAY(SELECT item_hash(n) FROM unnest(@names::text[]) AS n))
    FOR UPDATE
), away AS (
    SELECT named.name FROM named
    WHERE @downloader::text <> '' AND named.downloader = @downloader::text
      AND NOT same_network(sqlc.narg(ip)::inet, named.ip)
), others AS (
    SELECT named.name FROM named WHERE @downloader::text <> '' AND named.downloader <> @downloader::text
    UNION ALL
    SELECT away.name FROM away WHERE @claimer_network::boolean
    UNION ALL
    SELECT named.name FROM named
    WHERE @by_network::boolean
      AND (named.ip IS NULL OR sqlc.narg(ip)::inet IS NULL OR NOT same_network(sqlc.narg(ip)::inet, named.ip))
), released AS (
    -- Locked by named: still as read there.
    DELETE FROM claims
    WHERE claims.project_id = @project_id
      AND claims.hash = ANY(ARRAY(SELECT named.hash FROM named))
      AND NOT EXISTS (SELECT 1 FROM others)
    RETURNING claims.id, claims.name, claims.queue, claims.site, claims.claim_count, claims.downloader, claims.ip
), queued AS (
    -- The holder is remembered, with the address it claimed the item
    -- from: it may still report the item done.
    INSERT INTO todo (project_id, queue, type, site, id, name, claim_count, last_downloader, last_ip)
    SELECT @project_id, released.queue, queue_type(released.queue, released.name, project_limited_types(@project_id), project_site(@project_id, released.site)),
           project_site(@project_id, released.site), released.id, released.name, released.claim_count, released.downloader, released.ip
    FROM released
    RETURNING todo.queue, todo.type, todo.site
), counter_deltas AS (
    SELECT 'claims' AS name, -1 AS delta FROM queued
    UNION ALL SELECT 'requeued', 1 FROM queued
    UNION ALL SELECT 'queue:' || queued.queue, 1 FROM queued
    UNION ALL SELECT 'release_other_network', count(*) FROM away
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
    SELECT released.site, 0 AS queued, -1 AS out, NULL::text AS holder FROM released
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
SELECT released.name, false AS refused FROM released
UNION ALL
SELECT others.name, true FROM others;

-- name: ClaimsCountByDownloader :one
SELECT count(*) FROM claims
WHERE project_id = @project_id AND downloader = @downloader
  AND claim_count > 0; -- the condition of claims_downloader

-- name: ClaimGet :one
SELECT * FROM claims WHERE project_id = @project_id AND hash = item_hash(@name);

-- name: ClaimOfItem :one
-- The claim of item @id, whose own hash is @hash (see seen.item).
SELECT * FROM claims WHERE project_id = @project_id AND hash = @hash AND id = @id;

-- name: ClaimsTakeSlots :many
-- Hands out items of one stretch of a queue to many requests at once: one
-- slot per item wanted, each naming its downloader and its request (the
-- slots of a request come one after another), in the order the requests
-- came. Items go to slots in queue order; the answer names the slot each
-- item went to (a slot whose item is out already under another copy gets
-- none: see claimed). A request's answer carries at most @budget bytes of
-- names and parameters as sent (answer_bytes), @carried of them already
-- (by slot): an item that would take it past them is not taken but stays
-- queued and comes back as cut, as do the items of the request's slots
-- after it. The first item of an answer is always taken.
WITH slots AS (
    -- The arrays read side by side, in one pass: a subscript of an array
    -- of text walks it from its start.
    SELECT s.slot, s.nick, s.version, s.ip, s.request, coalesce(s.carried, 0) AS carried
    FROM ROWS FROM (unnest(@nicks::text[]), unnest(@versions::text[]), unnest(@ips::text[]),
                    unnest(@requests::integer[]), unnest(@carried::bigint[]))
         WITH ORDINALITY AS s (nick, version, ip, request, carried, slot)
    WHERE s.nick IS NOT NULL
), head AS (
    SELECT (ARRAY(SELECT t.ctid))[1] /* tid */ AS tid, t.id, t.name, t.site, t.claim_count, t.last_downloader, t.last_ip FROM todo t
    WHERE t.project_id = @project_id AND t.queue = @queue::text AND t.type = @item_type::text AND t.id > @after_id
    ORDER BY t.id
    LIMIT @max
    FOR UPDATE SKIP LOCKED
), sized AS MATERIALIZED (
    -- The bytes of each item's parameters (params_bytes), what it takes
    -- in its request's answer (answer_bytes), and whether it fits there:
    -- the answer's first item always does. Each item with its row and its
    -- slot's request, which the parts below read from here: a join of two
    -- of this statement's parts is planned without their sizes, and may
    -- be a loop over one for each row of the other.
    SELECT r.tid, r.id, r.slot, r.bytes, r.sent, r.upto <= @budget::bigint OR r.upto = r.sent AS fits,
           r.name, r.site, r.claim_count, r.last_downloader, r.last_ip, r.nick, r.version, r.ip
    FROM (SELECT p.tid, p.id, p.slot, p.bytes, p.sent,
                 sum(p.sent) OVER (PARTITION BY s.request ORDER BY p.slot) + s.carried AS upto,
                 p.name, p.site, p.claim_count, p.last_downloader, p.last_ip, s.nick, s.version, s.ip
          -- sent measured once an item, in a level of its own: an
          -- expression both shown and summed is computed twice.
          FROM (SELECT b.tid, b.id, b.name, b.site, b.claim_count, b.last_downloader, b.last_ip, b.slot, b.bytes,
                       answer_bytes(b.name, b.bytes) AS sent
                FROM (SELECT i.tid, i.id, i.name, i.site, i.claim_count, i.last_downloader, i.last_ip, row_number() OVER (ORDER BY i.id) AS slot,
                             CASE WHEN EXISTS (SELECT 1 FROM item_params x WHERE x.project_id = @project_id)
                                  THEN coalesce((SELECT coalesce(ip.bytes, sent_bytes(ip.params::text)) FROM item_params ip
                                                 WHERE ip.project_id = @project_id AND ip.id = i.id), 0)
                                  ELSE 0 END::bigint AS bytes
                      FROM head i) b
                OFFSET 0 /* fence */) p
          JOIN slots s ON s.slot = p.slot) r
), taken AS (
    -- The rows locked are deleted by their physical address: no second
    -- walk down the index for each of them.
    DELETE FROM todo
    WHERE todo.project_id = @project_id AND ctid = ANY(ARRAY(SELECT sized.tid FROM sized WHERE sized.fits))
    RETURNING 1
), taken_for AS (
    -- The rows taken, as locked and read by head: deleted as they were.
    SELECT sized.id, sized.name, sized.site, sized.claim_count, sized.last_downloader, sized.last_ip, sized.slot, sized.bytes, sized.sent,
           sized.nick, sized.version, sized.ip
    FROM sized WHERE sized.fits
), claimed AS (
    -- Claims hold one item per name. Backfeed shards can queue the same
    -- name more than once (the same URL again the next day); while one copy
    -- is out, another taken here is not claimed but goes back below.
    INSERT INTO claims (project_id, hash, id, name, queue, site, downloader, ip, version, claim_count, last_downloader, last_ip)
    SELECT @project_id, item_hash(n.name), n.id, n.name, @queue::text, n.site, n.nick, nullif(n.ip, '')::inet, n.version, n.claim_count + 1, n.last_downloader, n.last_ip
    FROM taken_for n
    ON CONFLICT DO NOTHING
    RETURNING claims.id
), put_back AS (
    -- Back in its old place, behind the head: it is found again when a
    -- claim comes back short and looks from the start of the queue.
    INSERT INTO todo (project_id, queue, type, site, id, name, claim_count, last_downloader, last_ip)
    SELECT @project_id, @queue::text, @item_type::text, n.site, n.id, n.name, n.claim_count, n.last_downloader, n.last_ip
    FROM taken_for n
    WHERE n.id NOT IN (SELECT claimed.id FROM claimed)
      -- After the delete of the rows taken, whose keys these are.
      AND (SELECT count(*) FROM taken) >= 0 /* after */
    RETURNING todo.id
), counter_deltas AS (
    -- The items of a queue walk have no site (their type is not ':site'):
    -- no site changes.
    SELECT 'claims' AS name, count(*) AS delta FROM claimed
    UNION ALL SELECT 'queue:' || @queue::text, -count(*) FROM claimed
), counted AS (
    INSERT INTO counters AS c (project_id, name, shard, value)
    SELECT @project_id, d.name, counter_shard(), LEAST(sum(d.delta), 9223372036854775807)::bigint
    FROM counter_deltas d
    GROUP BY d.name
    HAVING sum(d.delta) <> 0
    ORDER BY d.name
    ON CONFLICT (project_id, name, shard) DO UPDATE
    SET value = CASE WHEN excluded.value > 0 AND c.value > 9223372036854775807 - excluded.value THEN 9223372036854775807 ELSE c.value + excluded.value END
)
SELECT t.slot::integer AS slot, t.id, t.name, t.claim_count,
       CASE WHEN t.bytes > 0
            THEN coalesce((SELECT ip.params::text FROM item_params ip WHERE ip.project_id = @project_id AND ip.id = t.id), '')
            ELSE '' END::text AS params,
       t.sent::bigint AS sent, false AS cut
FROM taken_for t
WHERE t.id NOT IN (SELECT put_back.id FROM put_back)
UNION ALL
SELECT sized.slot::integer, sized.id, ''::text, 0, ''::text, 0::bigint, true FROM sized WHERE NOT sized.fits
ORDER BY slot;

-- name: ClaimsExpire :one
-- Puts up to @max expired claims (older than @ttl times their claim count)
-- back in the queue they came from, in their old place, oldest first; an
-- item handed out @max_claims times (when not 0) goes to the error queue
-- instead. Each expiry is kept in claim_expiries. Returns how many went
-- back and how many failed.
WITH expired AS (
    DELETE FROM claims
    WHERE claims.project_id = @project_id AND ctid = ANY(ARRAY(
        SELECT c.ctid FROM claims c
        WHERE c.project_id = @project_id
          AND c.claim_count > 0 -- the condition of claims_claimed_at
          AND c.claimed_at < now() - @ttl::interval
          -- In seconds (numeric): see ClaimsReclaim.
          AND extract(epoch FROM now() - c.claimed_at) > c.claim_count * extract(epoch FROM @ttl::interval)
        ORDER BY c.claimed_at
        LIMIT @max
        FOR UPDATE SKIP LOCKED
    ))
    RETURNING claims.id, claims.name, claims.queue, claims.site, claims.claim_count, claims.downloader, claims.ip, claims.claimed_at
), history AS (
    INSERT INTO claim_expiries (project_id, id, downloader, ip, claimed_at)
    SELECT @project_id, expired.id, expired.downloader, expired.ip, expired.claimed_at FROM expired
), queued AS (
    -- The holder is remembered, with the address it claimed the item
    -- from: it may still report the item done.
    INSERT INTO todo (project_id, queue, type, site, id, name, claim_count, last_downloader, last_ip)
    SELECT @project_id, f.queue, queue_type(f.queue, expired.name, project_limited_types(@project_id), project_site(@project_id, expired.site)),
           project_site(@project_id, expired.site), expired.id, expired.name, expired.claim_count, expired.downloader, expired.ip
    FROM expired,
         LATERAL (SELECT CASE WHEN @max_claims::bigint > 0 AND expired.claim_count >= @max_claims::bigint
                              THEN 'error' ELSE expired.queue END AS queue) f
    RETURNING todo.queue, todo.type, todo.site
), counter_deltas AS (
    SELECT 'claims' AS name, -1 AS delta FROM queued
    UNION ALL SELECT 'reclaims', 1 FROM queued
    UNION ALL SELECT 'requeued', 1 FROM queued WHERE queued.queue <> 'error'
    UNION ALL SELECT 'failed', 1 FROM queued WHERE queued.queue = 'error'
    UNION ALL SELECT 'queue:' || queued.queue, 1 FROM queued
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
    SELECT expired.site, 0 AS queued, -1 AS out, NULL::text AS holder FROM expired
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
SELECT count(*) FILTER (WHERE queued.queue <> 'error') AS requeued,
       count(*) FILTER (WHERE queued.queue = 'error') AS failed
FROM queued;

-- name: ClaimsOfDownloader :one
-- A downloader's claims now, how many of them were reclaims, and the
-- script version and time of the latest (epoch when none).
SELECT count(*) AS claims, count(*) FILTER (WHERE claim_count > 1) AS reclaimed,
       coalesce((array_agg(version ORDER BY claimed_at DESC))[1], '')::text AS version,
       coalesce(max(claimed_at), 'epoch')::timestamptz AS last_claimed
FROM claims
WHERE project_id = @project_id AND downloader = @downloader
  AND claim_count > 0; -- the condition of claims_downloader

-- name: ClaimsReleaseWhere :one
-- Gives back to their queues up to @max claims older than @older_than, of
-- @downloader, starting with @prefix, matching @pattern and of site @site
-- (each when set), oldest first. Returns how many.
WITH released AS (
    DELETE FROM claims
    WHERE claims.project_id = @project_id AND ctid = ANY(ARRAY(
        SELECT c.ctid FROM claims c
        WHERE c.project_id = @project_id
          AND c.claim_count > 0 -- the condition of the claims indexes
          AND (@downloader::text = '' OR c.downloader = @downloader::text)
          AND c.claimed_at < now() - @older_than::interval
          AND (@prefix::text = '' OR starts_with(c.name, @prefix::text))
          AND (@pattern::text = '' OR c.name ~ @pattern::text)
          AND (@site::integer = 0 OR c.site = @site::integer)
        ORDER BY c.claimed_at
        LIMIT @max
        FOR UPDATE SKIP LOCKED
    ))
    RETURNING claims.id, claims.name, claims.queue, claims.site, claims.claim_count, claims.downloader, claims.ip
), away AS (
    -- An admin's release comes from no warrior's network.
    SELECT NULL::text AS name WHERE false
), queued AS (
    -- The holder is remembered, with the address it claimed the item
    -- from: it may still report the item done.
    INSERT INTO todo (project_id, queue, type, site, id, name, claim_count, last_downloader, last_ip)
    SELECT @project_id, released.queue, queue_type(released.queue, released.name, project_limited_types(@project_id), project_site(@project_id, released.site)),
           project_site(@project_id, released.site), released.id, released.name, released.claim_count, released.downloader, released.ip
    FROM released
    RETURNING todo.queue, todo.type, todo.site
), counter_deltas AS (
    SELECT 'claims' AS name, -1 AS delta FROM queued
    UNION ALL SELECT 'requeued', 1 FROM queued
    UNION ALL SELECT 'queue:' || queued.queue, 1 FROM queued
    UNION ALL SELECT 'release_other_network', count(*) FROM away
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
    SELECT released.site, 0 AS queued, -1 AS out, NULL::text AS holder FROM released
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
SELECT count(*) FROM queued;

-- name: ClaimsPerDownloader :many
-- The downloaders holding the most claims, with their oldest claim.
SELECT downloader, count(*) AS claims, min(claimed_at)::timestamptz AS oldest FROM claims
WHERE project_id = @project_id
  AND claim_count > 0 -- the condition of claims_downloader
GROUP BY downloader
ORDER BY count(*) DESC, downloader
LIMIT @max;

-- name: ClaimsList :many
-- A page of a project's claims, oldest first, after the claim
-- (@after_at, @after_id), of @downloader, older than @older_than and
-- starting with @prefix (each when set). On claims_claimed_at, or on
-- claims_downloader with a downloader: a page costs the same with five
-- million claims as with five.
SELECT name, downloader, claimed_at, claim_count, queue, id FROM claims
WHERE project_id = @project_id
  AND claim_count > 0 -- the condition of the claims indexes
  AND (@downloader::text = '' OR downloader = @downloader::text)
  AND claimed_at < now() - @older_than::interval
  AND (claimed_at, id) > (@after_at::timestamptz, @after_id::bigint)
  AND (@prefix::text = '' OR starts_with(name, @prefix::text))
ORDER BY claimed_at, id
LIMIT @max;

-- name: ClaimsPurgeBatch :execrows
-- Deletes up to @max of a deleting project's rows (see items.Engine.Purge).
DELETE FROM claims WHERE claims.project_id = @project_id AND ctid = ANY(ARRAY(SELECT p.ctid FROM claims p WHERE p.project_id = @project_id LIMIT @max));

-- name: BooksClaimsCount :one
-- The books: the items out.
SELECT count(*) FROM claims WHERE project_id = @project_id;

-- name: BooksLastAddressesAlone :one
-- The books: items queued or out that keep a previous holder's address
-- without the holder's nick (the two go together: see migration 44).
SELECT ((SELECT count(*) FROM todo t WHERE t.project_id = @project_id AND t.last_ip IS NOT NULL AND t.last_downloader IS NULL)
      + (SELECT count(*) FROM claims c WHERE c.project_id = @project_id AND c.last_ip IS NOT NULL AND c.last_downloader IS NULL))::bigint AS alone;

-- name: BooksClaimsDoneCount :one
-- The books: items out that are also done after their claim.
SELECT count(*) FROM claims c WHERE c.project_id = @project_id
  AND EXISTS (SELECT 1 FROM done d WHERE d.project_id = @project_id AND d.id = c.id AND d.done_at > c.claimed_at);

-- name: ClaimsByAge :one
-- A project's claims counted by age, for the admin panel's histogram.
-- Reads every claim of the project: asked for only when there are few, or
-- when an admin asks.
SELECT
  count(*) FILTER (WHERE claimed_at >= now() - interval '1 minute') AS under_1m,
  count(*) FILTER (WHERE claimed_at < now() - interval '1 minute' AND claimed_at >= now() - interval '10 minutes') AS under_10m,
  count(*) FILTER (WHERE claimed_at < now() - interval '10 minutes' AND claimed_at >= now() - interval '1 hour') AS under_1h,
  count(*) FILTER (WHERE claimed_at < now() - interval '1 hour' AND claimed_at >= now() - interval '6 hours') AS under_6h,
  count(*) FILTER (WHERE claimed_at < now() - interval '6 hours' AND claimed_at >= now() - interval '1 day') AS under_1d,
  count(*) FILTER (WHERE claimed_at < now() - interval '1 day') AS older
FROM claims
WHERE project_id = @project_id
  AND claim_count > 0; -- the condition of claims_claimed_at

-- name: ClaimsCountWhere :one
-- How many claims ClaimsReleaseWhere would give back: the admin panel says
-- so before it does.
SELECT count(*) FROM claims c
WHERE c.project_id = @project_id
  AND c.claim_count > 0 -- the condition of the claims indexes
  AND (@downloader::text = '' OR c.downloader = @downloader::text)
  AND c.claimed_at < now() - @older_than::interval
  AND (@prefix::text = '' OR starts_with(c.name, @prefix::text))
  AND (@pattern::text = '' OR c.name ~ @pattern::text)
  AND (@site::integer = 0 OR c.site = @site::integer)
;

-- name: ClaimsCountItems :one
-- How many of the items named are out (what ClaimsRelease would give back).
SELECT count(*) FROM claims
WHERE project_id = @project_id
  AND hash = ANY(ARRAY(SELECT item_hash(n) FROM unnest(@names::text[]) AS n));

-- name: ClaimsBrowse :many
-- A page of a project's claims for the admin panel's queue browser, oldest
-- first after the claim (@after_at, @after_id): up to @max of the first
-- @scan claims there (of @downloader, when set) whose names start with
-- @prefix, contain @contains and match @pattern (each when set); a last
-- row, edge, holds the last claim read and how many were (scanned). On
-- claims_claimed_at, or claims_downloader with a downloader, as ClaimsList.
WITH win AS MATERIALIZED (
    SELECT c.id, c.name, c.downloader, c.claimed_at, c.claim_count, c.queue FROM claims c
    WHERE c.project_id = @project_id
      AND c.claim_count > 0 -- the condition of the claims indexes
      AND (@downloader::text = '' OR c.downloader = @downloader::text)
      AND (c.claimed_at, c.id) > (@after_at::timestamptz, @after_id::bigint)
    ORDER BY c.claimed_at, c.id
    LIMIT @scan::integer
)
(SELECT w.id, w.name, w.downloader, w.claimed_at, w.claim_count, w.queue, false AS edge, 0::bigint AS scanned
 FROM win w
 WHERE (@prefix::text = '' OR starts_with(w.name, @prefix::text))
   AND (@contains::text = '' OR strpos(w.name, @contains::text) > 0)
   AND (@pattern::text = '' OR w.name ~ @pattern::text)
 ORDER BY w.claimed_at, w.id
 LIMIT @max::integer)
UNION ALL
(SELECT w.id, '', '', w.claimed_at, 0, '', true, (SELECT count(*) FROM win)
 FROM win w ORDER BY w.claimed_at DESC, w.id DESC LIMIT 1);

-- name: ClaimsBrowseBack :many
-- ClaimsBrowse backwards: the page before the claim (@before_at,
-- @before_id), newest first (the edge row holds the first claim read).
WITH win AS MATERIALIZED (
    SELECT c.id, c.name, c.downloader, c.claimed_at, c.claim_count, c.queue FROM claims c
    WHERE c.project_id = @project_id
      AND c.claim_count > 0 -- the condition of the claims indexes
      AND (@downloader::text = '' OR c.downloader = @downloader::text)
      AND (c.claimed_at, c.id) < (@before_at::timestamptz, @before_id::bigint)
    ORDER BY c.claimed_at DESC, c.id DESC
    LIMIT @scan::integer
)
(SELECT w.id, w.name, w.downloader, w.claimed_at, w.claim_count, w.queue, false AS edge, 0::bigint AS scanned
 FROM win w
 WHERE (@prefix::text = '' OR starts_with(w.name, @prefix::text))
   AND (@contains::text = '' OR strpos(w.name, @contains::text) > 0)
   AND (@pattern::text = '' OR w.name ~ @pattern::text)
 ORDER BY w.claimed_at DESC, w.id DESC
 LIMIT @max::integer)
UNION ALL
(SELECT w.id, '', '', w.claimed_at, 0, '', true, (SELECT count(*) FROM win)
 FROM win w ORDER BY w.claimed_at, w.id LIMIT 1);

-- name: ClaimsNamesHeld :many
-- Which of the names are out. On Citus a completion looks up the ids of
-- the others in seen before it runs (see db/citus's DoneRecordBatch).
SELECT n.name::text AS name FROM unnest(@names::text[]) AS n (name)
WHERE EXISTS (SELECT 1 FROM claims c WHERE c.project_id = @project_id AND c.hash = item_hash(n.name));

-- name: ClaimsOfDownloaders :many
-- How many claims each of @downloaders holds (those holding none are left
-- out), on claims_downloader.
SELECT downloader, count(*) AS claims FROM claims
WHERE project_id = @project_id
  AND claim_count > 0 -- the condition of claims_downloader
  AND downloader = ANY(@downloaders::text[])
GROUP BY downloader;
