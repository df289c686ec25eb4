-- Collections, spaces, their first revisions and content grants.
--
-- Order: every collection and space has a `position` among its siblings (a
-- fixed-width decimal text, so that text order is numeric order) and a
-- `sort_key`: the parent's sort_key, '/', then its own position. Ordering by
-- sort_key lists a whole organization in tree order (a collection, then
-- what it holds), so every list, nested or not, returns the stored order.

CREATE TABLE collections (
    id              TEXT PRIMARY KEY,
    organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    parent_id       TEXT REFERENCES collections(id),  -- NULL: top level; deletes are handled in code
    title           TEXT NOT NULL,
    description     TEXT,
    default_level   TEXT DEFAULT 'inherit',           -- a role, 'inherit', or NULL (no default access)
    position        TEXT NOT NULL,
    sort_key        TEXT NOT NULL,
    created_at      INTEGER NOT NULL,
    updated_at      INTEGER NOT NULL
);
CREATE INDEX collections_by_org ON collections (organization_id, sort_key, id);
CREATE INDEX collections_by_parent ON collections (parent_id, position, id);

CREATE TABLE spaces (
    id                    TEXT PRIMARY KEY,
    organization_id       TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    parent_id             TEXT REFERENCES collections(id),
    title                 TEXT NOT NULL,
    emoji                 TEXT,
    icon                  TEXT,
    visibility            TEXT NOT NULL,
    edit_mode             TEXT NOT NULL,              -- live | locked
    default_level         TEXT DEFAULT 'inherit',
    revision_id           TEXT NOT NULL,              -- the active revision (no FK: created in the same transaction)
    -- counters kept exact by the families that change them, in the same transaction
    comments              INTEGER NOT NULL DEFAULT 0,
    change_requests       INTEGER NOT NULL DEFAULT 0,
    change_requests_open  INTEGER NOT NULL DEFAULT 0,
    change_requests_draft INTEGER NOT NULL DEFAULT 0,
    position              TEXT NOT NULL,
    sort_key              TEXT NOT NULL,
    created_at            INTEGER NOT NULL,
    updated_at            INTEGER NOT NULL,
    deleted_at            INTEGER                     -- set while in the trash
);
CREATE INDEX spaces_by_org ON spaces (organization_id, deleted_at, sort_key, id);
CREATE INDEX spaces_by_org_created ON spaces (organization_id, deleted_at, created_at, id);
CREATE INDEX spaces_by_parent ON spaces (parent_id, deleted_at, sort_key, id);
CREATE INDEX spaces_by_deleted ON spaces (deleted_at);

-- Revisions of a space's content. The content family adds pages and files.
CREATE TABLE revisions (
    id         TEXT PRIMARY KEY,
    space_id   TEXT NOT NULL REFERENCES spaces(id) ON DELETE CASCADE,
    parents    TEXT NOT NULL DEFAULT '[]',            -- JSON array of revision ids
    type       TEXT NOT NULL,                         -- edits | merge | rollback | update | computed
    created_at INTEGER NOT NULL
);
CREATE INDEX revisions_by_space ON revisions (space_id, created_at, id);

-- A role on a space or a collection given to a team or a member. Grants on
-- a collection reach everything under it.
CREATE TABLE content_grants (
    organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    target_kind     TEXT NOT NULL,                    -- space | collection
    target_id       TEXT NOT NULL,
    principal_kind  TEXT NOT NULL,                    -- team | user
    principal_id    TEXT NOT NULL,
    role            TEXT NOT NULL,
    created_at      INTEGER NOT NULL,
    PRIMARY KEY (target_kind, target_id, principal_kind, principal_id)
);
CREATE INDEX content_grants_by_principal ON content_grants (organization_id, principal_kind, principal_id);
CREATE INDEX content_grants_by_target ON content_grants (target_kind, target_id, created_at, principal_id);
