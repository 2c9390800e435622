-- An import batch hashed and numbered (TodoAddUnseen, step 1; on Citus
-- SeenAddBatch and SeenOfBatch too): each name with its key's hash in its
-- shard, its own hash when that differs, its id, its parameters, site and
-- update tag.
batch AS MATERIALIZED (
    SELECT b.name, item_key_hash(@shard::text, coalesce(b.key, b.name)) AS hash,
           CASE WHEN b.key IS NULL AND @shard::text = '' THEN NULL ELSE item_hash(b.name) END AS item,
           CASE WHEN @shuffle::boolean
                -- if citus
                -- The id seen drew for a new name (SeenAddBatch, which draws
                -- them: @fresh_ids empty there), by its low 20 bits, its
                -- place in the batch; a name seen before draws one unused.
                THEN coalesce((SELECT f.id FROM unnest(@fresh_ids::bigint[]) AS f (id) WHERE f.id & 1048575 = b.ord),
                              (floor(random() * 1099511627776)::bigint << 23) | (((@id_block::bigint << 20) | b.ord) & 8388607))
                -- else
                THEN (floor(random() * 1099511627776)::bigint << 23) | (((@id_block::bigint << 20) | b.ord) & 8388607)
                -- end if
                ELSE (@id_block::bigint << 20) | b.ord END AS id,
           b.params, coalesce(b.site, 0) AS site, coalesce(b.tag, '') AS tag
    -- The arrays side by side: a missing one reads as NULLs.
    FROM ROWS FROM (unnest(@names::text[]), unnest(@keys::text[]), unnest(@params::text[]), unnest(@sites::integer[]), unnest(@tags::text[]))
         WITH ORDINALITY AS b (name, key, params, site, tag, ord)
