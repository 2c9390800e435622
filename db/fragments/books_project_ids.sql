-- The projects each table keyed by project holds rows of, one CTE a table
-- (TABLE_ids), each a skip scan of an index leading with project_id: the
-- least project id, then the least above it, and so on, a probe per
-- project holding rows rather than a read of the rows (BooksOrphans).
archived_ids (id) AS (
    SELECT min(project_id) FROM archived
    UNION ALL SELECT (SELECT min(t.project_id) FROM archived t WHERE t.project_id > i.id) FROM archived_ids i WHERE i.id IS NOT NULL),
archives_ids (id) AS (
    SELECT min(project_id) FROM archives
    UNION ALL SELECT (SELECT min(t.project_id) FROM archives t WHERE t.project_id > i.id) FROM archives_ids i WHERE i.id IS NOT NULL),
audit_log_ids (id) AS (
    SELECT min(project_id) FROM audit_log
    UNION ALL SELECT (SELECT min(t.project_id) FROM audit_log t WHERE t.project_id > i.id) FROM audit_log_ids i WHERE i.id IS NOT NULL),
backfeed_minutes_ids (id) AS (
    SELECT min(project_id) FROM backfeed_minutes
    UNION ALL SELECT (SELECT min(t.project_id) FROM backfeed_minutes t WHERE t.project_id > i.id) FROM backfeed_minutes_ids i WHERE i.id IS NOT NULL),
claim_expiries_ids (id) AS (
    SELECT min(project_id) FROM claim_expiries
    UNION ALL SELECT (SELECT min(t.project_id) FROM claim_expiries t WHERE t.project_id > i.id) FROM claim_expiries_ids i WHERE i.id IS NOT NULL),
claims_ids (id) AS (
    -- On claims_claimed_at, whose condition every claim meets.
    SELECT min(project_id) FROM claims WHERE claim_count > 0
    UNION ALL SELECT (SELECT min(t.project_id) FROM claims t WHERE t.claim_count > 0 AND t.project_id > i.id) FROM claims_ids i WHERE i.id IS NOT NULL),
counters_ids (id) AS (
    SELECT min(project_id) FROM counters
    UNION ALL SELECT (SELECT min(t.project_id) FROM counters t WHERE t.project_id > i.id) FROM counters_ids i WHERE i.id IS NOT NULL),
dictionaries_ids (id) AS (
    SELECT min(project_id) FROM dictionaries
    UNION ALL SELECT (SELECT min(t.project_id) FROM dictionaries t WHERE t.project_id > i.id) FROM dictionaries_ids i WHERE i.id IS NOT NULL),
domain_totals_ids (id) AS (
    SELECT min(project_id) FROM domain_totals
    UNION ALL SELECT (SELECT min(t.project_id) FROM domain_totals t WHERE t.project_id > i.id) FROM domain_totals_ids i WHERE i.id IS NOT NULL),
downloader_hours_ids (id) AS (
    SELECT min(project_id) FROM downloader_hours
    UNION ALL SELECT (SELECT min(t.project_id) FROM downloader_hours t WHERE t.project_id > i.id) FROM downloader_hours_ids i WHERE i.id IS NOT NULL),
downloaders_ids (id) AS (
    SELECT min(project_id) FROM downloaders
    UNION ALL SELECT (SELECT min(t.project_id) FROM downloaders t WHERE t.project_id > i.id) FROM downloaders_ids i WHERE i.id IS NOT NULL),
feed_ids (id) AS (
    SELECT min(project_id) FROM feed
    UNION ALL SELECT (SELECT min(t.project_id) FROM feed t WHERE t.project_id > i.id) FROM feed_ids i WHERE i.id IS NOT NULL),
item_batches_ids (id) AS (
    SELECT min(project_id) FROM item_batches
    UNION ALL SELECT (SELECT min(t.project_id) FROM item_batches t WHERE t.project_id > i.id) FROM item_batches_ids i WHERE i.id IS NOT NULL),
item_params_ids (id) AS (
    SELECT min(project_id) FROM item_params
    UNION ALL SELECT (SELECT min(t.project_id) FROM item_params t WHERE t.project_id > i.id) FROM item_params_ids i WHERE i.id IS NOT NULL),
item_scores_ids (id) AS (
    SELECT min(project_id) FROM item_scores
    UNION ALL SELECT (SELECT min(t.project_id) FROM item_scores t WHERE t.project_id > i.id) FROM item_scores_ids i WHERE i.id IS NOT NULL),
item_tags_ids (id) AS (
    SELECT min(project_id) FROM item_tags
    UNION ALL SELECT (SELECT min(t.project_id) FROM item_tags t WHERE t.project_id > i.id) FROM item_tags_ids i WHERE i.id IS NOT NULL),
rate_limits_ids (id) AS (
    SELECT min(project_id) FROM rate_limits
    UNION ALL SELECT (SELECT min(t.project_id) FROM rate_limits t WHERE t.project_id > i.id) FROM rate_limits_ids i WHERE i.id IS NOT NULL),
revisits_ids (id) AS (
    SELECT min(project_id) FROM revisits
    UNION ALL SELECT (SELECT min(t.project_id) FROM revisits t WHERE t.project_id > i.id) FROM revisits_ids i WHERE i.id IS NOT NULL),
seen_ids (id) AS (
    SELECT min(project_id) FROM seen
    UNION ALL SELECT (SELECT min(t.project_id) FROM seen t WHERE t.project_id > i.id) FROM seen_ids i WHERE i.id IS NOT NULL),
series_hours_ids (id) AS (
    SELECT min(project_id) FROM series_hours
    UNION ALL SELECT (SELECT min(t.project_id) FROM series_hours t WHERE t.project_id > i.id) FROM series_hours_ids i WHERE i.id IS NOT NULL),
series_minutes_ids (id) AS (
    SELECT min(project_id) FROM series_minutes
    UNION ALL SELECT (SELECT min(t.project_id) FROM series_minutes t WHERE t.project_id > i.id) FROM series_minutes_ids i WHERE i.id IS NOT NULL),
sites_ids (id) AS (
    SELECT min(project_id) FROM sites
    UNION ALL SELECT (SELECT min(t.project_id) FROM sites t WHERE t.project_id > i.id) FROM sites_ids i WHERE i.id IS NOT NULL),
todo_ids (id) AS (
    SELECT min(project_id) FROM todo
    UNION ALL SELECT (SELECT min(t.project_id) FROM todo t WHERE t.project_id > i.id) FROM todo_ids i WHERE i.id IS NOT NULL),
upload_targets_ids (id) AS (
    SELECT min(project_id) FROM upload_targets
    UNION ALL SELECT (SELECT min(t.project_id) FROM upload_targets t WHERE t.project_id > i.id) FROM upload_targets_ids i WHERE i.id IS NOT NULL),
uploads_ids (id) AS (
    SELECT min(project_id) FROM uploads
    UNION ALL SELECT (SELECT min(t.project_id) FROM uploads t WHERE t.project_id > i.id) FROM uploads_ids i WHERE i.id IS NOT NULL),
volunteer_days_ids (id) AS (
    SELECT min(project_id) FROM volunteer_days
    UNION ALL SELECT (SELECT min(t.project_id) FROM volunteer_days t WHERE t.project_id > i.id) FROM volunteer_days_ids i WHERE i.id IS NOT NULL),
volunteer_marks_ids (id) AS (
    SELECT min(project_id) FROM volunteer_marks
    UNION ALL SELECT (SELECT min(t.project_id) FROM volunteer_marks t WHERE t.project_id > i.id) FROM volunteer_marks_ids i WHERE i.id IS NOT NULL),
