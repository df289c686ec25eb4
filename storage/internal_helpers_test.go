package storage

// Helpers of the tests inside the package (helpers_test.go holds those of
// the external storage_test package).

import (
	"context"
	"fmt"
	"testing"
)

// testTarget is storagetest.Target for the tests inside the package
// (which cannot import storagetest: it imports storage).
func testTarget(tb testing.TB) string {
	tb.Helper()
	target, cleanup, err := TestTarget(tb.TempDir())
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(cleanup)
	return target
}

// testSpace opens a fresh database (closed when the test ends) with
// an organization and one space in it.
func testSpace(t testing.TB) (*DB, Space) {
	t.Helper()
	ctx := context.Background()
	db, err := Open(testTarget(t), Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	b, err := db.CreateOrganizationWithAdmin(ctx, "Org", "a@example.com", "A", "h1")
	if err != nil {
		t.Fatal(err)
	}
	sp := Space{OrganizationID: b.Organization.ID, Title: "S", Visibility: "private", EditMode: "live"}
	if err := db.CreateSpace(ctx, &sp); err != nil {
		t.Fatal(err)
	}
	return db, sp
}

// twoSpaces opens a fresh database with an organization and two spaces in
// it: the tests that run the same edits two ways compare them.
func twoSpaces(t *testing.T) (*DB, [2]string) {
	t.Helper()
	db, first := testSpace(t)
	second := Space{OrganizationID: first.OrganizationID, Title: "s", Visibility: "private", EditMode: "live"}
	if err := db.CreateSpace(context.Background(), &second); err != nil {
		t.Fatal(err)
	}
	return db, [2]string{first.ID, second.ID}
}

// twoSpacesWithChangeRequests is twoSpaces with the same pages in both
// (build adds them to the main content's tree) and a change request of
// each opened on them, by the organization's admin (user).
func twoSpacesWithChangeRequests(t *testing.T, build func(tr *Tree)) (db *DB, spaces, crs [2]string, user string) {
	t.Helper()
	ctx := context.Background()
	db, spaces = twoSpaces(t)
	if err := db.r().QueryRowContext(ctx, `SELECT id FROM users`).Scan(&user); err != nil {
		t.Fatal(err)
	}
	for i, sp := range spaces {
		if _, err := db.CreateRevision(ctx, RevisionChange{SpaceID: sp, Activate: true, Analyzer: modelAnalyzer{}, Edit: func(tr *Tree) error {
			build(tr)
			return nil
		}}); err != nil {
			t.Fatal(err)
		}
		cr, err := db.CreateChangeRequest(ctx, "", sp, user, "cr", nil)
		if err != nil {
			t.Fatal(err)
		}
		crs[i] = cr.ID
	}
	return db, spaces, crs, user
}

// queryPlan is SQLite's plan of a statement, a line per step.
func queryPlan(t *testing.T, db *DB, q string, args []any) []string {
	t.Helper()
	var plan []string
	rows, err := db.r().QueryContext(context.Background(), `EXPLAIN QUERY PLAN `+q, args...)
	if err := eachRow(rows, err, func(sc interface{ Scan(...any) error }) error {
		var id, parent, notused int
		var detail string
		err := sc.Scan(&id, &parent, &notused, &detail)
		plan = append(plan, detail)
		return err
	}); err != nil {
		t.Fatalf("plan of %s: %v", q, err)
	}
	return plan
}

// migrateAgain turns db back to what migration name (its file, e.g.
// "0020_revision_changes.sql") finds, with undo in one write, forgets that
// the migration was applied, closes db and opens target again, which
// applies it anew.
func migrateAgain(t *testing.T, db *DB, target, name string, undo func(tx *Tx) error) *DB {
	t.Helper()
	if err := db.Write(context.Background(), func(tx *Tx) error {
		if err := undo(tx); err != nil {
			return err
		}
		return execAll(tx, `DELETE FROM schema_migrations WHERE name = 'migrations/`+name+`'`)
	}); err != nil {
		t.Fatal(err)
	}
	db.Close()
	db, err := Open(target, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// execAll runs statements in tx, one after the other.
func execAll(tx *Tx, statements ...string) error {
	for _, q := range statements {
		if _, err := tx.exec(q); err != nil {
			return fmt.Errorf("%s: %w", q, err)
		}
	}
	return nil
}
