-- The organization audit log (issue 18): one row per change an
-- organization's members made through the API, written by the audit sink
-- (storage/audit.go) in the transaction that makes the change. id is a
-- timed id (its first ten characters are created_at), created_at Unix
-- milliseconds. No foreign keys: the log outlives what it talks about.
-- fields is a JSON object summarizing the changed fields (never a secret).
CREATE TABLE audit_log (
    id TEXT PRIMARY KEY,
    organization_id TEXT NOT NULL,
    action TEXT NOT NULL,
    target_type TEXT NOT NULL,
    target_id TEXT NOT NULL,
    actor_user_id TEXT NOT NULL,
    actor_token_id TEXT NOT NULL,
    address TEXT NOT NULL,
    request_id TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    fields TEXT NOT NULL
);
-- Newest first in an organization, and each filter with the same order.
CREATE INDEX audit_log_org_time ON audit_log (organization_id, created_at, id);
CREATE INDEX audit_log_org_actor ON audit_log (organization_id, actor_user_id, created_at, id);
CREATE INDEX audit_log_org_action ON audit_log (organization_id, action, created_at, id);
CREATE INDEX audit_log_org_target ON audit_log (organization_id, target_type, target_id, created_at, id);
-- The retention purge: oldest first across organizations.
CREATE INDEX audit_log_time ON audit_log (created_at);
