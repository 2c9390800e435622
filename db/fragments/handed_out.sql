-- The answer of a statement that hands items out to slots: each item
-- claimed (taken_for: slot, id, name, claim_count, the bytes of its
-- parameters and what it takes in the answer; those not claimed went
-- back to their queue, put_back: their ids) with its parameters when it
-- has some; then a row, cut, for each item left queued because its
-- request's answer had no room for it (sized: slot, id, fits). The items
-- put back are looked up in a hash of them: a join of two parts of the
-- statement is planned without their sizes, and may be a loop over one
-- for each row of the other. The includer sorts.
SELECT t.slot::integer AS slot, t.id, t.name, t.claim_count,
       CASE WHEN t.bytes > 0
            THEN coalesce((SELECT ip.params::text FROM item_params ip WHERE ip.project_id = @project_id AND ip.id = t.id), '')
            ELSE '' END::text AS params,
       t.sent::bigint AS sent, false AS cut
FROM taken_for t
WHERE t.id NOT IN (SELECT put_back.id FROM put_back)
UNION ALL
SELECT sized.slot::integer, sized.id, ''::text, 0, ''::text, 0::bigint, true FROM sized WHERE NOT sized.fits
