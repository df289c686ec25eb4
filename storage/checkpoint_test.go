package storage

import (
	"testing"
)

// TestWriterCheckpointThreshold: the writer connection runs with the
// checkpoint threshold of checkpointPages (the DSN pragma is applied), and
// stays durable (synchronous=FULL, WAL).
func TestWriterCheckpointThreshold(t *testing.T) {
	if TestOnPostgres() {
		t.Skip("SQLite only: the WAL checkpoint threshold")
	}
	db, err := Open(testTarget(t), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var pages, sync int
	var mode string
	if err := db.write.QueryRow(`PRAGMA wal_autocheckpoint`).Scan(&pages); err != nil {
		t.Fatal(err)
	}
	if err := db.write.QueryRow(`PRAGMA synchronous`).Scan(&sync); err != nil {
		t.Fatal(err)
	}
	if err := db.write.QueryRow(`PRAGMA journal_mode`).Scan(&mode); err != nil {
		t.Fatal(err)
	}
	if pages != checkpointPages || sync != 2 || mode != "wal" {
		t.Fatalf("writer: wal_autocheckpoint %d, synchronous %d, journal_mode %q; want %d, 2 (FULL), wal", pages, sync, mode, checkpointPages)
	}
}
