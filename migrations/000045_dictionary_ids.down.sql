-- Back to ids that count up: the old dictionaries take their old ids, the
-- ones installed since the ids after them, in the order of their ids.
UPDATE dictionaries d SET id = n.id
FROM (
    SELECT id AS stamp, coalesce(legacy_id, (SELECT coalesce(max(legacy_id), 0) FROM dictionaries)
        + row_number() OVER (PARTITION BY legacy_id IS NULL ORDER BY id)) AS id
    FROM dictionaries
) n
WHERE d.id = n.stamp;
DROP INDEX dictionaries_legacy_id;
ALTER TABLE dictionaries DROP COLUMN legacy_id;
ALTER TABLE dictionaries ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY;
SELECT setval(pg_get_serial_sequence('dictionaries', 'id'), coalesce(max(id), 0) + 1, false) FROM dictionaries;
