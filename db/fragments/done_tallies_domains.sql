-- The bytes the tallies taken add by domain (DoneTalliesFold): the batch's
-- domains, ranked so the project keeps its 100 largest apart, the rest
-- summed under other.
batch_domains AS (
    SELECT taken.project_id, d.key AS domain, sum(d.value::numeric) AS bytes
    FROM taken, jsonb_each_text(taken.domains) AS d(key, value)
    GROUP BY 1, 2
), ranked AS (
    -- A project keeps apart its @domains_kept domains with the most bytes,
    -- stored and of this batch together; the others, and what is reported
    -- as 'other', are summed in 'other'. So its rows stay bounded however
    -- many names dones report, and the most bytes are never folded away.
    SELECT m.project_id, m.domain, m.batch, m.stored, m.fresh,
           row_number() OVER (PARTITION BY m.project_id ORDER BY m.kept + m.batch DESC, m.domain) AS n
    FROM (SELECT coalesce(b.project_id, s.project_id) AS project_id, coalesce(b.domain, s.domain) AS domain,
                 coalesce(b.bytes, 0) AS batch, coalesce(s.bytes, 0)::numeric AS kept,
                 s.domain IS NOT NULL AS stored, b.domain IS NOT NULL AS fresh
          FROM batch_domains b
          FULL JOIN (SELECT t.project_id, t.domain, t.bytes FROM domain_totals t
                     WHERE t.project_id IN (SELECT batch_domains.project_id FROM batch_domains)) s
            ON s.project_id = b.project_id AND s.domain = b.domain) m
    WHERE m.domain <> 'other'
), dropped AS (
    DELETE FROM domain_totals t USING ranked r
    WHERE r.n > @domains_kept::bigint AND r.stored AND t.project_id = r.project_id AND t.domain = r.domain
    RETURNING t.project_id, t.bytes
), domains AS (
    INSERT INTO domain_totals AS s (project_id, domain, bytes)
    SELECT ranked.project_id, ranked.domain, LEAST(ranked.batch, 9223372036854775807)::bigint
    FROM ranked
    WHERE ranked.n <= @domains_kept::bigint AND ranked.fresh
    UNION ALL
    SELECT folded.project_id, 'other', LEAST(sum(folded.bytes), 9223372036854775807)::bigint
    FROM (SELECT ranked.project_id, ranked.batch AS bytes FROM ranked WHERE ranked.n > @domains_kept::bigint
          UNION ALL SELECT dropped.project_id, dropped.bytes::numeric FROM dropped
          UNION ALL SELECT batch_domains.project_id, batch_domains.bytes FROM batch_domains WHERE batch_domains.domain = 'other') folded
    GROUP BY folded.project_id
    ORDER BY 1, 2
    ON CONFLICT (project_id, domain) DO UPDATE SET bytes = LEAST(s.bytes::numeric + excluded.bytes, 9223372036854775807)::bigint
