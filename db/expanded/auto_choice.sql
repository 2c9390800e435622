-- name: AutoChoiceGet :one
-- The auto project chosen last, and whether the choice is older than
-- @interval (by the database's clock, which every process shares).
SELECT list, slug, reason, decided_at, decided_at <= now() - @interval::interval AS stale
FROM auto_choice WHERE one;

-- name: AutoChoiceLock :one
-- AutoChoiceGet, the row locked for a decision: processes deciding at once
-- take turns, and the later ones find it made.
SELECT list, slug, reason, decided_at, decided_at <= now() - @interval::interval AS stale
FROM auto_choice WHERE one FOR UPDATE;

-- name: AutoChoicePut :one
UPDATE auto_choice SET list = @list, slug = @slug, reason = @reason, decided_at = now() WHERE one
RETURNING decided_at;

-- name: BooksAutoChoiceLong :one
-- The books of the tracker: a stored auto project choice whose texts pass
-- their bounds (the list is a setting, @max_text bytes at most; a slug
-- @max_slug; the reason @max_reason).
SELECT count(*) FROM auto_choice
WHERE octet_length(list) > @max_text::int OR octet_length(slug) > @max_slug::int
   OR octet_length(reason) > @max_reason::int;
