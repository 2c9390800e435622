-- name: SettingsAll :many
SELECT key, value FROM settings ORDER BY key;

-- name: SettingPut :exec
INSERT INTO settings (key, value) VALUES (@key, @value)
ON CONFLICT (key) DO UPDATE SET value = excluded.value;
