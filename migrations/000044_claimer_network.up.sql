-- The address of an item's previous holder, beside its nick: a claim
-- reclaimed for another downloader keeps its previous holder's address,
-- and an item put back in its queue (claim expired or released) keeps its
-- last holder's, carried into the claim that takes it next. A project with
-- claimer_network completes or releases an item for its holder or last
-- holder only from the network that holder claimed it from (see
-- DoneRecordBatch, ClaimsRelease). NULL where no address is known (no
-- previous holder, a claim made by an admin, or made before this column);
-- adding a column without a default only changes the catalogue.
ALTER TABLE claims ADD COLUMN last_ip inet;
ALTER TABLE todo ADD COLUMN last_ip inet;

-- same_network says whether two client addresses are of one network: the
-- same /24 of IPv4, the same /48 of IPv6 (a site's allocation; a
-- subscriber gets at least a /64 of it, and may be renumbered within it).
-- An address unknown (NULL) on either side is of any network: there is
-- nothing to compare. An IPv4 and an IPv6 address are of none. Plain SQL
-- that the planner expands into the statements calling it.
CREATE FUNCTION same_network(a inet, b inet) RETURNS boolean
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    RETURN a IS NULL OR b IS NULL
        OR a <<= set_masklen(b, CASE WHEN family(b) = 4 THEN 24 ELSE 48 END);
