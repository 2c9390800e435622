-- The bytes an item's parameters take in an answer: a claim adds up the
-- parameters it hands each request (items.MaxAnswerParamsBytes) from this
-- column, without reading the documents of the items it leaves queued.
-- Written with the parameters, as the tracker encoded them on the way in
-- (items.normalDocument), which is what an answer sends. NULL for the
-- parameters of items queued before: a claim measures those on their text
-- (sent_bytes). Adding a column without a default only changes the
-- catalogue.
ALTER TABLE item_params ADD COLUMN bytes integer;

-- sent_bytes is the most bytes a JSON document read as text (params::text)
-- takes in an answer: the answer's encoder (Go's encoding/json) drops the
-- spaces jsonb prints after each , and : but writes each <, > and & as
-- \u003c (6 bytes for 1) and U+2028 and U+2029 as \u2028 (6 for 3).
CREATE FUNCTION sent_bytes(doc text) RETURNS bigint
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    RETURN octet_length(doc)
           + 5 * (octet_length(doc) - octet_length(translate(doc, '<>&', '')))
           + (octet_length(doc) - octet_length(translate(doc, U&'\2028\2029', '')));
