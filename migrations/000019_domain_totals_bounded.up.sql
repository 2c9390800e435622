-- Byte-count domains are host-like names, and a project keeps apart its
-- 100 with the most bytes (stats.DomainsKept): the others, and any name
-- that is no host-like name, are summed in 'other', as the rollup does from
-- now on.
WITH ranked AS (
    SELECT t.project_id, t.domain, t.domain ~ '^[a-z0-9][a-z0-9._-]{0,62}$' AS host,
           row_number() OVER (PARTITION BY t.project_id
                              ORDER BY t.domain ~ '^[a-z0-9][a-z0-9._-]{0,62}$' DESC, t.bytes DESC, t.domain) AS n
    FROM domain_totals t
    WHERE t.domain <> 'other'
), dropped AS (
    DELETE FROM domain_totals t USING ranked r
    WHERE t.project_id = r.project_id AND t.domain = r.domain AND (r.n > 100 OR NOT r.host)
    RETURNING t.project_id, t.bytes
)
INSERT INTO domain_totals AS s (project_id, domain, bytes)
SELECT dropped.project_id, 'other', LEAST(sum(dropped.bytes), 9223372036854775807)::bigint
FROM dropped
GROUP BY dropped.project_id
ON CONFLICT (project_id, domain) DO UPDATE SET bytes = LEAST(s.bytes::numeric + excluded.bytes, 9223372036854775807)::bigint;
