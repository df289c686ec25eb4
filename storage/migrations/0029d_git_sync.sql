-- Git Sync. git_operations is the queue of imports from and
-- exports to a Git repository: one row per requested operation, claimed
-- under a lease (leases.go) and finished once. remote_url holds the URL with
-- its credentials while the operation waits or runs and is cleared when it
-- ends; url is the same URL without them, for display.
CREATE TABLE git_operations (
    id              TEXT PRIMARY KEY,
    organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    space_id        TEXT NOT NULL REFERENCES spaces(id) ON DELETE CASCADE,
    user_id         TEXT NOT NULL,
    kind            TEXT NOT NULL,            -- import | export
    url             TEXT NOT NULL,
    remote_url      TEXT,
    ref             TEXT NOT NULL,
    params          TEXT NOT NULL,            -- JSON: the request's other fields
    ts              INTEGER NOT NULL,         -- the triggering event's timestamp (ms)
    status          TEXT NOT NULL,            -- pending | running | completed | skipped | failed
    stage           TEXT NOT NULL,            -- queued | fetching | converting | writing | pushing | done
    message         TEXT NOT NULL DEFAULT '',
    commit_oid      TEXT NOT NULL DEFAULT '',
    revision_id     TEXT NOT NULL DEFAULT '',
    lease_owner     TEXT,
    lease_until     INTEGER,
    created_at      INTEGER NOT NULL,
    updated_at      INTEGER NOT NULL
);
CREATE INDEX git_operations_queue ON git_operations (status, ts, id);
CREATE INDEX git_operations_by_space ON git_operations (space_id, created_at, id);

-- A space's Git Sync state: the repository it syncs with and the outcome
-- of its latest operation. last_ts is the newest timestamp applied: an
-- older operation never overwrites a newer one.
CREATE TABLE git_sync_states (
    space_id        TEXT PRIMARY KEY REFERENCES spaces(id) ON DELETE CASCADE,
    organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    url             TEXT NOT NULL,
    ref             TEXT NOT NULL,
    provider        TEXT NOT NULL DEFAULT '',
    tree_url        TEXT NOT NULL DEFAULT '',
    last_ts         INTEGER NOT NULL DEFAULT 0,
    commit_oid      TEXT NOT NULL DEFAULT '',
    operation_id    TEXT NOT NULL DEFAULT '',
    legacy          INTEGER NOT NULL DEFAULT 0,
    updated_at      INTEGER NOT NULL
);

-- The Git commit a revision came from or went to (Revision.git).
CREATE TABLE revision_git (
    revision_id     TEXT PRIMARY KEY,
    oid             TEXT NOT NULL,
    message         TEXT NOT NULL,
    created_by_service INTEGER NOT NULL,
    url             TEXT NOT NULL DEFAULT '',
    ref             TEXT NOT NULL DEFAULT ''
);
