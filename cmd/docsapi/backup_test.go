package main

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"docsapi/apitest"
	"docsapi/storage"
	"docsapi/storage/storagetest"
)

// TestBackupUnderWriteLoad takes a backup with `docsapi admin backup` while
// writers keep creating teams through the API: the backup must pass the
// integrity check and hold every write acknowledged before it started.
func TestBackupUnderWriteLoad(t *testing.T) {
	env := apitest.New(t)
	if storagetest.OnPostgres() {
		// docsapi backs up SQLite files; PostgreSQL has pg_dump.
		for _, cmd := range []string{"backup", "restore"} {
			err := admin([]string{cmd, "--db", env.DBPath, filepath.Join(t.TempDir(), "backup.db")})
			if err == nil || !strings.Contains(err.Error(), "pg_") {
				t.Fatalf("admin %s on PostgreSQL: %v, want a refusal naming pg_dump or pg_restore", cmd, err)
			}
		}
		return
	}
	teams := "/v1/orgs/" + env.Org + "/teams"
	var (
		mu    sync.Mutex
		acked []string
		stop  atomic.Bool
		wg    sync.WaitGroup
	)
	for w := range 4 {
		wg.Go(func() {
			for i := 0; !stop.Load(); i++ {
				r := env.Do("PUT", teams, env.Admin.Token, map[string]any{"title": fmt.Sprintf("w%d-%d", w, i)})
				if r.Status != 201 {
					t.Errorf("write: %d %s", r.Status, r.Body)
					return
				}
				mu.Lock()
				acked = append(acked, r.JSON()["id"].(string))
				mu.Unlock()
			}
		})
	}
	waitFor(t, func() bool { mu.Lock(); defer mu.Unlock(); return len(acked) >= 40 })
	mu.Lock()
	before := append([]string(nil), acked...)
	mu.Unlock()

	file := filepath.Join(t.TempDir(), "backup.db")
	if err := admin([]string{"backup", "--db", env.DBPath, file}); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	during := len(acked) - len(before)
	mu.Unlock()
	stop.Store(true)
	wg.Wait()
	t.Logf("%d writes acknowledged before the backup, %d while it ran", len(before), during)
	if during == 0 {
		t.Log("no write was acknowledged while the backup ran (a fast disk); the check still holds")
	}

	if err := storage.CheckFile(context.Background(), file); err != nil {
		t.Fatal(err)
	}
	missing := missingTeams(t, file, before)
	if len(missing) > 0 {
		t.Fatalf("%d of %d acknowledged writes are missing from the backup: %v", len(missing), len(before), missing)
	}
	if err := admin([]string{"backup", "--db", env.DBPath, file}); err == nil {
		t.Error("a backup over an existing file was not refused")
	}

	// Restore into a new place, then over an existing database.
	target := filepath.Join(t.TempDir(), "restored.db")
	if err := admin([]string{"restore", "--db", target, file}); err != nil {
		t.Fatal(err)
	}
	db, err := storage.Open(target, storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if n, err := db.CountUsers(context.Background()); err != nil || n == 0 {
		t.Errorf("restored database: %d users, %v", n, err)
	}
	db.Close()
	if missing := missingTeams(t, target, before); len(missing) > 0 {
		t.Errorf("restored database lacks %v", missing)
	}
	if err := admin([]string{"restore", "--db", target, file}); err != nil {
		t.Fatal(err)
	}
	kept, _ := filepath.Glob(target + ".pre-restore-*")
	if len(kept) != 1 {
		t.Errorf("the replaced database was not kept: %v", kept)
	}
	if err := admin([]string{"restore", "--db", target, filepath.Join(t.TempDir(), "nope.db")}); err == nil {
		t.Error("restoring a missing file was not refused")
	}
	garbage := filepath.Join(t.TempDir(), "garbage.db")
	os.WriteFile(garbage, []byte("not a database"), 0o600)
	if err := admin([]string{"restore", "--db", target, garbage}); err == nil {
		t.Error("restoring a file that is not a database was not refused")
	}
}

func missingTeams(t *testing.T, file string, ids []string) []string {
	t.Helper()
	c, err := sql.Open("sqlite", "file:"+file+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var missing []string
	for _, id := range ids {
		var n int
		if err := c.QueryRow(`SELECT COUNT(*) FROM teams WHERE id = ?`, id).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n != 1 {
			missing = append(missing, id)
		}
	}
	return missing
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatal("timed out")
}
