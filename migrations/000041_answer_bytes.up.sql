-- answer_bytes is what an item adds to a request's answer, as sent, given
-- its name and the bytes its parameters take (0: it has none): its name in
-- the answer's list of names, a JSON string after a \u0000; and, with
-- parameters, its name again as their key, a colon, a comma and the
-- parameters. A claim adds these up per request and takes no item past
-- items.MaxAnswerBytes. The name is measured as the answer's encoder (Go's
-- encoding/json) writes it: its bytes and two quotes, one more for each "
-- and \, five more for each <, > and & (\u003c) and each control
-- character (\u0001; a tab, written \t, is counted so too: the bound errs
-- on the safe side), three more for U+2028 and U+2029. Names hold no NUL,
-- CR or newline. Most names hold none of these, and cost one match of a
-- character class; to_json would cost ten times as much on every name.
CREATE FUNCTION answer_bytes(name text, params_bytes bigint) RETURNS bigint
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    RETURN (CASE WHEN name ~ '[\x01-\x1f"\\<>&\u2028\u2029]'
                 THEN octet_length(name) + 2 + regexp_count(name, '["\\]')
                      + 5 * regexp_count(name, '[<>&\x01-\x1f]') + 3 * regexp_count(name, '[\u2028\u2029]')
                 ELSE octet_length(name) + 2 END)
           * CASE WHEN params_bytes > 0 THEN 2 ELSE 1 END + 6
           + CASE WHEN params_bytes > 0 THEN params_bytes + 2 ELSE 0 END;
