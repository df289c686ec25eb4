// Package storage owns docsapi's database: connection pools, embedded
// migrations, and one method per business read or write. Every write runs in
// exactly one transaction; every list is keyset-paginated.
//
// The SQL is kept portable (no SQLite-only functions in business queries) so
// that a PostgreSQL backend can implement the same Store interface later.
package storage

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/singleflight"
	_ "modernc.org/sqlite" // registers the pure-Go "sqlite" driver
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// DB is the SQLite implementation of Store: one single-connection pool for
// writes (SQLite has one writer at a time; queuing in Go is cheaper than
// busy-waiting in SQLite) and a pool of readers that WAL lets run alongside.
type DB struct {
	write *sql.DB
	read  *sql.DB
	now   func() time.Time

	mu      sync.RWMutex
	rstmts  map[string]*sql.Stmt // prepared statements of the reader pool, by SQL text
	wstmts  map[string]*sql.Stmt // of the writer, by SQL text; nil: could not be prepared (see Write)
	dynamic int                  // how many of them vary with the reader (prepareDynamic)

	writeObserver atomic.Pointer[WriteObserver]
	actorOf       atomic.Pointer[func(context.Context) Actor] // see SetActorSource
	counts        countCache                                  // list totals, valid while the change counter stands still
	trees         treeCache                                   // collection trees by organization, valid while the access counter stands still
	access        versioned[AccessData]                       // content access by organization and user, valid while the access counter stands still
	accessLoads   singleflight.Group                          // one read of a missing AccessData at a time, by key
	orgs          versioned[orgFor]                           // OrganizationFor by organization and user, valid while the change counter stands still
	spaces        versioned[Space]                            // spaces by id (SpaceAccess), likewise
	searches      versioned[searchAnswer]                     // search answers by scope, query and page (search.go), likewise
	targetRemoved atomic.Pointer[TargetRemovedEvent]
	spaceLeaves   atomic.Pointer[SpaceLeavesSite]
	webhookWake   atomic.Pointer[func()] // see OnWebhooksQueued
}

// checkpointPages is the writer's automatic checkpoint threshold in WAL
// pages (SQLite's default is 1,000). A checkpoint runs inside the commit
// that crosses it, on the single writer, so every write waits behind it; a
// space create writes about ten pages, so at 1,000 one create in a hundred
// copied the WAL into the database and synced it. Fewer, larger
// checkpoints copy each hot page (the indexes' last leaves, the counters)
// once for many commits: the writer's mean hold per create fell from 0.73
// to 0.50 ms (README "Performance"). Durability is unchanged: every commit
// is synced in the WAL (synchronous=FULL); the WAL file grows to at most
// about 32 MB between checkpoints.
const checkpointPages = 8000

// Options tunes Open; the zero value is the durable default.
type Options struct {
	Clock   func() time.Time // injectable for retention tests; default time.Now
	Readers int              // reader pool size; default max(4, 2*GOMAXPROCS)
}

// Open creates the file's folder if needed, opens both pools and applies the
// migrations not yet applied.
func Open(path string, opt Options) (*DB, error) {
	if dir := filepath.Dir(path); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("create database folder: %w", err)
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
		return nil, err
	}
	w.SetMaxOpenConns(1)
	w.SetMaxIdleConns(1)
	w.SetConnMaxLifetime(0)
	r, err := sql.Open("sqlite", rdsn)
	if err != nil {
		w.Close()
		return nil, err
	}
	n := opt.Readers
	if n <= 0 {
		n = max(4, 2*runtime.GOMAXPROCS(0))
	}
	r.SetMaxOpenConns(n)
	r.SetMaxIdleConns(n)
	r.SetConnMaxLifetime(0)

	db := &DB{write: w, read: r, now: opt.Clock, rstmts: map[string]*sql.Stmt{}, wstmts: map[string]*sql.Stmt{}, counts: countCache{m: map[string]countEntry{}},
		trees: treeCache{versioned[CollectionTree]{max: 1000}}, access: versioned[AccessData]{max: 10_000},
		orgs: versioned[orgFor]{max: 10_000}, spaces: versioned[Space]{max: 10_000},
		searches: versioned[searchAnswer]{max: 128}}
	if db.now == nil {
		db.now = time.Now
	}
	if err := db.migrate(context.Background()); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

