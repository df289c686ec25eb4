package storage_test

import (
	"context"
	"path/filepath"
	"testing"

	"docsapi/storage"
)

// TestCachedReadsFollowWrites checks that the cached single reads
// (OrganizationFor, SpaceAccess) never outlive a write: one made through
// the same handle, and one made through another handle on the same file
// (as `docsapi admin` does from another process).
func TestCachedReadsFollowWrites(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "t.db")
	db, err := storage.Open(path, storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	other, err := storage.Open(path, storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	b, err := db.CreateOrganizationWithAdmin(ctx, "Org", "a@example.com", "A", "h1")
	if err != nil {
		t.Fatal(err)
	}
	orgID := b.Organization.ID
	read, edit := "read", "edit"
	u, _, err := db.CreateUserWithToken(ctx, "b@example.com", "B", orgID, &read, true, "h2")
	if err != nil {
		t.Fatal(err)
	}
	userID := u.ID
	sp := storage.Space{OrganizationID: orgID, Title: "S", Visibility: "private", EditMode: "live"}
	if err := db.CreateSpace(ctx, &sp); err != nil {
		t.Fatal(err)
	}

	org := func() (storage.Organization, *storage.Membership) {
		t.Helper()
		o, m, err := db.OrganizationFor(ctx, orgID, userID)
		if err != nil {
			t.Fatal(err)
		}
		return o, m
	}
	space := func() (storage.Space, storage.AccessData) {
		t.Helper()
		s, a, err := db.SpaceAccess(ctx, sp.ID, userID)
		if err != nil {
			t.Fatal(err)
		}
		return s, a
	}
	org()
	space() // both cached now

	for i, h := range []*storage.DB{db, other} {
		title := []string{"Same handle", "Other handle"}[i]
		if err := h.UpdateOrganization(ctx, orgID, storage.OrganizationPatch{Title: &title}); err != nil {
			t.Fatal(err)
		}
		if o, _ := org(); o.Title != title {
			t.Fatalf("organization title %q, want %q", o.Title, title)
		}
		if err := h.UpdateSpace(ctx, sp.ID, storage.SpacePatch{Title: &title}); err != nil {
			t.Fatal(err)
		}
		if s, _ := space(); s.Title != title {
			t.Fatalf("space title %q, want %q", s.Title, title)
		}
	}

	// A membership change made elsewhere shows at once in both reads.
	if err := other.UpdateMemberRole(ctx, orgID, userID, &edit); err != nil {
		t.Fatal(err)
	}
	if _, m := org(); m == nil || m.Role == nil || *m.Role != edit {
		t.Fatalf("membership %+v, want role edit", m)
	}
	if _, a := space(); a.Membership == nil || a.Membership.Role == nil || *a.Membership.Role != edit {
		t.Fatalf("access membership %+v, want role edit", a.Membership)
	}

	// Each caller gets its own copy of the membership.
	_, m := org()
	admin := "admin"
	m.Role = &admin
	if _, m := org(); *m.Role != edit {
		t.Fatal("a caller's change to its membership reached the cache")
	}

	if _, _, err := db.OrganizationFor(ctx, "nope", userID); err != storage.ErrNotFound {
		t.Fatalf("unknown organization: %v, want ErrNotFound", err)
	}
	if _, _, err := db.SpaceAccess(ctx, "nope", userID); err != storage.ErrNotFound {
		t.Fatalf("unknown space: %v, want ErrNotFound", err)
	}
}
