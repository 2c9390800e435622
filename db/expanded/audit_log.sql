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

-- name: AuditLogReserve :one
-- The id and time of the entry of an action done in batches that is
-- written by its first batch to change something (AuditLogTally).
SELECT nextval(pg_get_serial_sequence('audit_log', 'id'))::bigint AS id, now()::timestamptz AS at;

-- name: AuditLogTally :exec
-- Adds @n to the count @key of the entry @id reserved by AuditLogReserve,
-- in the batch's transaction, writing the entry (@detail, with @n as its
-- count) when it is not there yet. Two batches committing at once: the
-- second waits for the first's entry, and adds to it (or writes it, when
-- the first rolled back).
INSERT INTO audit_log (id, at, user_id, username, ip, action, project_id, detail)
OVERRIDING SYSTEM VALUE
VALUES (@id, @at, @user_id, @username, @ip, @action, @project_id, jsonb_set(@detail::jsonb, ARRAY[@key::text], CAST(@n::bigint AS text)::jsonb))
-- The count as text read as a document: to_jsonb is not immutable, and
-- Citus takes only immutable functions in DO UPDATE SET.
ON CONFLICT (id) DO UPDATE
SET detail = jsonb_set(audit_log.detail, ARRAY[@key::text],
                       (coalesce((audit_log.detail ->> @key::text)::bigint, 0) + @n::bigint)::text::jsonb);

-- name: AuditLogNote :exec
-- Adds @note's keys to the detail of entry @id, if it was written.
UPDATE audit_log SET detail = detail || @note::jsonb WHERE id = @id;

-- name: AuditLogOfItem :many
-- The newest @max entries of project @project_id that name an item: a
-- single-item action as "item", or its whole name as the "pattern" of a
-- selection (@exactly, the item's name quoted as a regular expression), a
-- bulk action on a selection in "names". On audit_log_detail.
-- The entries are found by their details alone, then kept if they are
-- the project's, then ordered: a plan reading the log newest first, or
-- the project's entries, filtered, would read all of them for an item
-- named by none.
WITH named AS MATERIALIZED (
    SELECT a.id, a.at, a.username, a.ip, a.action, a.detail FROM audit_log a
    WHERE (a.detail @> jsonb_build_object('item', @name::text)
           OR a.detail @> jsonb_build_object('pattern', @exactly::text)
           OR a.detail @> jsonb_build_object('names', jsonb_build_array(@name::text)))
      AND a.project_id IS NOT DISTINCT FROM @project_id::integer
)
SELECT named.id, named.at, named.username, named.ip, named.action, named.detail::text AS detail
FROM named
ORDER BY named.id DESC
LIMIT @max;
