-- The live log (the socket.io log channel and GET /recent/{slug}-log) tells
-- who completed what with the details the original tracker's log messages
-- carried: the client's User-Agent and the names of a multi-item done,
-- beside the version and domains a tally already keeps. The feed keeps them
-- too, so a tally folded before a log reader saw it is still told whole.
ALTER TABLE done_tallies
    ADD COLUMN user_agent text   NOT NULL DEFAULT '',
    ADD COLUMN names      text[] NOT NULL DEFAULT '{}';

ALTER TABLE feed
    ADD COLUMN version    text   NOT NULL DEFAULT '',
    ADD COLUMN domains    jsonb  NOT NULL DEFAULT '{}',
    ADD COLUMN user_agent text   NOT NULL DEFAULT '',
    ADD COLUMN names      text[] NOT NULL DEFAULT '{}';
