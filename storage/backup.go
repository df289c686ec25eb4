package storage

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Backup writes a consistent copy of the database to file while the server
// keeps running (SQLite only: PostgreSQL answers ErrBackupPostgres).
func (db *DB) Backup(ctx context.Context, file string) error {
	return db.dialect.backup(ctx, db, file)
}

// sqliteBackup is SQLite's Backup: VACUUM INTO reads one snapshot (WAL lets writers go on) and
// writes a compact database. The copy goes to a temporary file beside file,
// is synced, checked with PRAGMA integrity_check, then renamed into place,
// so file is either absent or a complete backup. An existing file is refused.
func sqliteBackup(ctx context.Context, db *DB, file string) error {
	if _, err := os.Stat(file); err == nil {
		return fmt.Errorf("%s already exists", file)
	}
	tmp := tempName(file)
	defer os.Remove(tmp)
	if _, err := db.read.ExecContext(ctx, `VACUUM INTO ?`, tmp); err != nil {
		return fmt.Errorf("vacuum into %s: %w", tmp, err)
	}
	if err := syncFile(tmp); err != nil {
		return err
	}
	if err := CheckFile(ctx, tmp); err != nil {
		return err
	}
	return renameDurably(tmp, file)
}

// CheckFile opens the SQLite database at path read-only and runs PRAGMA
// integrity_check on it.
func CheckFile(ctx context.Context, path string) error {
	if _, err := os.Stat(path); err != nil {
		return err
	}
	c, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		return err
	}
	defer c.Close()
	rows, err := c.QueryContext(ctx, `PRAGMA integrity_check`)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	defer rows.Close()
	var problems []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			return err
		}
		if line != "ok" {
			problems = append(problems, line)
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if len(problems) > 0 {
		return fmt.Errorf("%s fails the integrity check: %s", path, strings.Join(problems, "; "))
	}
	return nil
}

// Restore replaces the database at dbPath with the backup at file. The
// server must be stopped: a running one would keep writing to the file it
// has open. The backup is checked first; the current database (with its WAL
// checkpointed into it) is kept beside it as dbPath.pre-restore-<unix time>,
// whose name is returned ("" when there was none). The new file is copied
// under a temporary name, synced and renamed, so dbPath is never half-written.
func Restore(ctx context.Context, dbPath, file string) (kept string, err error) {
	if err := CheckFile(ctx, file); err != nil {
		return "", err
	}
	tmp := tempName(dbPath)
	defer os.Remove(tmp)
	if err := copyFile(file, tmp); err != nil {
		return "", err
	}
	if _, err := os.Stat(dbPath); err == nil {
		// Fold the WAL into the main file so the kept copy is whole.
		c, err := sql.Open("sqlite", "file:"+dbPath)
		if err != nil {
			return "", err
		}
		_, err = c.ExecContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`)
		c.Close()
		if err != nil {
			return "", fmt.Errorf("checkpoint %s: %w", dbPath, err)
		}
		kept = fmt.Sprintf("%s.pre-restore-%d", dbPath, time.Now().Unix())
		if err := os.Rename(dbPath, kept); err != nil {
			return "", err
		}
	}
	for _, side := range []string{"-wal", "-shm"} {
		if err := os.Remove(dbPath + side); err != nil && !errors.Is(err, os.ErrNotExist) {
			return kept, err
		}
	}
	return kept, renameDurably(tmp, dbPath)
}

func tempName(file string) string {
	var b [6]byte
	rand.Read(b[:])
	return filepath.Join(filepath.Dir(file), "."+filepath.Base(file)+".tmp-"+hex.EncodeToString(b[:]))
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	if err := out.Sync(); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

func syncFile(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	return f.Sync()
}

// renameDurably renames tmp to final and syncs the folder so the new name
// survives a crash.
func renameDurably(tmp, final string) error {
	if err := os.Rename(tmp, final); err != nil {
		return err
	}
	dir, err := os.Open(filepath.Dir(final))
	if err != nil {
		return err
	}
	defer dir.Close()
	return dir.Sync()
}
