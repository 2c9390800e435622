-- The requests of a done batch that named items from another network than
-- their holder's (away) or items held for someone else (refused), counted
-- and answered (DoneRecordBatch, step 2).
away AS (
    -- The requests naming an item under its holder's nick from another
    -- network than the holder's: with @claimer_network none completes it,
    -- and without, it is counted all the same.
    SELECT b.req FROM claimed_by b WHERE NOT b.near
    UNION ALL
    SELECT b.req FROM queued_by b WHERE NOT b.near
), refused AS (
    -- A request's items that another downloader holds (or held last).
    SELECT r.req FROM reported r JOIN requests ON requests.req = r.req
    JOIN (SELECT claimed.hash, claimed.downloader, claimed.last_downloader FROM claimed
          UNION ALL SELECT queued.hash, NULL, queued.last_downloader FROM queued) o ON o.hash = r.hash
    WHERE requests.downloader IS DISTINCT FROM o.downloader AND requests.downloader IS DISTINCT FROM o.last_downloader
