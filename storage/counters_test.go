package storage_test

import (
	"context"
	"docsapi/storage/storagetest"
	"testing"

	"docsapi/storage"
)

// A request's counter snapshot (WithCounters) answers its cached reads
// with the state at its start, never older; a write made with the request's
// context drops it, so the request reads its own write; a request started
// after another process's write sees that write.
func TestCounterSnapshotPerRequest(t *testing.T) {
	bg := context.Background()
	path := storagetest.Target(t)
	db := openDB(t, path)
	other := openDB(t, path) // another process on the same file
	b, err := db.CreateOrganizationWithAdmin(bg, "Org", "a@example.com", "A", "h1")
	if err != nil {
		t.Fatal(err)
	}
	sp := storage.Space{OrganizationID: b.Organization.ID, Title: "Before", Visibility: "private", EditMode: "live"}
	if err := db.CreateSpace(bg, &sp); err != nil {
		t.Fatal(err)
	}
	title := func(ctx context.Context) string {
		t.Helper()
		s, _, err := db.SpaceAccess(ctx, sp.ID, b.User.ID)
		if err != nil {
			t.Fatal(err)
		}
		return s.Title
	}
	request := func() context.Context {
		t.Helper()
		ctx, err := db.WithCounters(bg)
		if err != nil {
			t.Fatal(err)
		}
		return ctx
	}

	early := request()
	if got := title(early); got != "Before" {
		t.Fatalf("title %q", got)
	}
	renamed := "By another process"
	if err := other.UpdateSpace(bg, sp.ID, storage.SpacePatch{Title: &renamed}); err != nil {
		t.Fatal(err)
	}
	if got := title(early); got != "Before" {
		t.Fatalf("a request that began before the write read %q; its snapshot names the state at its start", got)
	}
	if got := title(request()); got != renamed {
		t.Fatalf("a request that began after the write read %q, want %q", got, renamed)
	}
	tokens, err := db.TokenChanges(early)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := other.DeleteToken(bg, b.Token.ID); err != nil {
		t.Fatal(err)
	}
	if now, _ := db.TokenChanges(request()); now == tokens {
		t.Fatal("a token revoked by another process left the token counter of a later request unchanged")
	}

	// The request writes: its later reads read the counters again (the
	// space it read first is cached under its snapshot).
	writer := request()
	title(writer)
	mine := "By the request itself"
	if err := db.UpdateSpace(writer, sp.ID, storage.SpacePatch{Title: &mine}); err != nil {
		t.Fatal(err)
	}
	if got := title(writer); got != mine {
		t.Fatalf("after its own write the request read %q, want %q", got, mine)
	}
}

// The counters read runs on connections of its own (the dialect's
// counterReader on SQLite): more concurrent requests than it has
// connections all get a reading, each sees every write committed before it
// began (another handle's included), the Version of two requests with no
// write between them is equal, and after Close a reading fails instead of
// using a closed connection.
func TestCountersReadConcurrentlyAndAfterClose(t *testing.T) {
	bg := context.Background()
	path := storagetest.Target(t)
	db, err := storage.Open(path, storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	other := openDB(t, path)
	b, err := other.CreateOrganizationWithAdmin(bg, "Org", "a@example.com", "A", "h1")
	if err != nil {
		t.Fatal(err)
	}
	version := func() storage.Version {
		t.Helper()
		ctx, err := db.WithCounters(bg)
		if err != nil {
			t.Fatal(err)
		}
		v, ok := storage.VersionOf(ctx)
		if !ok {
			t.Fatal("no version in a request context")
		}
		return v
	}
	if v1, v2 := version(), version(); v1 != v2 {
		t.Fatalf("two readings with no write between them differ: %v %v", v1, v2)
	}
	const readers, rounds = 40, 25
	for round := range rounds {
		before := version()
		title := "Round " + string(rune('A'+round))
		if err := other.UpdateOrganization(bg, b.Organization.ID, storage.OrganizationPatch{Title: &title}); err != nil {
			t.Fatal(err)
		}
		errs := make(chan error, readers)
		for range readers {
			go func() {
				ctx, err := db.WithCounters(bg)
				if err == nil {
					if v, _ := storage.VersionOf(ctx); v == before {
						t.Errorf("round %d: a reading after another handle's write has the version before it", round)
					}
				}
				errs <- err
			}()
		}
		for range readers {
			if err := <-errs; err != nil {
				t.Fatal(err)
			}
		}
	}
	db.Close()
	if _, err := db.ReadCounters(bg); err == nil {
		t.Fatal("counters read after Close")
	}
}
