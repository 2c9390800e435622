-- answer_bytes is what an item adds to a request's answer, as sent, given
-- its name and the bytes its parameters take (0: it has none): its name in
-- the answer's list of names, a JSON string after a \u0000; and, with
-- parameters, its name again as their key, a colon, a comma and the
-- parameters. A claim adds these up per request and takes no item past
-- items.MaxAnswerBytes. The name is measured as the answer's encoder (Go's
-- encoding/json) writes it: to_json's escapes are the same, and sent_bytes
-- adds the ones only Go writes (<, > and &, U+2028 and U+2029). STABLE, as
-- to_json is, so that the planner puts the body in the statement.
CREATE FUNCTION answer_bytes(name text, params_bytes bigint) RETURNS bigint
    LANGUAGE sql STABLE PARALLEL SAFE
    RETURN sent_bytes(to_json(name)::text) * CASE WHEN params_bytes > 0 THEN 2 ELSE 1 END + 6
           + CASE WHEN params_bytes > 0 THEN params_bytes + 2 ELSE 0 END;
