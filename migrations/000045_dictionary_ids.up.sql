-- A dictionary's id, as served, is the Unix second it was installed, ten
-- digits, as ArchiveTeam's dictionary trainer makes them: the staging
-- servers' packer reads it back from the names of the files grab scripts
-- upload (`.{project}.{id}.warc.zst`, exactly ten digits) and asks for that
-- dictionary by it (docs/PROTOCOL.md, "GET /dictionary"). Ids are given in
-- the order dictionaries are installed: one installed in a second already
-- taken gets the second after the newest (DictionaryInsert), so the newest
-- dictionary, the one served, is the one of the greatest id. The row's
-- own id stays the key it was, never served any more (a new column, not a
-- renumbered identity: Citus alters no identity of a reference table).
ALTER TABLE dictionaries ADD COLUMN public_id bigint;

-- The dictionaries installed before keep their old id, which was served,
-- beside the new one: files were named with it, and their address
-- (/dictionary/N-TOKEN) was handed out. NULL for those installed since.
ALTER TABLE dictionaries ADD COLUMN legacy_id bigint;

-- Each old dictionary's second, in the order they were installed; one in a
-- second taken by an earlier one gets the next second free after it. The
-- n-th dictionary's id is n plus the greatest (second - position) of those
-- up to it: its own second, or the id before it plus one, whichever is
-- later.
UPDATE dictionaries d SET legacy_id = d.id, public_id = n.public_id
FROM (
    SELECT id, pos + max(second - pos) OVER (ORDER BY id ROWS UNBOUNDED PRECEDING) AS public_id
    FROM (
        SELECT id, floor(extract(epoch FROM created_at))::bigint AS second, row_number() OVER (ORDER BY id) AS pos
        FROM dictionaries
    ) s
) n
WHERE d.id = n.id;

ALTER TABLE dictionaries ALTER COLUMN public_id SET NOT NULL;
CREATE UNIQUE INDEX dictionaries_public_id ON dictionaries (public_id);
CREATE UNIQUE INDEX dictionaries_legacy_id ON dictionaries (legacy_id);
