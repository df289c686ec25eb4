package storage

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"unsafe"

	"modernc.org/libc"
	"modernc.org/libc/sys/types"
	_ "modernc.org/sqlite" // registers the pure-Go "sqlite" driver
	sqlite3 "modernc.org/sqlite/lib"
)

// sqliteDialect is the embedded default: one file, one single-connection
// pool for writes (SQLite has one writer at a time; queuing in Go is
// cheaper than busy-waiting in SQLite) and a pool of readers that WAL lets
// run alongside.
type sqliteDialect struct{}

func (sqliteDialect) name() string { return "sqlite" }

// busyTimeoutMillis is how long every connection (the pools' and the
// counters reader's) waits for another process's lock before SQLITE_BUSY.
const busyTimeoutMillis = 10000

// open creates the file's folder if needed and opens both pools.
func (sqliteDialect) open(path string, opt Options) (*sql.DB, *sql.DB, error) {
	if dir := filepath.Dir(path); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, nil, fmt.Errorf("create database folder: %w", err)
		}
	}
	pragmas := url.Values{}
	for _, p := range []string{"journal_mode(WAL)", "foreign_keys(1)", fmt.Sprintf("busy_timeout(%d)", busyTimeoutMillis), "synchronous(FULL)"} {
		pragmas.Add("_pragma", p)
	}
	// BEGIN IMMEDIATE on the writer: a second process (docsapi admin) then
	// waits on busy_timeout instead of failing a deferred upgrade.
	//
	// temp_store(MEMORY) on the writer: a batch's savepoints (group commit)
	// keep the pages they change in the statement journal, which SQLite
	// otherwise spills to a temporary file past 64 KiB, an open, writes
	// and a close per batch. In memory it is bounded by the pages one
	// transaction changes, which every write already bounds.
	wdsn := "file:" + path + "?" + pragmas.Encode() + "&_pragma=" + url.QueryEscape(fmt.Sprintf("wal_autocheckpoint(%d)", checkpointPages)) + "&_pragma=temp_store(MEMORY)&_txlock=immediate"
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
	if opt.Statements != nil { // the same pools, counted (statements.go)
		drv := w.Driver()
		w.Close()
		r.Close()
		w = sql.OpenDB(countingConnector{drv: drv, dsn: wdsn, n: opt.Statements})
		w.SetMaxOpenConns(1)
		w.SetMaxIdleConns(1)
		w.SetConnMaxLifetime(0)
		r = sql.OpenDB(countingConnector{drv: drv, dsn: rdsn, n: opt.Statements})
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
func (sqliteDialect) writeContext(ctx context.Context, _ bool, _ string) (context.Context, bool) {
	return ctx, false
}

// scopes: one writer for every write.
func (sqliteDialect) scopes() bool { return false }

// moveAudit copies, then deletes: under the single writer both statements
// pick the same first entries of the key.
func (sqliteDialect) moveAudit(tx *Tx, limit int) (int64, error) {
	// WHERE 1 = 1: SQLite needs a WHERE before an upsert's ON CONFLICT
	// in INSERT … SELECT (a parsing ambiguity).
	if _, err := tx.exec(`INSERT INTO audit_log (`+auditCols+`) SELECT `+auditCols+` FROM audit_recent WHERE 1 = 1
 ORDER BY organization_id, id LIMIT ? ON CONFLICT (organization_id, id) DO NOTHING`, limit); err != nil {
		return 0, err
	}
	res, err := tx.exec(`DELETE FROM audit_recent WHERE (organization_id, id) IN (
 SELECT organization_id, id FROM audit_recent ORDER BY organization_id, id LIMIT ?)`, limit)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

// auditMoverScope: the single writer.
func (sqliteDialect) auditMoverScope() string { return "" }

// locksInBegin: the single writer connection is the lock within the
// process; BEGIN IMMEDIATE waits only for another process (busy_timeout).
func (sqliteDialect) locksInBegin() bool { return false }

// readOptions: a SQLite read transaction sees one snapshot of the WAL.
func (sqliteDialect) readOptions() *sql.TxOptions { return &sqliteRead }

var sqliteRead = sql.TxOptions{ReadOnly: true}

func (sqliteDialect) prepares() bool { return true }

func (sqliteDialect) unique(err error) bool {
	msg := err.Error()
	return strings.Contains(msg, "UNIQUE constraint failed") || strings.Contains(msg, "PRIMARY KEY")
}

// deadlock: never, one writer waits for nobody.
func (sqliteDialect) deadlock(error) bool { return false }

// refused: never asked (no commuting writes on SQLite's single writer).
func (sqliteDialect) refused(error) bool { return false }

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

// counterReader reads the counters row with SQLite's own API on
// connections of its own: the statement runs on every authenticated
// request (counters.go), and through database/sql and the driver it cost
// four times SQLite's own work (a cancellation goroutine in each of them,
// the rows' column names and types copied out, the pool's bookkeeping).
// The file path is what open was given; the connections see the same WAL
// and locks as the pools (same library, same process).
func (sqliteDialect) counterReader(path string) countersReader {
	return &sqliteCounters{path: path}
}

// sqliteCounters hands out its connections one caller at a time (a stack:
// the most recently used one is the warmest), opening one more when all
// are busy, up to maxCounterConns; past that a caller waits.
type sqliteCounters struct {
	path   string
	mu     sync.Mutex
	idle   []*counterConn
	open   int
	closed bool
	freed  *sync.Cond // signalled when a connection goes back to idle
}

// maxCounterConns bounds the counter connections (each a SQLite handle and
// its page cache); the read holds one for a few microseconds.
var maxCounterConns = max(4, 2*runtime.GOMAXPROCS(0))

type counterConn struct {
	tls  *libc.TLS
	db   uintptr // sqlite3*
	stmt uintptr // the prepared countersSnapshotSQL
}

func (s *sqliteCounters) read(ctx context.Context) (change, access, tokens int64, err error) {
	c, err := s.get()
	if err != nil {
		return 0, 0, 0, err
	}
	defer s.put(c)
	switch rc := sqlite3.Xsqlite3_step(c.tls, c.stmt); rc {
	case sqlite3.SQLITE_ROW:
		change = sqlite3.Xsqlite3_column_int64(c.tls, c.stmt, 0)
		access = sqlite3.Xsqlite3_column_int64(c.tls, c.stmt, 1)
		tokens = sqlite3.Xsqlite3_column_int64(c.tls, c.stmt, 2)
	case sqlite3.SQLITE_DONE:
		err = sql.ErrNoRows
	default:
		err = c.errorOf(rc)
	}
	// reset ends the read transaction (the WAL snapshot) the step began.
	if rc := sqlite3.Xsqlite3_reset(c.tls, c.stmt); rc != sqlite3.SQLITE_OK && err == nil {
		err = c.errorOf(rc)
	}
	return change, access, tokens, err
}

func (s *sqliteCounters) get() (*counterConn, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for {
		if s.closed {
			return nil, errors.New("storage: database closed")
		}
		if n := len(s.idle); n > 0 {
			c := s.idle[n-1]
			s.idle = s.idle[:n-1]
			return c, nil
		}
		if s.open < maxCounterConns {
			break
		}
		if s.freed == nil {
			s.freed = sync.NewCond(&s.mu)
		}
		s.freed.Wait()
	}
	s.open++
	s.mu.Unlock()
	c, err := openCounterConn(s.path)
	s.mu.Lock()
	if err != nil {
		s.open--
		return nil, err
	}
	return c, nil
}

func (s *sqliteCounters) put(c *counterConn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		s.open--
		c.close()
		return
	}
	s.idle = append(s.idle, c)
	if s.freed != nil {
		s.freed.Signal()
	}
}

func (s *sqliteCounters) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	for _, c := range s.idle {
		c.close()
	}
	s.open -= len(s.idle)
	s.idle = nil
	if s.freed != nil {
		s.freed.Broadcast()
	}
}

