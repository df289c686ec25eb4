package storage_test

import (
	"context"
	"testing"

	"docsapi/storage"
	"docsapi/storage/storagetest"
)

// TestListTotalFollowsWrites checks that cached list totals never outlive a
// write: one made through the same handle, and one made through another
// handle on the same file (as `docsapi admin` does from another process).
func TestListTotalFollowsWrites(t *testing.T) {
	ctx := context.Background()
	path := storagetest.Target(t)
	db := openDB(t, path)
	b, err := db.CreateOrganizationWithAdmin(ctx, "Org", "a@example.com", "A", "h1")
	if err != nil {
		t.Fatal(err)
	}
	total := func(f storage.MemberFilter) int {
		t.Helper()
		p, err := db.ListMembers(ctx, b.Organization.ID, f, storage.PageQuery{Limit: 1})
		if err != nil {
			t.Fatal(err)
		}
		return p.Count
	}
	read := "read"
	if n := total(storage.MemberFilter{}); n != 1 {
		t.Fatalf("count %d, want 1", n)
	}
	total(storage.MemberFilter{}) // cached now
	if _, _, err := db.CreateUserWithToken(ctx, "b@example.com", "B", b.Organization.ID, &read, true, "h2"); err != nil {
		t.Fatal(err)
	}
	if n := total(storage.MemberFilter{}); n != 2 {
		t.Fatalf("after a write through this handle: count %d, want 2", n)
	}
	if n := total(storage.MemberFilter{Role: &read}); n != 1 {
		t.Fatalf("role filter: count %d, want 1", n)
	}

	other := openDB(t, path)
	if _, _, err := other.CreateUserWithToken(ctx, "c@example.com", "C", b.Organization.ID, &read, true, "h3"); err != nil {
		t.Fatal(err)
	}
	if n := total(storage.MemberFilter{}); n != 3 {
		t.Fatalf("after a write through another handle: count %d, want 3", n)
	}
	if n := total(storage.MemberFilter{Role: &read}); n != 2 {
		t.Fatalf("role filter after another handle's write: count %d, want 2", n)
	}
}