// Close finishes the prepared statements and both pools; WAL is checkpointed
// by SQLite when the last connection closes.
func (db *DB) Close() error {
	db.mu.Lock()
	for _, s := range db.rstmts {
		s.Close()
	}
	for _, s := range db.wstmts {
		if s != nil {
			s.Close()
		}
	}
	db.mu.Unlock()
	err1 := db.read.Close()
	err2 := db.write.Close()
	return errors.Join(err1, err2)
}

// Now is the storage clock: every timestamp a transaction writes comes from it.
func (db *DB) Now() time.Time { return db.now().UTC() }

// Ping reports whether the database answers (for /readyz).
func (db *DB) Ping(ctx context.Context) error {
	var one int
	return db.read.QueryRowContext(ctx, "SELECT 1").Scan(&one)
}

func (db *DB) migrate(ctx context.Context) error {
	if _, err := db.write.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (name TEXT PRIMARY KEY, applied_at INTEGER NOT NULL)`); err != nil {
		return fmt.Errorf("migrations table: %w", err)
	}
	// The change counter: one row, bumped by every write transaction (see
	// Write), read by lists to know whether a cached total is still exact.
	if _, err := db.write.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS change_counter (id INTEGER PRIMARY KEY, n INTEGER NOT NULL)`); err != nil {
		return fmt.Errorf("change counter: %w", err)
	}
	if _, err := db.write.ExecContext(ctx, `INSERT INTO change_counter (id, n) SELECT 1, 0 WHERE NOT EXISTS (SELECT 1 FROM change_counter)`); err != nil {
		return fmt.Errorf("change counter: %w", err)
	}
	names, err := fs.Glob(migrationFiles, "migrations/*.sql")
	if err != nil {
		return err
	}
	sort.Strings(names)
	tx, err := db.write.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	for _, name := range names {
		var done int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM schema_migrations WHERE name = ?`, name).Scan(&done); err != nil {
			return err
		}
		if done > 0 {
			continue
		}
		body, err := migrationFiles.ReadFile(name)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, string(body)); err != nil {
			return fmt.Errorf("migration %s: %w", name, err)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO schema_migrations (name, applied_at) VALUES (?, ?)`, name, db.Now().UnixMilli()); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// stmt returns the reader pool's prepared statement for query, preparing
// it once. Hot paths never re-parse SQL.
func (db *DB) stmt(ctx context.Context, query string) (*sql.Stmt, error) {
	cache, pool := db.rstmts, db.read
	db.mu.RLock()
	s := cache[query]
	db.mu.RUnlock()
	if s != nil {
		return s, nil
	}
	db.mu.Lock()
	defer db.mu.Unlock()
	if s = cache[query]; s != nil {
		return s, nil
	}
	s, err := pool.PrepareContext(ctx, query)
	if err != nil {
		return nil, fmt.Errorf("prepare %q: %w", firstLine(query), err)
	}
	cache[query] = s
	return s, nil
}

// maxDynamicStmts bounds the statements prepared for SQL that varies with
// the reader (see listSpec.Dynamic); past it such SQL runs unprepared.
const maxDynamicStmts = 256

// prepareDynamic prepares queries that vary with the reader, while fewer
// than maxDynamicStmts of them are cached. Failing to prepare is not an
// error here: the query then runs unprepared and reports it.
func (db *DB) prepareDynamic(ctx context.Context, queries ...string) {
	for _, q := range queries {
		if db.cachedStmt(q) != nil {
			continue
		}
		db.mu.Lock()
		full := db.dynamic >= maxDynamicStmts
		if !full {
			db.dynamic++
		}
		db.mu.Unlock()
		if full {
			return
		}
		if _, err := db.stmt(ctx, q); err != nil {
			return
		}
	}
}

// cachedStmt is the prepared statement for query, or nil when it has not
// been prepared yet; it never touches the pool.
func (db *DB) cachedStmt(query string) *sql.Stmt {
	db.mu.RLock()
	defer db.mu.RUnlock()
	return db.rstmts[query]
}

// prepare readies queries on the reader pool before a read transaction
// starts (see readTx).
func (db *DB) prepare(ctx context.Context, queries ...string) error {
	for _, q := range queries {
		if _, err := db.stmt(ctx, q); err != nil {
			return err
		}
	}
	return nil
}

func firstLine(q string) string {
	q = strings.TrimSpace(q)
	if i := strings.IndexByte(q, '\n'); i > 0 {
		return q[:i]
	}
	return q
}

// queryer is what read helpers need: the reader pool or a transaction.
type queryer interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// reader runs prepared statements on the reader pool.
type reader struct{ db *DB }

