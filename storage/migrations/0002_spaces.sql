-- STUB until the spaces family lands (branch spaces): the minimal spaces and
-- revisions tables the content engine needs to build and test. The spaces
-- branch owns this file; on merge its version replaces this one.
CREATE TABLE spaces (
    id              TEXT PRIMARY KEY,
    organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    title           TEXT NOT NULL DEFAULT '',
    visibility      TEXT NOT NULL DEFAULT 'private',
    edit_mode       TEXT NOT NULL DEFAULT 'live',
    revision        TEXT NOT NULL,
    created_at      INTEGER NOT NULL,
    updated_at      INTEGER NOT NULL,
    deleted_at      INTEGER
);

CREATE TABLE revisions (
    id         TEXT PRIMARY KEY,
    space_id   TEXT NOT NULL REFERENCES spaces(id) ON DELETE CASCADE,
    parents    TEXT NOT NULL DEFAULT '[]',
    type       TEXT NOT NULL DEFAULT 'edits',
    created_at INTEGER NOT NULL
);