// openCounterConn opens path (no URI, no create: the pools made it) with
// the pools' busy timeout and prepares the counters statement.
func openCounterConn(path string) (_ *counterConn, err error) {
	c := &counterConn{tls: libc.NewTLS()}
	defer func() {
		if err != nil {
			c.close()
		}
	}()
	name, err := libc.CString(path)
	if err != nil {
		return nil, err
	}
	defer libc.Xfree(c.tls, name)
	query, err := libc.CString(countersSnapshotSQL)
	if err != nil {
		return nil, err
	}
	defer libc.Xfree(c.tls, query)
	out := libc.Xmalloc(c.tls, types.Size_t(unsafe.Sizeof(uintptr(0))))
	if out == 0 {
		return nil, errors.New("storage: out of memory")
	}
	defer libc.Xfree(c.tls, out)
	// NOMUTEX: one goroutine at a time uses a connection (sqliteCounters).
	rc := sqlite3.Xsqlite3_open_v2(c.tls, name, out, sqlite3.SQLITE_OPEN_READWRITE|sqlite3.SQLITE_OPEN_NOMUTEX, 0)
	c.db = libc.AtomicLoadPUintptr(out)
	if rc != sqlite3.SQLITE_OK {
		return nil, fmt.Errorf("open counters connection: %w", c.errorOf(rc))
	}
	if rc := sqlite3.Xsqlite3_busy_timeout(c.tls, c.db, busyTimeoutMillis); rc != sqlite3.SQLITE_OK {
		return nil, c.errorOf(rc)
	}
	if rc := sqlite3.Xsqlite3_prepare_v2(c.tls, c.db, query, -1, out, 0); rc != sqlite3.SQLITE_OK {
		return nil, fmt.Errorf("prepare counters: %w", c.errorOf(rc))
	}
	c.stmt = libc.AtomicLoadPUintptr(out)
	return c, nil
}

func (c *counterConn) errorOf(rc int32) error {
	if c.db != 0 {
		return fmt.Errorf("sqlite: %s (%d)", libc.GoString(sqlite3.Xsqlite3_errmsg(c.tls, c.db)), rc)
	}
	return fmt.Errorf("sqlite: %s (%d)", libc.GoString(sqlite3.Xsqlite3_errstr(c.tls, rc)), rc)
}

func (c *counterConn) close() {
	if c.stmt != 0 {
		sqlite3.Xsqlite3_finalize(c.tls, c.stmt)
	}
	if c.db != 0 {
		sqlite3.Xsqlite3_close_v2(c.tls, c.db)
	}
	c.tls.Close()
}

// SQLite merges the parts of a compound SELECT with an ORDER BY as
// co-routines, each ordered by its index, stopping at the LIMIT.
func (sqliteDialect) mergesLazily() bool { return true }

// pipelines: no round trips to save; every statement runs when made.
func (sqliteDialect) pipelines() bool { return false }

func (sqliteDialect) countersWithOrg() bool { return false }

// Live events (live.go): a SQLite file has one writing process, which
// announces its own changes in process; there is nobody else to tell.
func (sqliteDialect) notifyLive(*Tx, string) error { return nil }

func (sqliteDialect) listenLive(context.Context, string, func(), func(string)) error { return nil }
