package storage_test

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"docsapi/storage"
)

// A precondition runs inside the request's first write transaction that
// commits, before the write; its error rolls the write back. A commit hook
// runs in the same transaction, after the write. Neither runs again once a
// transaction running it committed; a write from inside a precondition is
// refused instead of waiting for ever on the lock its own transaction holds.
func TestTransactionSteps(t *testing.T) {
	ctx := context.Background()
	db := openDB(t, filepath.Join(t.TempDir(), "steps.db"))
	b, err := db.CreateOrganizationWithAdmin(ctx, "Acme", "admin@acme.test", "Admin", "hash-steps")
	if err != nil {
		t.Fatal(err)
	}
	org := b.Organization.ID
	refused := errors.New("precondition failed")
	checks := 0
	failing := storage.WithPrecondition(ctx, func(context.Context) error { checks++; return refused })
	if _, err := db.CreateTeam(failing, org, "Blocked", nil); !errors.Is(err, refused) {
		t.Fatalf("write under a failing precondition: %v", err)
	}
	if page, err := db.ListTeams(ctx, org, storage.TeamFilter{}, storage.PageQuery{Limit: 10}); err != nil || len(page.Items) != 0 {
		t.Fatalf("the refused write was kept: %+v %v", page.Items, err)
	}

	hooks := 0
	steps := storage.WithPrecondition(ctx, func(ctx context.Context) error {
		checks++
		if _, err := db.CreateTeam(ctx, org, "Nested", nil); !errors.Is(err, storage.ErrWriteInPrecondition) {
			t.Errorf("write inside a precondition: %v", err)
		}
		return nil
	})
	steps = storage.WithCommitHook(steps, func(tx *storage.Tx) error { hooks++; return nil })
	if _, err := db.CreateTeam(steps, org, "First", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := db.CreateTeam(steps, org, "Second", nil); err != nil {
		t.Fatal(err)
	}
	if checks != 2 || hooks != 1 {
		t.Fatalf("precondition ran %d times (want 2: one refused, one committed), hook %d (want 1)", checks, hooks)
	}
}
