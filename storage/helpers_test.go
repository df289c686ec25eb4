package storage_test

import (
	"context"
	"fmt"
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

// orgWithAdmin opens a fresh test database with one organization, "Org",
// and its admin (token hash "h0").
func orgWithAdmin(tb testing.TB) (*storage.DB, storage.Bootstrap) {
	tb.Helper()
	db := openDB(tb, storagetest.Target(tb))
	b, err := db.CreateOrganizationWithAdmin(context.Background(), "Org", "admin@example.com", "Admin", "h0")
	if err != nil {
		tb.Fatal(err)
	}
	return db, b
}

// readMembers adds n members of role read to org, u<i>@example.com with
// token hashes h1…hn, and returns their ids.
func readMembers(tb testing.TB, db *storage.DB, org string, n int) []string {
	tb.Helper()
	read := "read"
	users := make([]string, 0, n)
	for i := range n {
		email := fmt.Sprintf("u%d@example.com", i)
		u, _, err := db.CreateUserWithToken(context.Background(), email, email, org, &read, true, fmt.Sprintf("h%d", i+1))
		if err != nil {
			tb.Fatal(err)
		}
		users = append(users, u.ID)
	}
	return users
}
