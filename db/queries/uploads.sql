-- name: UploadInsert :exec
INSERT INTO uploads (project_id, uploader, item, server, ip)
VALUES (@project_id, @uploader, @item, @server, @ip);

-- name: UploadsPurgeBatch :execrows
-- Deletes up to @max of a deleting project's rows (see projects.Purge).
DELETE FROM uploads WHERE ctid = ANY(ARRAY(SELECT p.ctid FROM uploads p WHERE p.project_id = @project_id LIMIT @max));
