-- The names of an import batch to queue (TodoAddUnseen, step 2): those new
-- to the project, recorded as seen (fresh), and, when it recrawls or skips
-- the seen check, those seen before that are to be queued again (again).
fresh AS (
    -- if citus
    -- Recorded before, on every worker (SeenAddBatch): seen is spread over
    -- them, and this statement runs on the project's.
    SELECT f.id FROM unnest(@fresh_ids::bigint[]) AS f (id)
    -- else
    -- include: seen_add
    -- end if
), again AS (
    -- Seen before this statement (a name new to it is in fresh instead).
    -- Nothing is read unless the project recrawls or the post skips the
    -- seen check.
    SELECT DISTINCT ON (seen.id) seen.id, batch.name, batch.site, batch.tag, NOT due.recrawl AS skipped
    -- if citus
    -- The keys seen before, read from every worker first (SeenOfBatch).
    FROM batch JOIN ROWS FROM (unnest(@seen_hashes::bytea[]), unnest(@seen_ids::bigint[])) AS seen (hash, id) ON seen.hash = batch.hash
    -- else
    FROM batch JOIN seen ON seen.project_id = @project_id AND seen.hash = batch.hash
    -- end if
    -- Whether a recrawl queues it anyway: read only when the project
    -- recrawls (AND stops at its first false); never null (no completion:
    -- not due).
    CROSS JOIN LATERAL (SELECT coalesce(@recrawl_after::bigint > 0
      AND ((batch.tag <> '' AND batch.tag IS DISTINCT FROM (SELECT it.tag FROM item_tags it WHERE it.project_id = @project_id AND it.id = seen.id))
           OR (SELECT max(d.claimed_at) FROM done d WHERE d.project_id = @project_id AND d.id = seen.id)
              < now() - make_interval(secs => @recrawl_after::bigint)), false) AS recrawl) AS due
    WHERE (@recrawl_after::bigint > 0 OR @skip_seen::boolean)
      AND NOT EXISTS (SELECT 1 FROM claims c WHERE c.hash = item_hash(batch.name) AND c.project_id = @project_id)
      AND NOT EXISTS (SELECT 1 FROM todo t WHERE t.project_id = @project_id AND t.queue = ANY(@queues::text[])
                      AND t.type = ANY(project_limited_types(@project_id) || ARRAY['', ':site']) AND t.id = seen.id)
      -- Nor waiting for its next visit: a recurring project's schedule is
      -- the item's only way back (a project recrawling before it became
      -- recurring may still meet such items).
      AND NOT EXISTS (SELECT 1 FROM revisits r WHERE r.project_id = @project_id AND r.id = seen.id)
      AND (@skip_seen::boolean OR due.recrawl)
    ORDER BY seen.id, batch.id
