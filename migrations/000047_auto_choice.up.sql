-- The project the projects file names as auto_project, chosen from the
-- setting's priority list (projects.Store.AutoChoice) and kept here so
-- that every tracker process behind one address names the same one, and
-- none decides again before a minute has passed: warriors follow one
-- answer, and a project short of items does not flap in and out.
CREATE TABLE auto_choice (
    -- One row, there from the start: a decision locks it.
    one        boolean PRIMARY KEY DEFAULT true CHECK (one),
    -- The auto_project setting (its list) the choice was made from: a
    -- changed list is decided again at once.
    list       text NOT NULL,
    -- The slug chosen; '' for none.
    slug       text NOT NULL,
    -- Why, for the admin panel.
    reason     text NOT NULL,
    decided_at timestamptz NOT NULL
);
INSERT INTO auto_choice (list, slug, reason, decided_at) VALUES ('', '', '', 'epoch');
