package storage_test

import (
	"testing"

	"docsapi/storage"
)

// openDB opens the database file at path (created when missing) and closes
// it when the test ends. Tests that need two processes' view of one file
// open it twice.
func openDB(tb testing.TB, path string) *storage.DB {
	tb.Helper()
	db, err := storage.Open(path, storage.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close() })
	return db
}
