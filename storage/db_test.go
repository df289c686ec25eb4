package storage_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"docsapi/storage"
	"docsapi/storage/storagetest"
)

// TestConcurrentListsOnColdStart runs many more concurrent lists than there
// are reader connections before any list statement is prepared: read
// transactions must not wait on the pool to prepare (that deadlocked: with
// one reader connection, a single cold list waited for itself).
func TestConcurrentListsOnColdStart(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	path := storagetest.Target(t)
	setup, err := storage.Open(path, storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := setup.CreateOrganizationWithAdmin(ctx, "Org", "a@example.com", "A", "h")
	setup.Close()
	if err != nil {
		t.Fatal(err)
	}
	db, err := storage.Open(path, storage.Options{Readers: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var wg sync.WaitGroup
	errs := make(chan error, 32)
	for range 32 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := db.ListMembers(ctx, b.Organization.ID, storage.MemberFilter{}, storage.PageQuery{Limit: 10})
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
}

// On SQLite a write that has begun runs to its end even when its request's
// context ends meanwhile (its statements and COMMIT do not watch the
// context: beginWrite), and a write whose context ended before it began
// does not run at all. Either way nothing is half done.
func TestWriteBegunFinishesAfterTheRequestEnds(t *testing.T) {
	storagetest.SQLiteOnly(t, "PostgreSQL's BEGIN waits for the advisory lock under the request's context")
	db, err := storage.Open(storagetest.Target(t), storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx, cancel := context.WithCancel(context.Background())
	const bump = `UPDATE change_counter SET webhooks = webhooks + 1 WHERE id = 1`
	err = db.Write(ctx, func(tx *storage.Tx) error {
		cancel() // the client went away mid-write
		time.Sleep(10 * time.Millisecond)
		_, err := tx.ExecContext(ctx, bump)
		return err
	})
	if err != nil {
		t.Fatalf("a begun write failed once its context ended: %v", err)
	}
	var n int
	if err := db.Write(context.Background(), func(tx *storage.Tx) error {
		return tx.QueryRowContext(ctx, `SELECT webhooks FROM change_counter WHERE id = 1`).Scan(&n)
	}); err != nil || n != 1 {
		t.Fatalf("the begun write's statement: counter %d (%v), want 1", n, err)
	}
	ran := false
	if err := db.Write(ctx, func(*storage.Tx) error { ran = true; return nil }); !errors.Is(err, context.Canceled) || ran {
		t.Fatalf("a write whose context had ended: ran %v, error %v", ran, err)
	}
}
