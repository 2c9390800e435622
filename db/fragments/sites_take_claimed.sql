-- The items of sites a claim batch takes, out of the queues (taken) and
-- claimed for their requests (taken_for, claimed); an item whose name is
-- out already goes back to its queue (put_back): SitesTake, step 2.
taken AS (
    DELETE FROM todo
    -- if citus
    -- By key, as ClaimsTakeSlots does there.
    WHERE todo.project_id = @project_id AND todo.type = ':site' AND todo.id = ANY(ARRAY(SELECT sized.id FROM sized WHERE sized.fits))
    -- else
    WHERE todo.project_id = @project_id AND ctid = ANY(ARRAY(SELECT sized.tid FROM sized WHERE sized.fits))
    -- end if
    RETURNING 1
), taken_for AS (
    -- Each item taken, as locked and read (deleted as it was), with the
    -- request it goes to.
    SELECT sized.id, sized.name, sized.queue, sized.site, sized.claim_count, sized.last_downloader, sized.last_ip,
           sized.slot, sized.downloader, sized.version, sized.ip, sized.bytes, sized.sent
    FROM sized WHERE sized.fits
), claimed AS (
    INSERT INTO claims (project_id, hash, id, name, queue, site, downloader, ip, version, claimed_at, claim_count, last_downloader, last_ip)
    SELECT @project_id, item_hash(t.name), t.id, t.name, t.queue, t.site, t.downloader, t.ip, t.version, statement_timestamp(), t.claim_count + 1, t.last_downloader, t.last_ip
    FROM taken_for t
    ON CONFLICT DO NOTHING
    RETURNING claims.id, claims.site, claims.queue
), put_back AS (
    INSERT INTO todo (project_id, queue, type, site, id, name, claim_count, last_downloader, last_ip)
    SELECT @project_id, t.queue, ':site', t.site, t.id, t.name, t.claim_count, t.last_downloader, t.last_ip
    FROM taken_for t
    WHERE t.id NOT IN (SELECT claimed.id FROM claimed)
      -- After the delete of the rows taken, whose keys these are.
      AND (SELECT count(*) FROM taken) >= 0 /* after */
    RETURNING todo.id
