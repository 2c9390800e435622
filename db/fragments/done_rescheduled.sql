-- In a recurring project, the items a done batch completed rescored by the
-- factor reported, and scheduled for their next visit or retired
-- (DoneRecordBatch, step 5).
rescored AS (
    -- Nothing at all unless the project is recurring. The score is a probe
    -- of its key per item: a join could be planned as a read of all the
    -- project's scores. Scores stay within 1e-200 and 1e200, so with
    -- factors of at most 100 and at least 1e-6 no product overflows.
    SELECT c.id, c.name, c.site,
           least(greatest(coalesce((SELECT s.score FROM item_scores s WHERE s.project_id = @project_id AND s.id = c.id), 1)
                          * coalesce(c.factor, 1), 1e-200), 1e200) AS score
    FROM completions c
    WHERE @recurring::boolean
), scores_kept AS (
    INSERT INTO item_scores AS s (project_id, id, score)
    SELECT @project_id, rescored.id, rescored.score FROM rescored
    ON CONFLICT (project_id, id) DO UPDATE SET score = excluded.score
), scheduled AS (
    INSERT INTO revisits (project_id, due_at, id, name, score, site)
    SELECT @project_id, now() + @revisit_after::interval, rescored.id, rescored.name, rescored.score, rescored.site
    FROM rescored WHERE rescored.score >= @retire_below::float8
    RETURNING 1
), retired AS (
    INSERT INTO todo (project_id, queue, type, site, id, name)
    SELECT @project_id, 'retired', '', rescored.site, rescored.id, rescored.name
    FROM rescored WHERE rescored.score < @retire_below::float8
    ON CONFLICT DO NOTHING
    RETURNING 1
