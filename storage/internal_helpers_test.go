package storage

// Helpers of the tests inside the package (helpers_test.go holds those of
// the external storage_test package).

import (
	"context"
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
func testSpace(t *testing.T) (*DB, Space) {
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
