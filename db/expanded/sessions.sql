-- name: SessionsDeleteExpired :execrows
DELETE FROM sessions WHERE expiry < now();
