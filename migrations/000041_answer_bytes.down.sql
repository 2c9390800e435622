DROP FUNCTION answer_bytes(text, bigint);
