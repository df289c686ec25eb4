-- The audit log's recent entries; see the SQLite migration of
-- the same name: written by the audit sink in the change's transaction,
-- moved into audit_log in batches by storage.MoveRecentAudit, read with it.
CREATE TABLE audit_recent (
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
