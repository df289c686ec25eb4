package storage_test

import (
	"context"
	"errors"
	"reflect"
	"sync/atomic"
	"testing"

	"docsapi/storage"
	"docsapi/storage/storagetest"
)

// TestReadCountersForOrganization: the request's first read, given the
// organization its path names and the user its token was last cached for
// (ReadCountersFor), answers the same counters as ReadCounters, and the
// request's OrganizationFor then answers what a fresh read answers: the
// admin's, a read member's and a stranger's memberships, after a write too
// (the next request reads again). On PostgreSQL the organization comes
// with the counters, so OrganizationFor sends no statement; a wrong guess
// of the user (another member) costs the request its own read, never a
// wrong answer; an unknown organization is still a 404. Both engines.
func TestReadCountersForOrganization(t *testing.T) {
	ctx := context.Background()
	var n atomic.Int64
	target := storagetest.Target(t)
	db := openDBWith(t, target, storage.Options{Statements: &n})
	b, err := db.CreateOrganizationWithAdmin(ctx, "Org", "a@example.com", "A", "h1")
	if err != nil {
		t.Fatal(err)
	}
	org := b.Organization.ID
	read, edit := "read", "edit"
	reader, _, err := db.CreateUserWithToken(ctx, "r@example.com", "R", org, &read, true, "h2")
	if err != nil {
		t.Fatal(err)
	}
	stranger, _, err := db.CreateUserWithToken(ctx, "s@example.com", "S", "", nil, false, "h3")
	if err != nil {
		t.Fatal(err)
	}
	fresh := openDBWith(t, target, storage.Options{}) // its own caches: the reference

	check := func(guess, user string, wantSkip bool) {
		t.Helper()
		snap, err := db.ReadCountersFor(ctx, org, guess)
		if err != nil {
			t.Fatal(err)
		}
		rctx := context.WithValue(ctx, storage.CountersKey, snap)
		before := n.Load()
		o, m, err := db.OrganizationFor(rctx, org, user)
		if err != nil {
			t.Fatal(err)
		}
		sent := n.Load() - before
		wo, wm, err := fresh.OrganizationFor(ctx, org, user)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(o, wo) || !reflect.DeepEqual(m, wm) {
			t.Fatalf("guess %s, user %s: %+v %+v, want %+v %+v", guess, user, o, m, wo, wm)
		}
		if storagetest.OnPostgres() && wantSkip && sent != 0 {
			t.Fatalf("guess %s, user %s: OrganizationFor sent %d statements after ReadCountersFor, want 0", guess, user, sent)
		}
	}
	for _, u := range []string{b.User.ID, reader.ID, stranger.ID} {
		check(u, u, true)
	}
	check(reader.ID, b.User.ID, false) // a wrong guess: read again
	if err := db.UpdateMemberRole(ctx, org, reader.ID, &edit); err != nil {
		t.Fatal(err)
	}
	check(reader.ID, reader.ID, true)

	snap, err := db.ReadCountersFor(ctx, "no-such-org", b.User.ID)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := db.OrganizationFor(context.WithValue(ctx, storage.CountersKey, snap), "no-such-org", b.User.ID); !errors.Is(err, storage.ErrNotFound) {
		t.Fatalf("unknown organization: %v, want ErrNotFound", err)
	}
}
