-- The bytes item i's parameters take in an answer, as sent (0: it has
-- none): read only when the project has any (the condition names no item,
-- so it is checked once per statement), each a probe of item_params' key
-- that reads no document.
CASE WHEN EXISTS (SELECT 1 FROM item_params x WHERE x.project_id = @project_id)
     THEN coalesce((SELECT coalesce(ip.bytes, sent_bytes(ip.params::text)) FROM item_params ip
                    WHERE ip.project_id = @project_id AND ip.id = i.id), 0)
     ELSE 0 END::bigint AS bytes