func (r reader) QueryContext(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	s, err := r.db.stmt(ctx, q)
	if err != nil {
		return nil, err
	}
	return s.QueryContext(ctx, args...)
}

func (r reader) QueryRowContext(ctx context.Context, q string, args ...any) *sql.Row {
	s, err := r.db.stmt(ctx, q)
	if err != nil {
		return r.db.read.QueryRowContext(ctx, q, args...) // surfaces the prepare error on Scan
	}
	return s.QueryRowContext(ctx, args...)
}

func (r reader) ExecContext(ctx context.Context, q string, args ...any) (sql.Result, error) {
	return nil, errors.New("storage: write attempted on the reader pool")
}

func (db *DB) r() reader { return reader{db} }

// Tx is one write transaction with one clock reading for all it writes.
type Tx struct {
	tx  *sql.Tx
	db  *DB
	ctx context.Context
	Now time.Time
	// unprepared is the SQL this transaction ran without a prepared
	// statement; Write prepares it once the writer is free again.
	unprepared []string
	// recorded is the Recording whose changes this transaction wrote;
	// marked done once the transaction commits (changes.go).
	recorded *recording
	// committed runs once the transaction has committed (wake-ups of
	// background workers whose queue it wrote to).
	committed []func()
}

// afterCommit runs f once t has committed (never when it rolls back).
func (t *Tx) afterCommit(f func()) { t.committed = append(t.committed, f) }

// Exec and single-row reads use the writer's prepared statements when they
// exist. A statement cannot be prepared while the transaction holds the
// single writer connection (database/sql would wait for a second one for
// ever), so SQL seen for the first time runs unprepared and is prepared
// after the transaction (see Write): every later write with it skips
// parsing. Multi-row queries stay unprepared: one prepared SQLite statement
// cannot run twice at once, and a loop over rows may run its own query again
// (tree walks); Exec and QueryRow finish (at Scan) before anything else runs.
func (t *Tx) QueryContext(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	return t.tx.QueryContext(ctx, q, args...)
}

func (t *Tx) QueryRowContext(ctx context.Context, q string, args ...any) *sql.Row {
	if s := t.stmt(ctx, q); s != nil {
		return s.QueryRowContext(ctx, args...)
	}
	return t.tx.QueryRowContext(ctx, q, args...)
}

func (t *Tx) ExecContext(ctx context.Context, q string, args ...any) (sql.Result, error) {
	if s := t.stmt(ctx, q); s != nil {
		return s.ExecContext(ctx, args...)
	}
	return t.tx.ExecContext(ctx, q, args...)
}

// stmt is q's prepared statement bound to this transaction, or nil (then
// q is noted for preparing after the transaction).
func (t *Tx) stmt(ctx context.Context, q string) *sql.Stmt {
	t.db.mu.RLock()
	s, known := t.db.wstmts[q]
	t.db.mu.RUnlock()
	if s != nil {
		return t.tx.StmtContext(ctx, s)
	}
	if !known && len(t.unprepared) < 64 {
		t.unprepared = append(t.unprepared, q)
	}
	return nil
}

// maxWriteStmts bounds the writer's prepared statements (SQL built with a
// varying number of placeholders would otherwise grow the cache).
const maxWriteStmts = 1024

// prepareWrites prepares the SQL a transaction ran unprepared, on the
// writer pool once the transaction has released it. SQL that fails to
// prepare (or arrives once the cache is full) keeps running unprepared.
func (db *DB) prepareWrites(queries []string) {
	for _, q := range queries {
		db.mu.RLock()
		_, known := db.wstmts[q]
		full := len(db.wstmts) >= maxWriteStmts
		db.mu.RUnlock()
		if known || full {
			continue
		}
		s, err := db.write.PrepareContext(context.Background(), q)
		if err != nil {
			s = nil
		}
		db.mu.Lock()
		if _, known := db.wstmts[q]; known {
			if s != nil {
				s.Close()
			}
		} else {
			db.wstmts[q] = s
		}
		db.mu.Unlock()
	}
}

// PrepareContext prepares q on this transaction's connection, for bulk
// loaders (bench/seed) that run one statement many times in a transaction.
func (t *Tx) PrepareContext(ctx context.Context, q string) (*sql.Stmt, error) {
	return t.tx.PrepareContext(ctx, q)
}

// exec is ExecContext with the transaction's own context.
func (t *Tx) exec(q string, args ...any) (sql.Result, error) { return t.ExecContext(t.ctx, q, args...) }

