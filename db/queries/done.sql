-- name: DoneRecordClaimed :one
-- Completes the claimed items among @names in one statement: their claims
-- become done rows and the downloader's and project's totals grow once for
-- the batch. Names that are not claimed (a repeated done, or an item never
-- handed out) are ignored, so no completion is ever counted twice. The
-- batch's bytes are shared out over the items actually completed, the first
-- rows taking the remainder, so the shares add up to the total.
WITH finished AS (
    DELETE FROM claims
    WHERE claims.project_id = @project_id
      AND claims.hash = ANY(ARRAY(SELECT item_hash(n) FROM unnest(@names::text[]) AS n))
    RETURNING claims.id, claims.name, claims.claimed_at, claims.claim_count
), numbered AS (
    SELECT f.id, f.name, f.claimed_at, f.claim_count,
           row_number() OVER (ORDER BY f.id) AS n, count(*) OVER () AS total
    FROM finished f
), shared AS (
    SELECT numbered.id, numbered.name, numbered.claimed_at, numbered.claim_count, numbered.n, numbered.total,
           div(@bytes::bigint, numbered.total)
             + CASE WHEN numbered.n <= mod(@bytes::bigint, numbered.total) THEN 1 ELSE 0 END AS share
    FROM numbered
), recorded AS (
    INSERT INTO done (project_id, id, name, downloader, version, bytes, domains, client_id,
                      claimed_at, claim_count, ip)
    SELECT @project_id, shared.id, shared.name, @downloader, @version, shared.share,
           @domains, @client_id, shared.claimed_at, shared.claim_count, @ip
    FROM shared
    RETURNING done.bytes
), credit AS (
    INSERT INTO downloaders AS d (project_id, nick, items, bytes, version)
    SELECT @project_id, @downloader, count(*), sum(recorded.bytes), @version
    FROM recorded
    HAVING count(*) > 0
    ON CONFLICT (project_id, nick) DO UPDATE
    SET items = d.items + excluded.items,
        bytes = d.bytes + excluded.bytes,
        version = excluded.version,
        last_seen = now()
), counted AS (
    INSERT INTO counters AS c (project_id, name, shard, value)
    SELECT @project_id, d.name, counter_shard(), d.delta
    FROM (SELECT count(*) AS n, coalesce(sum(recorded.bytes), 0) AS bytes FROM recorded) t,
         LATERAL (VALUES ('bytes', t.bytes), ('claims', -t.n), ('done', t.n)) AS d (name, delta)
    WHERE t.n > 0
    ORDER BY d.name
    ON CONFLICT (project_id, name, shard) DO UPDATE SET value = c.value + excluded.value
)
SELECT count(*) AS completed FROM recorded;

-- name: DoneGet :one
-- The completion of an item, newest first should it have several.
SELECT * FROM done WHERE project_id = @project_id AND id = @id ORDER BY done_at DESC LIMIT 1;
