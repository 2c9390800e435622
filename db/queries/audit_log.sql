-- name: AuditLogPrune :execrows
-- Drops audit entries older than @keep.
DELETE FROM audit_log WHERE at < now() - @keep::interval;
