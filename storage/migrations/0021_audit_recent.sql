-- The audit log's recent entries: the audit
-- sink writes each entry here, in the transaction of the change it records
-- (durable and exact as before), and a background step moves them into
-- audit_log in batches (storage.MoveRecentAudit). A recorded change then
-- writes one b-tree instead of four: audit_log's three filter indexes are
-- written once per batch, each of their pages dirtied once for many
-- entries, instead of one WAL frame each per change. Reads (ListAudit, its
-- count) read both tables. Same columns and key as audit_log (0015), no
-- secondary index: it holds the entries of the last seconds.
CREATE TABLE audit_recent (
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
