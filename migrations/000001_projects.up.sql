-- Projects are the one table every other table is keyed by first: no hot
-- query crosses projects, so the schema can be distributed by project_id.
CREATE TABLE projects (
    id         integer     GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    -- The slug is the first segment of every warrior URL ({base}/{slug}/request).
    slug       text        NOT NULL UNIQUE CHECK (slug ~ '^[a-z0-9][a-z0-9_-]{0,63}$'),
    title      text        NOT NULL DEFAULT '',
    -- Engine and project-file settings; the Go type projects.Config is the
    -- schema of this document and the only place it is validated.
    config     jsonb       NOT NULL DEFAULT '{}',
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now()
);
