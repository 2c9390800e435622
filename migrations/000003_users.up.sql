-- Admin accounts of the web panel.
CREATE TABLE users (
    id            integer     GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    username      text        NOT NULL CHECK (username ~ '^[A-Za-z0-9_.-]{1,64}$'),
    -- bcrypt hash of the password.
    password_hash text        NOT NULL,
    -- 'admin' runs everything; 'project_admin' only the projects granted below.
    role          text        NOT NULL CHECK (role IN ('admin', 'project_admin')),
    created_at    timestamptz NOT NULL DEFAULT now()
);

-- Usernames are unique regardless of case, so "Alice" cannot shadow "alice".
CREATE UNIQUE INDEX users_username ON users (lower(username));

CREATE TABLE project_admins (
    user_id    integer NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    project_id integer NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    PRIMARY KEY (user_id, project_id)
);

-- Web panel sessions, in the layout the scs pgxstore expects (it hard-codes
-- the table name).
CREATE TABLE sessions (
    token  text        PRIMARY KEY,
    data   bytea       NOT NULL,
    expiry timestamptz NOT NULL
);

CREATE INDEX sessions_expiry ON sessions (expiry);
