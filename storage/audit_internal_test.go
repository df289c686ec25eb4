package storage

import (
	"context"
	"testing"
)

// FuzzAuditTimeBounds: the audit list reads a time range as an id range,
// so for any times (a from/to filter may be any RFC 3339 date, before 1970
// too) the bounds keep their order, and an entry made at a millisecond in
// the ids' range is inside [floor(ms), floor(ms+1)) and its id reads back
// as that millisecond.
func FuzzAuditTimeBounds(f *testing.F) {
	f.Add(int64(0), int64(1))
	f.Add(int64(1_790_000_000_000), int64(1_790_000_000_001))
	f.Add(int64(-62135596800000), int64(253402300799999)) // years 1 and 9999
	f.Add(int64(maxTimedMillis), int64(-1))
	f.Fuzz(func(t *testing.T, a, b int64) {
		if a > b {
			a, b = b, a
		}
		if fa, fb := timedIDFloor(a), timedIDFloor(b); len(fa) != 10 || fa > fb {
			t.Fatalf("floor(%d) = %q, floor(%d) = %q", a, fa, b, fb)
		}
		if a < 0 || a >= maxTimedMillis {
			return
		}
		id := timedID(a)
		if timedIDMillis(id) != a || id < timedIDFloor(a) || id >= timedIDFloor(a+1) {
			t.Fatalf("id %q of %d reads %d, bounds [%q, %q)", id, a, timedIDMillis(id), timedIDFloor(a), timedIDFloor(a+1))
		}
	})
}

// A recorded change writes one row, into audit_recent (not audit_log and
// its three indexes); moving it is exact even when audit_log already holds
// the entry (a copy without its delete: ON CONFLICT DO NOTHING), and the
// entry is listed once before and after.
func TestAuditEntryStagedThenMovedOnce(t *testing.T) {
	db, err := Open(testTarget(t), Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	ctx := context.Background()
	c := Change{OrganizationID: "o1", Action: "space.created", TargetType: "space", TargetID: "s1"}
	if err := db.Write(RecordingChange(ctx, c), func(*Tx) error { return nil }); err != nil {
		t.Fatal(err)
	}
	rows := func() (recent, log int) {
		t.Helper()
		if err := db.r().QueryRowContext(ctx, `SELECT (SELECT COUNT(*) FROM audit_recent), (SELECT COUNT(*) FROM audit_log)`).Scan(&recent, &log); err != nil {
			t.Fatal(err)
		}
		return recent, log
	}
	if r, l := rows(); r != 1 || l != 0 {
		t.Fatalf("after the write: %d recent, %d in audit_log; want 1, 0", r, l)
	}
	listed := func(when string) {
		t.Helper()
		p, err := db.ListAudit(ctx, "o1", AuditFilter{TargetType: "space", TargetID: "s1"}, PageQuery{Limit: 10})
		if err != nil || p.Count != 1 || len(p.Items) != 1 {
			t.Fatalf("%s: %d listed, count %d, %v", when, len(p.Items), p.Count, err)
		}
	}
	listed("staged")
	// The entry copied into audit_log but still staged.
	if err := db.Write(ctx, func(tx *Tx) error {
		_, err := tx.exec(`INSERT INTO audit_log (` + auditCols + `) SELECT ` + auditCols + ` FROM audit_recent`)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if n, err := db.MoveRecentAudit(ctx, 10); err != nil || n != 1 {
		t.Fatalf("move: %d, %v", n, err)
	}
	if r, l := rows(); r != 0 || l != 1 {
		t.Fatalf("after the move: %d recent, %d in audit_log; want 0, 1", r, l)
	}
	listed("moved")
}
