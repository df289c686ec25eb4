package storage_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"docsapi/storage"
	"docsapi/storage/storagetest"
)

// The Git Sync queue on both engines: timestamp order within a space, one
// operation of a space at a time across replicas, a dead replica's
// operation taken over, an outcome written once, and an older operation
// never applied over a newer one.
func TestGitOperationQueue(t *testing.T) {
	ctx := context.Background()
	clock := &fakeClock{t: time.Now()}
	target := storagetest.Target(t)
	a := openDBWith(t, target, storage.Options{Clock: clock.Now})
	b := openDBWith(t, target, storage.Options{Clock: clock.Now})
	org, err := a.CreateOrganizationWithAdmin(ctx, "Acme", "admin@acme.test", "Admin", "hash-git")
	if err != nil {
		t.Fatal(err)
	}
	orgID := org.Organization.ID
	space := func() string {
		sp := storage.Space{OrganizationID: orgID, Title: "S", Visibility: "private", EditMode: "live"}
		if err := a.CreateSpace(ctx, &sp); err != nil {
			t.Fatal(err)
		}
		return sp.ID
	}
	s1, s2 := space(), space()
	base := clock.Now().Add(-time.Hour)
	queue := func(sp, kind string, ts time.Time) storage.GitOperation {
		op := storage.GitOperation{OrganizationID: orgID, SpaceID: sp, UserID: org.User.ID, Kind: kind, URL: "https://git.example.com/d.git",
			RemoteURL: "https://u:secret@git.example.com/d.git", Ref: "refs/heads/main", Params: "{}", Timestamp: ts}
		if err := a.EnqueueGitOperation(ctx, &op, "github", ""); err != nil {
			t.Fatal(err)
		}
		return op
	}
	later := queue(s1, "export", base.Add(2*time.Minute))
	earlier := queue(s1, "import", base.Add(time.Minute))
	other := queue(s2, "import", base.Add(3*time.Minute))

	first, err := a.ClaimGitOperation(ctx)
	if err != nil || first == nil || first.ID != earlier.ID {
		t.Fatalf("first claim %+v %v, want the older operation %s", first, err, earlier.ID)
	}
	// B may not run s1's next operation while A's runs; it takes s2's.
	second, err := b.ClaimGitOperation(ctx)
	if err != nil || second == nil || second.ID != other.ID {
		t.Fatalf("replica's claim %+v %v, want the other space's %s", second, err, other.ID)
	}
	if none, err := b.ClaimGitOperation(ctx); err != nil || none != nil {
		t.Fatalf("a third claim %+v %v while both spaces run", none, err)
	}
	// A dies: once its lease ran out, B takes its operation over; A's late outcome is refused.
	clock.Add(a.JobLease() + time.Second)
	taken, err := b.ClaimGitOperation(ctx)
	if err != nil || taken == nil || taken.ID != earlier.ID {
		t.Fatalf("takeover %+v %v", taken, err)
	}
	out := storage.GitOutcome{Status: "completed", Commit: "c1", Applied: true}
	if err := a.FinishGitOperation(ctx, *first, out); !errors.Is(err, storage.ErrGitLeaseLost) {
		t.Errorf("the dead owner's outcome: %v, want ErrGitLeaseLost", err)
	}
	if err := b.FinishGitOperation(ctx, *taken, out); err != nil {
		t.Fatal(err)
	}
	done, err := a.GitOperation(ctx, s1, earlier.ID)
	if err != nil || done.Status != "completed" || done.Stage != "done" || done.RemoteURL != "" || done.Commit != "c1" {
		t.Errorf("finished operation %+v %v", done, err)
	}
	st, err := a.GitSyncState(ctx, s1)
	if err != nil || st.Commit != "c1" || !st.LastTimestamp.Equal(earlier.Timestamp.Truncate(time.Millisecond)) || st.Provider != "github" {
		t.Errorf("state %+v %v", st, err)
	}
	// The newer export is applied; then an operation older than it is refused.
	next, err := b.ClaimGitOperation(ctx)
	if err != nil || next == nil || next.ID != later.ID {
		t.Fatalf("next claim %+v %v", next, err)
	}
	if err := b.FinishGitOperation(ctx, *next, storage.GitOutcome{Status: "completed", Commit: "c2", Applied: true}); err != nil {
		t.Fatal(err)
	}
	stale := queue(s1, "import", base.Add(90*time.Second))
	claimed, err := a.ClaimGitOperation(ctx)
	if err != nil || claimed == nil || claimed.ID != stale.ID {
		t.Fatalf("stale claim %+v %v", claimed, err)
	}
	if err := a.FinishGitOperation(ctx, *claimed, storage.GitOutcome{Status: "completed", Commit: "c0", Applied: true}); !errors.Is(err, storage.ErrGitSuperseded) {
		t.Errorf("an older operation applied over a newer one: %v", err)
	}
	if st, _ := a.GitSyncState(ctx, s1); st.Commit != "c2" {
		t.Errorf("state commit %s, want c2", st.Commit)
	}
	if n, err := a.PendingGitOperations(ctx); err != nil || n != 2 { // the stale one (running) and s2's
		t.Errorf("pending %d %v", n, err)
	}
	// Revision git rows.
	if g, err := a.RevisionGit(ctx, "no-such-revision"); g != nil || err != nil {
		t.Errorf("revision without git: %+v %v", g, err)
	}
}
