package storage

import (
	"context"
	"testing"
)

// StageNewestAudit moves the newest audit entry of audit_log back into
// audit_recent on PostgreSQL, where the audit sink writes straight into
// audit_log (dialect.auditInsert): as an entry written by an older
// replica, for the tests of the mover. On SQLite the entry is staged
// already.
func StageNewestAudit(t testing.TB, db *DB) {
	t.Helper()
	if db.dialect.auditInsert() == auditInsertRecent {
		return
	}
	if err := db.Write(context.Background(), func(tx *Tx) error {
		_, err := tx.exec(`WITH m AS (DELETE FROM audit_log WHERE (organization_id, id) IN (
 SELECT organization_id, id FROM audit_log ORDER BY id DESC LIMIT 1) RETURNING ` + auditCols + `)
 INSERT INTO audit_recent (` + auditCols + `) SELECT ` + auditCols + ` FROM m`)
		return err
	}); err != nil {
		t.Fatal(err)
	}
}
