-- name: AuditLogPrune :execrows
-- Drops audit entries older than @keep.
DELETE FROM audit_log WHERE at < now() - @keep::interval;

-- name: AuditLogInsert :exec
INSERT INTO audit_log (user_id, username, ip, action, project_id, detail)
VALUES (@user_id, @username, @ip, @action, @project_id, @detail);

-- name: AuditLogList :many
-- The newest entries first, optionally of one project, one user or one
-- action, made at or after @since and before @until (each when not null),
-- before @before_id (0: from the newest).
SELECT a.*, coalesce(p.slug, '')::text AS project_slug
FROM audit_log a LEFT JOIN projects p ON p.id = a.project_id
WHERE (@project_id::integer = 0 OR a.project_id = @project_id::integer)
  AND (@username::text = '' OR a.username = @username::text)
  AND (@action::text = '' OR a.action = @action::text)
  AND (sqlc.narg('since')::timestamptz IS NULL OR a.at >= sqlc.narg('since')::timestamptz)
  AND (sqlc.narg('until')::timestamptz IS NULL OR a.at < sqlc.narg('until')::timestamptz)
  AND (@before_id::bigint = 0 OR a.id < @before_id::bigint)
ORDER BY a.id DESC
LIMIT @max;

-- name: AuditLogBegin :one
-- Writes the entry of an action done in batches, before the first.
INSERT INTO audit_log (user_id, username, ip, action, project_id, detail)
VALUES (@user_id, @username, @ip, @action, @project_id, @detail)
RETURNING id;

-- name: AuditLogCount :exec
-- Adds @n to the count @key of a batched action's entry, in the batch's
-- transaction.
UPDATE audit_log
SET detail = jsonb_set(detail, ARRAY[@key::text],
                       to_jsonb(coalesce((detail ->> @key::text)::bigint, 0) + @n::bigint))
WHERE id = @id;
