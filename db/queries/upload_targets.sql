-- name: UploadTargetInsert :one
INSERT INTO upload_targets (project_id, url, weight, enabled)
VALUES (@project_id, @url, @weight, @enabled)
ON CONFLICT (project_id, url) DO UPDATE SET weight = excluded.weight, enabled = excluded.enabled
RETURNING *;

-- name: UploadTargetDelete :execrows
DELETE FROM upload_targets WHERE project_id = @project_id AND url = @url;

-- name: UploadTargetsForProject :many
SELECT * FROM upload_targets WHERE project_id = @project_id ORDER BY id;

-- name: BooksUploadTargetsLong :one
-- The books of the tracker: upload targets longer than an admin may enter
-- (projects.ValidTargetURL).
SELECT count(*) FROM upload_targets WHERE octet_length(url) > @max_url::int;
