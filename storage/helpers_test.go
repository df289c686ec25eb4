package storage_test

import (
	"testing"

	"docsapi/storage"
	"docsapi/storage/storagetest"
)

// openDB opens the database file at path (created when missing) and closes
// it when the test ends. Tests that need two processes' view of one file
// open it twice.
func openDB(tb testing.TB, path string) *storage.DB {
	tb.Helper()
	return openDBWith(tb, path, storage.Options{})
}

// openClocked opens a fresh test database whose storage clock is clock
// (closed when the test ends).
func openClocked(tb testing.TB, clock *fakeClock) *storage.DB {
	tb.Helper()
	return openDBWith(tb, storagetest.Target(tb), storage.Options{Clock: clock.Now})
}

func openDBWith(tb testing.TB, path string, o storage.Options) *storage.DB {
	tb.Helper()
	db, err := storage.Open(path, o)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close() })
	return db
}