// Write runs fn in one write transaction; an error from fn rolls it all back.
// Every committed write also bumps the change counter, in the same
// transaction, so that cached list totals (countCache) are never stale, even
// for writes made by another process on the same file (docsapi admin).
func (db *DB) Write(ctx context.Context, fn func(tx *Tx) error) error {
	return db.writeTx(ctx, true, fn)
}

// writeTx is Write; bump false leaves the change counter alone, for writes
// that no cache depends on (last use of tokens), so they do not empty the
// read caches of every other request.
func (db *DB) writeTx(ctx context.Context, bump bool, fn func(tx *Tx) error) error {
	start := time.Now()
	sqlTx, err := db.write.BeginTx(ctx, nil)
	began := time.Now()
	var t *Tx
	if err == nil {
		t = &Tx{tx: sqlTx, db: db, ctx: ctx, Now: db.Now()}
		if err = fn(t); err == nil {
			err = t.recordChanges(ctx)
		}
		if err == nil && bump {
			_, err = t.exec(`UPDATE change_counter SET n = n + 1 WHERE id = 1`)
		}
		if err != nil {
			sqlTx.Rollback()
		} else if err = sqlTx.Commit(); err == nil {
			if t.recorded != nil {
				t.recorded.done.Store(true)
			}
			for _, f := range t.committed {
				f()
			}
		}
	}
	held := time.Since(began)
	if t != nil && len(t.unprepared) > 0 {
		db.prepareWrites(t.unprepared)
	}
	if obs := db.writeObserver.Load(); obs != nil {
		(*obs)(began.Sub(start), held, err)
	}
	return err
}

// WriteObserver is told about every write transaction: how long it waited
// for the single writer connection, how long it then held it (up to and
// including the durable commit), and its error (nil when committed).
type WriteObserver func(wait, hold time.Duration, err error)

// ObserveWrites installs fn (nil removes it); metrics use it.
func (db *DB) ObserveWrites(fn WriteObserver) {
	if fn == nil {
		db.writeObserver.Store(nil)
		return
	}
	db.writeObserver.Store(&fn)
}

// Stats reports both connection pools, for metrics.
func (db *DB) Stats() (write, read sql.DBStats) { return db.write.Stats(), db.read.Stats() }

// ReadTx runs fn in one read transaction so that several queries (a page and
// its count) see the same snapshot.
func (db *DB) ReadTx(ctx context.Context, fn func(q queryer) error) error {
	sqlTx, err := db.read.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return err
	}
	defer sqlTx.Rollback()
	return fn(&readTx{tx: sqlTx, db: db})
}

type readTx struct {
	tx *sql.Tx
	db *DB
}

// A read transaction holds one reader connection; preparing a statement
// not yet cached needs another one (database/sql prepares on the pool), so
// as many concurrent first reads as there are readers would wait on each
// other for ever (the pool deadlocked on a cold start under concurrent
// lists). So a read transaction uses statements prepared beforehand (see
// prepare and prepareDynamic; runList does it before ReadTx) and runs
// anything else unprepared on its own connection.
func (t *readTx) QueryContext(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	if s := t.db.cachedStmt(q); s != nil {
		return t.tx.StmtContext(ctx, s).QueryContext(ctx, args...)
	}
	return t.tx.QueryContext(ctx, q, args...)
}

func (t *readTx) QueryRowContext(ctx context.Context, q string, args ...any) *sql.Row {
	if s := t.db.cachedStmt(q); s != nil {
		return t.tx.StmtContext(ctx, s).QueryRowContext(ctx, args...)
	}
	return t.tx.QueryRowContext(ctx, q, args...)
}

func (t *readTx) ExecContext(ctx context.Context, q string, args ...any) (sql.Result, error) {
	return nil, errors.New("storage: write attempted in a read transaction")
}

// ErrNotFound is returned by single-row reads that match nothing.
var ErrNotFound = errors.New("storage: not found")

// conflict is a storage error saying the write clashes with what is stored
// (a name taken, a structure changed since it was read). Resolvers name
// most of them precisely; any they do not is still a 409 (apierr.As reads
// Conflict), never an internal error.
type conflict string

func (c conflict) Error() string    { return "storage: " + string(c) }
func (c conflict) Conflict() string { return string(c) }

func notFound(err error) error {
	if errors.Is(err, sql.ErrNoRows) {
		return ErrNotFound
	}
	return err
}
