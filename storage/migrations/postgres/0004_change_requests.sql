-- Change requests (branches of a space's content) and comments.
--
-- A change request's content is ordinary revisions of its space that are
-- never activated: revision_id is its head, revision_base the last revision
-- it shares with the main content (the revision it started from, then the
-- main revision it was last updated from). Three-way merges use that base.

CREATE TABLE change_requests (
    id                       TEXT COLLATE "C" PRIMARY KEY,
    space_id                 TEXT COLLATE "C" NOT NULL REFERENCES spaces(id) ON DELETE CASCADE,
    number                   BIGINT NOT NULL,            -- 1, 2, 3 ... per space
    status                   TEXT COLLATE "C" NOT NULL,               -- draft | open | archived | merged
    subject                  TEXT COLLATE "C" NOT NULL DEFAULT '',
    agent_task_id            TEXT COLLATE "C",
    created_by               TEXT COLLATE "C" NOT NULL REFERENCES users(id),
    created_at               BIGINT NOT NULL,
    updated_at               BIGINT NOT NULL,
    revision_id              TEXT COLLATE "C" NOT NULL,               -- head of the branch
    revision_initial         TEXT COLLATE "C" NOT NULL,               -- main revision it started from
    revision_base            TEXT COLLATE "C" NOT NULL,               -- last revision shared with main
    revision_merged_ancestor TEXT COLLATE "C",                        -- main revision of the last update
    revision_merged          TEXT COLLATE "C",                        -- the main revision the merge made
    comments                 BIGINT NOT NULL DEFAULT 0,  -- open comments, kept exact by comment writes
    UNIQUE (space_id, number)
);
CREATE INDEX change_requests_by_status ON change_requests (space_id, status, number);

-- Who changed a change request's content (its creator included).
CREATE TABLE change_request_contributors (
    change_request_id TEXT COLLATE "C" NOT NULL REFERENCES change_requests(id) ON DELETE CASCADE,
    user_id           TEXT COLLATE "C" NOT NULL,
    PRIMARY KEY (change_request_id, user_id)
);
CREATE INDEX change_request_contributors_by_user ON change_request_contributors (user_id, change_request_id);

-- The change request a merge revision came from.
ALTER TABLE revisions ADD COLUMN merged_from TEXT COLLATE "C";

-- Comments and their replies (parent_id set). change_request_id is '' for
-- comments on the space itself.
CREATE TABLE comments (
    id                TEXT COLLATE "C" PRIMARY KEY,
    space_id          TEXT COLLATE "C" NOT NULL REFERENCES spaces(id) ON DELETE CASCADE,
    change_request_id TEXT COLLATE "C" NOT NULL DEFAULT '',
    parent_id         TEXT COLLATE "C" NOT NULL DEFAULT '',
    posted_by         TEXT COLLATE "C" NOT NULL REFERENCES users(id),
    posted_at         BIGINT NOT NULL,
    edited_at         BIGINT,
    body              TEXT COLLATE "C" NOT NULL,                      -- Markdown
    revision_id       TEXT COLLATE "C" NOT NULL,                      -- revision the target was read in
    page_id           TEXT COLLATE "C" NOT NULL DEFAULT '',
    page_title        TEXT COLLATE "C" NOT NULL DEFAULT '',           -- snapshot, for pages that went away
    page_path         TEXT COLLATE "C" NOT NULL DEFAULT '',
    node_id           TEXT COLLATE "C" NOT NULL DEFAULT '',
    table_record      TEXT COLLATE "C" NOT NULL DEFAULT '',
    table_definition  TEXT COLLATE "C" NOT NULL DEFAULT '',
    status            TEXT COLLATE "C" NOT NULL DEFAULT 'open',       -- open | resolved (comments; replies keep open)
    resolved_at       BIGINT,
    resolved_by       TEXT COLLATE "C",
    replies           BIGINT NOT NULL DEFAULT 0
);
CREATE INDEX comments_by_scope ON comments (space_id, change_request_id, parent_id, posted_at, id);
CREATE INDEX comments_by_author ON comments (space_id, change_request_id, posted_by);

CREATE TABLE comment_reactions (
    comment_id TEXT COLLATE "C" NOT NULL REFERENCES comments(id) ON DELETE CASCADE,
    emoji      TEXT COLLATE "C" NOT NULL,
    user_id    TEXT COLLATE "C" NOT NULL,
    reacted_at BIGINT NOT NULL,
    PRIMARY KEY (comment_id, emoji, user_id)
);
