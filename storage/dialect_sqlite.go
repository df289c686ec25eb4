package storage

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	_ "modernc.org/sqlite" // registers the pure-Go "sqlite" driver
)

// sqliteDialect is the embedded default: one file, one single-connection
// pool for writes (SQLite has one writer at a time; queuing in Go is
// cheaper than busy-waiting in SQLite) and a pool of readers that WAL lets
// run alongside.
type sqliteDialect struct{}

func (sqliteDialect) name() string { return "sqlite" }

// open creates the file's folder if needed and opens both pools.
func (sqliteDialect) open(path string, opt Options) (*sql.DB, *sql.DB, error) {
	if dir := filepath.Dir(path); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, nil, fmt.Errorf("create database folder: %w", err)
		}
	}
	pragmas := url.Values{}
	for _, p := range []string{"journal_mode(WAL)", "foreign_keys(1)", "busy_timeout(10000)", "synchronous(FULL)"} {
		pragmas.Add("_pragma", p)
	}
	// BEGIN IMMEDIATE on the writer: a second process (docsapi admin) then
	// waits on busy_timeout instead of failing a deferred upgrade.
	wdsn := "file:" + path + "?" + pragmas.Encode() + "&_pragma=" + url.QueryEscape(fmt.Sprintf("wal_autocheckpoint(%d)", checkpointPages)) + "&_txlock=immediate"
	rdsn := "file:" + path + "?" + pragmas.Encode()

	w, err := sql.Open("sqlite", wdsn)
	if err != nil {
		return nil, nil, err
	}
	w.SetMaxOpenConns(1)
	w.SetMaxIdleConns(1)
	w.SetConnMaxLifetime(0)
	r, err := sql.Open("sqlite", rdsn)
	if err != nil {
		w.Close()
		return nil, nil, err
	}
	n := opt.Readers
	if n <= 0 {
		n = max(4, 2*runtime.GOMAXPROCS(0))
	}
	r.SetMaxOpenConns(n)
	r.SetMaxIdleConns(n)
	r.SetConnMaxLifetime(0)
	return w, r, nil
}

func (sqliteDialect) migrations() string { return "migrations" }

func (sqliteDialect) bootstrap() []string {
	return []string{
		`CREATE TABLE IF NOT EXISTS schema_migrations (name TEXT PRIMARY KEY, applied_at INTEGER NOT NULL)`,
		`CREATE TABLE IF NOT EXISTS change_counter (id INTEGER PRIMARY KEY, n INTEGER NOT NULL)`,
	}
}

// writeContext has nothing to add: the writer's BEGIN IMMEDIATE already
// holds SQLite's one write lock, and Write bumps the counter itself.
func (sqliteDialect) writeContext(ctx context.Context, _ bool) (context.Context, bool) {
	return ctx, false
}

// readOptions: a SQLite read transaction sees one snapshot of the WAL.
func (sqliteDialect) readOptions() *sql.TxOptions { return &sqliteRead }

var sqliteRead = sql.TxOptions{ReadOnly: true}

func (sqliteDialect) prepares() bool { return true }

func (sqliteDialect) unique(err error) bool {
	msg := err.Error()
	return strings.Contains(msg, "UNIQUE constraint failed") || strings.Contains(msg, "PRIMARY KEY")
}

func (sqliteDialect) backup(ctx context.Context, db *DB, file string) error {
	return sqliteBackup(ctx, db, file)
}

func (sqliteDialect) catalog(ctx context.Context, q queryer) ([]string, map[string][]string, error) {
	return catalogRows(ctx, q,
		`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name <> ?`,
		`SELECT DISTINCT m.name, f."table" FROM sqlite_master m, pragma_foreign_key_list(m.name) f WHERE m.type = 'table'`)
}

// suspendChecks defers foreign keys to the commit; SQLite cannot switch a
// trigger off, so they are dropped and created again from their own SQL,
// in the same transaction.
func (sqliteDialect) suspendChecks(to *Tx, _ []string) (func() error, error) {
	if _, err := to.exec(`PRAGMA defer_foreign_keys = ON`); err != nil {
		return nil, err
	}
	rows, err := to.QueryContext(to.ctx, `SELECT name, sql FROM sqlite_master WHERE type = 'trigger' ORDER BY name`)
	if err != nil {
		return nil, err
	}
	var names, defs []string
	for rows.Next() {
		var name, def string
		if err := rows.Scan(&name, &def); err != nil {
			rows.Close()
			return nil, err
		}
		names, defs = append(names, name), append(defs, def)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	for _, name := range names {
		if _, err := to.tx.ExecContext(to.ctx, `DROP TRIGGER `+quoteIdent(name)); err != nil {
			return nil, err
		}
	}
	return func() error {
		for _, def := range defs {
			if _, err := to.tx.ExecContext(to.ctx, def); err != nil {
				return err
			}
		}
		return nil
	}, nil
}
