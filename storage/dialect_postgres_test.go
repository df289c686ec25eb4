package storage

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sync"
	"testing"
	"time"
)

// postgresServer is the DOCSAPI_TEST_DB server, or skips t.
func postgresServer(t *testing.T) string {
	t.Helper()
	server := os.Getenv(TestDBEnv)
	if server == "" {
		t.Skip("PostgreSQL only: set " + TestDBEnv + " (make test-pg)")
	}
	return server
}

// TestPostgresReplicasMigrateOnce: processes starting together on an
// empty database all open it; the migrations run once, each recorded once
// under the same names as on SQLite.
func TestPostgresReplicasMigrateOnce(t *testing.T) {
	target, drop, err := newTestDatabase(postgresServer(t), false)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(drop)
	const replicas = 3
	dbs := make([]*DB, replicas)
	errs := make([]error, replicas)
	var wg sync.WaitGroup
	for i := range replicas {
		wg.Go(func() { dbs[i], errs[i] = Open(target, Options{Readers: 1}) })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("replica %d: %v", i, err)
		}
		defer dbs[i].Close()
	}
	files, _ := fs.Glob(migrationFiles, "migrations/postgres/*.sql")
	sqliteFiles, _ := fs.Glob(migrationFiles, "migrations/*.sql")
	if len(files) != len(sqliteFiles) {
		t.Fatalf("%d PostgreSQL migrations for %d SQLite ones: every migration needs its twin with the same name", len(files), len(sqliteFiles))
	}
	var recorded, distinct int
	if err := dbs[0].read.QueryRow(`SELECT COUNT(*), COUNT(DISTINCT name) FROM schema_migrations WHERE name LIKE 'migrations/%'`).Scan(&recorded, &distinct); err != nil {
		t.Fatal(err)
	}
	if recorded != len(files) || distinct != len(files) {
		t.Fatalf("%d migrations recorded (%d distinct), want %d once each", recorded, distinct, len(files))
	}
}

// TestPostgresWritesSerialized: a write transaction of one process waits
// for the one another process holds open (the advisory write lock), while
// reads go on.
func TestPostgresWritesSerialized(t *testing.T) {
	postgresServer(t)
	target := testTarget(t)
	a, err := Open(target, Options{Readers: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := Open(target, Options{Readers: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	ctx := context.Background()
	holding, release := make(chan struct{}), make(chan struct{})
	done := make(chan error, 1)
	go func() {
		done <- a.Write(ctx, func(tx *Tx) error {
			close(holding)
			<-release
			return nil
		})
	}()
	<-holding
	short, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	err = b.Write(short, func(tx *Tx) error { return nil })
	cancel()
	if err == nil {
		t.Fatal("a second process wrote while the first held the write lock")
	}
	if err := b.Ping(ctx); err != nil {
		t.Fatalf("reads blocked by the write lock: %v", err)
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if err := b.Write(ctx, func(tx *Tx) error { return nil }); err != nil {
		t.Fatalf("write after the lock was released: %v", err)
	}
	if !errors.Is(b.Backup(ctx, "x.db"), ErrBackupPostgres) {
		t.Fatal("Backup on PostgreSQL did not answer ErrBackupPostgres")
	}
}

// TestPostgresWriteLocksAndChangeVersion: the write locks taken in the
// BEGIN's round trip are held inside every write: an unscoped write holds
// the global lock alone, a write confined to an organization holds the
// global lock shared and its organization's; the change version (read
// from the snapshot, no row bumped) moves with every committed write and
// never back. The test cluster's other databases move it too, so only
// "moved" and "not back" are asserted.
func TestPostgresWriteLocksAndChangeVersion(t *testing.T) {
	postgresServer(t)
	db, err := Open(testTarget(t), Options{Readers: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	version := func() int64 {
		t.Helper()
		var n int64
		if err := db.read.QueryRow(changeCounterSQL).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	locks := func(want string) func(tx *Tx) error {
		return func(tx *Tx) error {
			var got string
			if err := tx.QueryRowContext(tx.ctx, `SELECT COALESCE(string_agg(mode || ':' || objsubid, ',' ORDER BY objsubid, mode), '')
 FROM pg_locks WHERE locktype = 'advisory' AND granted AND pid = pg_backend_pid()`).Scan(&got); err != nil {
				return err
			}
			if got != want {
				return fmt.Errorf("advisory locks held inside the write: %q, want %q", got, want)
			}
			// A write: the transaction gets an id, its commit moves the version.
			_, err := tx.exec(`UPDATE change_counter SET webhooks = webhooks WHERE id = 1`)
			return err
		}
	}
	// objsubid 1: the bigint key space (the global lock); 2: two int4 keys
	// (an organization's lock).
	const whole, scoped = "ExclusiveLock:1", "ShareLock:1,ExclusiveLock:2"
	v0 := version()
	if err := db.Write(ctx, locks(whole)); err != nil {
		t.Fatal(err)
	}
	v1 := version()
	if v1 <= v0 {
		t.Fatalf("a committed write left the change version at %d (was %d)", v1, v0)
	}
	if err := db.writeScoped(ctx, "org-a", true, locks(scoped)); err != nil {
		t.Fatal(err)
	}
	v2 := version()
	if v2 <= v1 {
		t.Fatalf("a committed scoped write left the change version at %d (was %d)", v2, v1)
	}
	refused := errors.New("refused")
	if err := db.Write(ctx, func(tx *Tx) error { return refused }); !errors.Is(err, refused) {
		t.Fatalf("rolled-back write: %v", err)
	}
	if v := version(); v < v2 {
		t.Fatalf("the change version went back from %d to %d", v2, v)
	}
	// The writer connections are still usable after a rollback.
	if err := db.Write(ctx, locks(whole)); err != nil {
		t.Fatal(err)
	}
}

// TestPgArgsText: strings PostgreSQL text cannot hold are sent with U+FFFD
// in place of NUL and invalid bytes, given as a string or as a *string (an
// optional field; the caller's value is left alone), and NULL stays NULL.
func TestPgArgsText(t *testing.T) {
	raw := "a\x00b\xffc"
	var none *string
	args := pgArgs([]driver.NamedValue{{Value: raw}, {Value: &raw}, {Value: none}, {Value: true}})
	for i := range 2 {
		if args[i].Value != "a\uFFFDb\uFFFDc" {
			t.Fatalf("argument %d sent as %q", i, args[i].Value)
		}
	}
	if raw != "a\x00b\xffc" {
		t.Fatalf("the caller's string changed to %q", raw)
	}
	if p, ok := args[2].Value.(*string); !ok || p != nil {
		t.Fatalf("nil *string sent as %#v, want NULL", args[2].Value)
	}
	if args[3].Value != int64(1) {
		t.Fatalf("true sent as %#v, want 1", args[3].Value)
	}
}
