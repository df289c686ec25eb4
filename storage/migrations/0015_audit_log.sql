-- The organization audit log: one row per change an
-- organization's members made through the API, written by the audit sink
-- (storage/audit.go) in the transaction that makes the change. id is a
-- timed id that increases in writing order; its first ten characters are
-- created_at (Unix milliseconds), so a time range is an id range. No
-- foreign keys: the log outlives what it talks about. fields is a JSON
-- object summarizing the changed fields (never a secret).
--
-- Every recorded change writes each b-tree below, so there are few: the
-- table itself is keyed (organization_id, id) (WITHOUT ROWID: no separate
-- rowid tree, no separate primary-key index), which is the newest-first
-- list of an organization and, as an id range, its time filter and the
-- retention purge; one index per filter, each ending in id (the keyset).
CREATE TABLE audit_log (
    organization_id TEXT NOT NULL,
    id TEXT NOT NULL,
    action TEXT NOT NULL,
    target_type TEXT NOT NULL,
    target_id TEXT NOT NULL,
    actor_user_id TEXT NOT NULL,
    actor_token_id TEXT NOT NULL,
    address TEXT NOT NULL,
    request_id TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    fields TEXT NOT NULL,
    PRIMARY KEY (organization_id, id)
) WITHOUT ROWID;
CREATE INDEX audit_log_org_actor ON audit_log (organization_id, actor_user_id, id);
CREATE INDEX audit_log_org_action ON audit_log (organization_id, action, id);
CREATE INDEX audit_log_org_target ON audit_log (organization_id, target_type, target_id, id);
