-- The organization audit log; see the SQLite migration of the
-- same name for the meaning of each column and of the keys: the primary key
-- (organization_id, id) serves the newest-first list, the time filter (an
-- id range) and the retention purge; one index per filter, ending in id.
CREATE TABLE audit_log (
    organization_id TEXT COLLATE "C" NOT NULL,
    id TEXT COLLATE "C" NOT NULL,
    action TEXT COLLATE "C" NOT NULL,
    target_type TEXT COLLATE "C" NOT NULL,
    target_id TEXT COLLATE "C" NOT NULL,
    actor_user_id TEXT COLLATE "C" NOT NULL,
    actor_token_id TEXT COLLATE "C" NOT NULL,
    address TEXT COLLATE "C" NOT NULL,
    request_id TEXT COLLATE "C" NOT NULL,
    created_at BIGINT NOT NULL,
    fields TEXT COLLATE "C" NOT NULL,
    PRIMARY KEY (organization_id, id)
);
CREATE INDEX audit_log_org_actor ON audit_log (organization_id, actor_user_id, id);
CREATE INDEX audit_log_org_action ON audit_log (organization_id, action, id);
CREATE INDEX audit_log_org_target ON audit_log (organization_id, target_type, target_id, id);
