-- API tokens: what scripts and bots send (Authorization: Bearer ...) to
-- the /api/v1/ routes, each acting as the account that made it. Only the
-- SHA-256 of the token's secret is kept; the secret is shown once, when the
-- token is made. A token is "read" (it reads a project's configuration,
-- counts and the audit log) or "write" (it changes them too), and acts on
-- project_ids only when they are set (NULL: every project its account
-- runs, as the account's grants stand at each request). Revoked tokens
-- stay listed, with when they were revoked. What the users package writes
-- (name, hash, scope) is checked by tracker check (the books), not here.
CREATE TABLE api_tokens (
    id           integer     GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    user_id      integer     NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    name         text        NOT NULL,
    secret_hash  bytea       NOT NULL,
    scope        text        NOT NULL,
    project_ids  integer[],
    created_at   timestamptz NOT NULL DEFAULT now(),
    last_used_at timestamptz,
    revoked_at   timestamptz
);

CREATE INDEX api_tokens_user ON api_tokens (user_id);
