CREATE OR REPLACE FUNCTION item_type(name text) RETURNS text
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    RETURN CASE WHEN strpos(name, ':') > 1 THEN split_part(name, ':', 1) ELSE '' END;

CREATE OR REPLACE FUNCTION item_key_hash(shard text, key text) RETURNS bytea
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    RETURN CASE WHEN shard = '' THEN item_hash(key)
                ELSE substring(sha256(convert_to(shard, 'UTF8') || '\x00'::bytea
                                      || convert_to(split_part(key, E'\x1F', 1), 'UTF8')) FROM 1 FOR 16)
           END;

CREATE OR REPLACE FUNCTION item_hash(name text) RETURNS bytea
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    RETURN substring(sha256(convert_to(split_part(name, E'\x1F', 1), 'UTF8')) FROM 1 FOR 16);
