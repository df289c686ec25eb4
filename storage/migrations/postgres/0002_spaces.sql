-- Collections, spaces, their first revisions and content grants.
--
-- Order: every collection and space has a `position` among its siblings (a
-- fixed-width decimal text, so that text order is numeric order) and a
-- `sort_key`: the parent's sort_key, '/', then its own position. Ordering by
-- sort_key lists a whole organization in tree order (a collection, then
-- what it holds), so every list, nested or not, returns the stored order.

CREATE TABLE collections (
    id              TEXT COLLATE "C" PRIMARY KEY,
    organization_id TEXT COLLATE "C" NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    parent_id       TEXT COLLATE "C" REFERENCES collections(id) DEFERRABLE INITIALLY IMMEDIATE,  -- NULL: top level; deletes in code; deferrable for admin copy-db
    title           TEXT COLLATE "C" NOT NULL,
    description     TEXT COLLATE "C",
    default_level   TEXT COLLATE "C" DEFAULT 'inherit',           -- a role, 'inherit', or NULL (no default access)
    position        TEXT COLLATE "C" NOT NULL,
    sort_key        TEXT COLLATE "C" NOT NULL,
    created_at      BIGINT NOT NULL,
    updated_at      BIGINT NOT NULL
);
CREATE INDEX collections_by_org ON collections (organization_id, sort_key, id);
CREATE INDEX collections_by_parent ON collections (parent_id, position, id);

CREATE TABLE spaces (
    id                    TEXT COLLATE "C" PRIMARY KEY,
    organization_id       TEXT COLLATE "C" NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    parent_id             TEXT COLLATE "C" REFERENCES collections(id),
    title                 TEXT COLLATE "C" NOT NULL,
    emoji                 TEXT COLLATE "C",
    icon                  TEXT COLLATE "C",
    visibility            TEXT COLLATE "C" NOT NULL,
    edit_mode             TEXT COLLATE "C" NOT NULL,              -- live | locked
    default_level         TEXT COLLATE "C" DEFAULT 'inherit',
    revision_id           TEXT COLLATE "C" NOT NULL,              -- the active revision (no FK: created in the same transaction)
    -- counters kept exact by the families that change them, in the same transaction
    comments              BIGINT NOT NULL DEFAULT 0,
    change_requests       BIGINT NOT NULL DEFAULT 0,
    change_requests_open  BIGINT NOT NULL DEFAULT 0,
    change_requests_draft BIGINT NOT NULL DEFAULT 0,
    position              TEXT COLLATE "C" NOT NULL,
    sort_key              TEXT COLLATE "C" NOT NULL,
    created_at            BIGINT NOT NULL,
    updated_at            BIGINT NOT NULL,
    deleted_at            BIGINT                     -- set while in the trash
);
CREATE INDEX spaces_by_org ON spaces (organization_id, deleted_at, sort_key, id);
CREATE INDEX spaces_by_org_created ON spaces (organization_id, deleted_at, created_at, id);
CREATE INDEX spaces_by_parent ON spaces (parent_id, deleted_at, sort_key, id);
CREATE INDEX spaces_by_deleted ON spaces (deleted_at);

-- Revisions of a space's content. The content family adds pages and files.
CREATE TABLE revisions (
    id         TEXT COLLATE "C" PRIMARY KEY,
    space_id   TEXT COLLATE "C" NOT NULL REFERENCES spaces(id) ON DELETE CASCADE,
    parents    TEXT COLLATE "C" NOT NULL DEFAULT '[]',            -- JSON array of revision ids
    type       TEXT COLLATE "C" NOT NULL,                         -- edits | merge | rollback | update | computed
    created_at BIGINT NOT NULL
);
CREATE INDEX revisions_by_space ON revisions (space_id, created_at, id);

-- A role on a space or a collection given to a team or a member. Grants on
-- a collection reach everything under it.
CREATE TABLE content_grants (
    organization_id TEXT COLLATE "C" NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    target_kind     TEXT COLLATE "C" NOT NULL,                    -- space | collection
    target_id       TEXT COLLATE "C" NOT NULL,
    principal_kind  TEXT COLLATE "C" NOT NULL,                    -- team | user
    principal_id    TEXT COLLATE "C" NOT NULL,
    role            TEXT COLLATE "C" NOT NULL,
    created_at      BIGINT NOT NULL,
    PRIMARY KEY (target_kind, target_id, principal_kind, principal_id)
);
CREATE INDEX content_grants_by_principal ON content_grants (organization_id, principal_kind, principal_id);
CREATE INDEX content_grants_by_target ON content_grants (target_kind, target_id, created_at, principal_id);
