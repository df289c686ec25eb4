-- Review of change requests: the reviewers asked for, the reviews given
-- (one per reviewer: a new review replaces the reviewer's previous one),
-- and how many edits each contributor made and when they last did.

CREATE TABLE change_request_reviewers (
    change_request_id TEXT NOT NULL REFERENCES change_requests(id) ON DELETE CASCADE,
    user_id           TEXT NOT NULL,
    requested_by      TEXT NOT NULL,
    revision_id       TEXT NOT NULL,            -- the change request's head when asked
    created_at        BIGINT NOT NULL,
    PRIMARY KEY (change_request_id, user_id)
);
CREATE INDEX change_request_reviewers_by_time ON change_request_reviewers (change_request_id, created_at, user_id);

CREATE TABLE change_request_reviews (
    id                TEXT PRIMARY KEY,
    change_request_id TEXT NOT NULL REFERENCES change_requests(id) ON DELETE CASCADE,
    reviewer          TEXT NOT NULL,
    requested_by      TEXT,                     -- who asked for it, if anyone did
    status            TEXT NOT NULL,            -- approved | changes-requested
    revision_id       TEXT NOT NULL,            -- the head it was made against
    comment_id        TEXT,
    created_at        BIGINT NOT NULL,
    UNIQUE (change_request_id, reviewer)
);
CREATE INDEX change_request_reviews_by_time ON change_request_reviews (change_request_id, created_at, id);

-- Edits made before this migration are not known: contributors start at 0
-- and at the change request's last update.
ALTER TABLE change_request_contributors ADD COLUMN edits BIGINT NOT NULL DEFAULT 0;
ALTER TABLE change_request_contributors ADD COLUMN updated_at BIGINT NOT NULL DEFAULT 0;
UPDATE change_request_contributors SET updated_at = (SELECT cr.updated_at FROM change_requests cr WHERE cr.id = change_request_contributors.change_request_id);
