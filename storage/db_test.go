package storage_test

import (
	"context"
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
