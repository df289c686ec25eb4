// Package storagetest gives tests their database: a SQLite file, or a
// fresh PostgreSQL database when DOCSAPI_TEST_DB names a server (the one
// switch that runs the suite on PostgreSQL; test/pg/cluster.sh sets it).
package storagetest

import (
	"testing"

	"docsapi/storage"
)

// Target is a new, empty database for tb (a file path or a postgres:// URL
// to give storage.Open), removed when tb ends.
func Target(tb testing.TB) string {
	tb.Helper()
	target, cleanup, err := storage.TestTarget(tb.TempDir())
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(cleanup)
	return target
}

// OnPostgres reports whether the tests run on PostgreSQL.
func OnPostgres() bool { return storage.TestOnPostgres() }

// SQLiteOnly skips tb on PostgreSQL: it tests something only SQLite has
// (a file, VACUUM INTO, WAL checkpoints, the integrity check).
func SQLiteOnly(tb testing.TB, why string) {
	tb.Helper()
	if OnPostgres() {
		tb.Skip("SQLite only: " + why)
	}
}
