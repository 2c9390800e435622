-- name: SettingsAll :many
SELECT key, value FROM settings ORDER BY key;

-- name: SettingPut :exec
INSERT INTO settings (key, value) VALUES (@key, @value)
ON CONFLICT (key) DO UPDATE SET value = excluded.value;

-- name: BooksSettingsLong :one
-- The books of the tracker: settings longer than the longest an admin may
-- enter (projects.SettingKeys: free text of @max_text bytes at most).
SELECT count(*) FROM settings WHERE octet_length(value) > @max_text::int;
