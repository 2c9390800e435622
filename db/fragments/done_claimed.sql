-- The items a done batch reports that somebody holds, and for which request
-- each is completed (DoneRecordBatch, step 1 and 2 for claims): reported
-- is each request's items; claimed their claims, locked; claimed_by the
-- requests naming each under its holder's nick (from the holder's network
-- first), claimed_for the first of them, which the item is completed for.
reported AS (
    -- Each item reported, by its name's hash, with each request naming it.
    SELECT DISTINCT item_hash(n.name) AS hash, r.req
    FROM requests r, unnest(r.names) AS n (name)
), claimed AS (
    -- The claims of the items reported, locked: who holds each now. "=
    -- ANY" of an array makes each hash a probe of the key; a join could be
    -- planned as a read of all the project's claims.
    SELECT claims.hash, claims.id, claims.name, claims.site, claims.claimed_at, claims.claim_count,
           claims.downloader, claims.ip, claims.last_downloader, claims.last_ip
    FROM claims
    WHERE claims.project_id = @project_id AND claims.hash = ANY(ARRAY(SELECT DISTINCT reported.hash FROM reported))
    FOR UPDATE
), claimed_by AS (
    -- The requests naming a claimed item under the nick of its holder or
    -- last holder, with the claim as locked, and whether each comes from
    -- the network that nick claimed it from (near).
    SELECT c.hash, r.req, c.id, c.name, c.site, c.claimed_at, c.claim_count,
           coalesce(requests.downloader = c.downloader AND same_network(requests.ip, c.ip), false)
           OR coalesce(requests.downloader = c.last_downloader AND same_network(requests.ip, c.last_ip), false) AS near
    FROM claimed c JOIN reported r ON r.hash = c.hash JOIN requests ON requests.req = r.req
    WHERE requests.downloader IN (c.downloader, c.last_downloader)
), claimed_for AS (
    -- The request each claimed item is completed for: the first from its
    -- holder's network, else (unless @claimer_network) the first.
    SELECT DISTINCT ON (b.hash) b.hash, b.req, b.id, b.name, b.site, b.claimed_at, b.claim_count
    FROM claimed_by b
    WHERE b.near OR NOT @claimer_network::boolean
    ORDER BY b.hash, b.near DESC, b.req
