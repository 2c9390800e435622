-- The answer of a statement that hands items out to slots: each item
-- claimed (taken_for: slot, id, name, claim_count, the bytes of its
-- parameters and what it takes in the answer; claimed: the ids claimed)
-- with its parameters when it has some; then a row, cut, for each item left queued because its request's
-- answer had no room for it (sized: slot, id, fits). The includer sorts.
SELECT t.slot::integer AS slot, t.id, t.name, t.claim_count,
       CASE WHEN t.bytes > 0
            THEN coalesce((SELECT ip.params::text FROM item_params ip WHERE ip.project_id = @project_id AND ip.id = t.id), '')
            ELSE '' END::text AS params,
       t.sent::bigint AS sent, false AS cut
FROM taken_for t JOIN claimed ON claimed.id = t.id
UNION ALL
SELECT sized.slot::integer, sized.id, ''::text, 0, ''::text, 0::bigint, true FROM sized WHERE NOT sized.fits
