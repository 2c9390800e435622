-- name: ItemTagOf :one
-- An item's update tag: the one it was queued with last ('' for none).
SELECT coalesce((SELECT tag FROM item_tags WHERE project_id = @project_id AND id = @id), '')::text AS tag;
