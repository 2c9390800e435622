-- name: UploadInsert :exec
INSERT INTO uploads (project_id, uploader, item, server, ip)
VALUES (@project_id, @uploader, @item, @server, @ip);
