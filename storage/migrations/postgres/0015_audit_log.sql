-- The organization audit log (issue 18); see the SQLite migration of the
-- same name for the meaning of each column.
CREATE TABLE audit_log (
    id TEXT COLLATE "C" PRIMARY KEY,
    organization_id TEXT COLLATE "C" NOT NULL,
    action TEXT COLLATE "C" NOT NULL,
    target_type TEXT COLLATE "C" NOT NULL,
    target_id TEXT COLLATE "C" NOT NULL,
    actor_user_id TEXT COLLATE "C" NOT NULL,
    actor_token_id TEXT COLLATE "C" NOT NULL,
    address TEXT COLLATE "C" NOT NULL,
    request_id TEXT COLLATE "C" NOT NULL,
    created_at BIGINT NOT NULL,
    fields TEXT COLLATE "C" NOT NULL
);
CREATE INDEX audit_log_org_time ON audit_log (organization_id, created_at, id);
CREATE INDEX audit_log_org_actor ON audit_log (organization_id, actor_user_id, created_at, id);
CREATE INDEX audit_log_org_action ON audit_log (organization_id, action, created_at, id);
CREATE INDEX audit_log_org_target ON audit_log (organization_id, target_type, target_id, created_at, id);
CREATE INDEX audit_log_time ON audit_log (created_at);
