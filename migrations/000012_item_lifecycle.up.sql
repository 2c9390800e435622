-- Claims that expired: who held an item, from when, until the claim ran
-- out. The history of an item that failed (a project's max_claims sends an
-- item whose claim expires after that many hand-outs to the 'error' queue,
-- which no request is served from), each downloader's expired claims for
-- the admin panel and its downloader page, and expired_claims_limit.
-- Written by the statements that expire claims, in the same statement:
-- never one more statement on a request or a done.
CREATE TABLE claim_expiries (
    project_id integer     NOT NULL,
    id         bigint      NOT NULL,
    downloader text        NOT NULL,
    claimed_at timestamptz NOT NULL,
    expired_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX claim_expiries_item ON claim_expiries (project_id, id);
CREATE INDEX claim_expiries_downloader ON claim_expiries (project_id, downloader, expired_at);
