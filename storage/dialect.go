package storage

// The dialect is everything that differs between the two database engines
// docsapi stores into: SQLite (a file path, the embedded default) and
// PostgreSQL (a postgres:// URL, for several stateless processes on one
// database). The rest of the storage writes one portable SQL, with `?`
// placeholders, and never asks which engine it runs on.

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"regexp"
	"strings"
)

// dialect is one database engine.
type dialect interface {
	// name is "sqlite" or "postgres", for messages.
	name() string
	// open returns the writer and reader pools for target (they may be
	// the same pool).
	open(target string, opt Options) (write, read *sql.DB, err error)
	// migrations is the folder of embedded migrations this engine runs.
	migrations() string
	// bootstrap is the SQL that creates the migration record and the change
	// counter when missing, run before the migrations.
	bootstrap() []string
	// writeContext is the context a write transaction (and the
	// migrations') begins with (BeginTx's), for bump when it bumps the change
	// counter; bumped reports that the engine needs no UPDATE for it
	// (otherwise Write runs the UPDATE). PostgreSQL's connection takes the
	// write locks in the BEGIN's round trip (pgConn.BeginTx) and has no
	// change counter row to bump (its change version is read from the
	// snapshot: dialect_postgres.go); SQLite's BEGIN IMMEDIATE holds its
	// write lock.
	// scope is the organization the write is confined to ("" for none:
	// scope.go); only an engine whose scopes answers true reads it.
	writeContext(ctx context.Context, bump bool, scope string) (c context.Context, bumped bool)
	// scopes says whether writes confined to different organizations may
	// run at the same time (PostgreSQL: one lock per organization); else
	// every write is unscoped (SQLite's single writer).
	scopes() bool
	// locksInBegin says whether a write transaction's BEGIN waits for the
	// write lock (PostgreSQL's advisory lock), so that it must end with the
	// request's context (see beginWrite).
	locksInBegin() bool
	// readOptions are the options of a read transaction (ReadTx).
	readOptions() *sql.TxOptions
	// prepares says whether the storage should keep prepared statements
	// itself (SQLite); PostgreSQL's driver caches them per connection.
	prepares() bool
	// counterReader is a cheaper way than the reader pool to read the
	// counters row (counters.go), or nil.
	counterReader(target string) countersReader
	// unique reports whether err is a unique or primary key violation.
	unique(err error) bool
	// deadlock reports whether err is the engine ending a transaction that
	// waited for another in a cycle (scope.go retries it unscoped).
	deadlock(err error) bool
	// refused reports whether err is the engine refusing a transaction's
	// statement or COMMIT, so that nothing of it was committed (a batch of
	// commuting writes then runs each again alone: runCommuting).
	refused(err error) bool
	// backup writes a consistent copy of the database to file.
	backup(ctx context.Context, db *DB, file string) error
	// catalog lists the tables admin copy-db copies (not the migrations'
	// record nor the search index's tables) and their foreign keys (table →
	// tables it references).
	catalog(ctx context.Context, q queryer) (tables []string, refs map[string][]string, err error)
	// suspendChecks turns off, in the copy's transaction, what would change
	// or refuse rows as they are copied: triggers (they would count copied
	// rows a second time in counters that are copied too) and immediate
	// foreign-key checks (checked at the commit instead). restore turns the
	// triggers back on in the same transaction.
	suspendChecks(to *Tx, tables []string) (restore func() error, err error)
	// moveAudit moves at most limit entries, the first in key order, from
	// audit_recent into audit_log in tx and says how many (MoveRecentAudit).
	moveAudit(tx *Tx, limit int) (int64, error)
	// auditMoverScope is the write scope of the move ("" for the whole
	// write lock): on PostgreSQL one statement moves the entries, safe
	// beside the organizations' writes, so it need not stop them.
	auditMoverScope() string
	// mergesLazily says whether a UNION ALL of index-ordered SELECTs under
	// one ORDER BY ... LIMIT reads each of them only as far as the merge
	// needs (SQLite's co-routine merge); otherwise each part is cut at the
	// limit in a subquery of its own (merged.go).
	mergesLazily() bool
	// pipelines says whether a write's statements whose results it does
	// not read (Tx.execLater) wait to be sent with the next one it reads or
	// with the COMMIT (PostgreSQL: one round trip; dialect_postgres.go),
	// and whether a transaction's BEGIN waits for its first statement.
	pipelines() bool
	// countersWithOrg says whether a request's counters read also reads
	// the organization and membership it is about (ReadCountersFor): on
	// PostgreSQL a round trip fewer; SQLite reads its counters through
	// its C API, cheaper alone, and its cache entries outlive reads.
	countersWithOrg() bool
	// notifyLive announces a live event to the other processes on the
	// database when tx commits (live.go); listenLive receives the others'
	// announcements (calling ready once it listens) until ctx ends (nil)
	// or the connection fails (its error). SQLite: nothing to do, and nil
	// at once.
	notifyLive(tx *Tx, payload string) error
	listenLive(ctx context.Context, target string, ready func(), fn func(payload string)) error
}

// schemeRE is the start of a URL: a scheme of two characters or more and a
// colon (one letter and a colon is a Windows drive).
var schemeRE = regexp.MustCompile(`^([A-Za-z][A-Za-z0-9+.-]+):`)

// dialectFor picks the engine for a --db value: a postgres:// or
// postgresql:// URL is PostgreSQL, a path is a SQLite file, and anything else
// that looks like a URL is refused (it would otherwise become a folder named
// after its scheme with a SQLite database in it).
func dialectFor(target string) (dialect, error) {
	if target == "" {
		return nil, errors.New("no database given: use a SQLite file path or a postgres:// URL")
	}
	m := schemeRE.FindStringSubmatch(target)
	if m == nil {
		return sqliteDialect{}, nil
	}
	switch strings.ToLower(m[1]) {
	case "postgres", "postgresql":
		if !strings.HasPrefix(target[len(m[0]):], "//") {
			return nil, fmt.Errorf("database %q: a PostgreSQL URL starts with postgres:// (for example postgres://user:password@host:5432/docsapi)", redact(target))
		}
		return postgresDialect{}, nil
	}
	return nil, fmt.Errorf("database %q: unsupported scheme %q; --db takes a SQLite file path (./data/docsapi.db; start a file name that has a colon with ./) or a postgres:// or postgresql:// URL",
		redact(target), m[1])
}

// CheckTarget reports whether target names a database docsapi can open
// (a SQLite file path or a PostgreSQL URL), without opening it: commands
// call it first so that a wrong --db fails before anything else.
func CheckTarget(target string) error {
	_, err := dialectFor(target)
	return err
}

// IsPostgres reports whether target is a PostgreSQL URL.
func IsPostgres(target string) bool {
	d, err := dialectFor(target)
	return err == nil && d.name() == "postgres"
}

// Redact is target with the password of a URL hidden, for logs.
func Redact(target string) string { return redact(target) }

// redact hides the password of a URL in messages.
func redact(target string) string {
	at := strings.LastIndexByte(target, '@')
	start := strings.Index(target, "://")
	if at < 0 || start < 0 || at < start {
		return target
	}
	userinfo := target[start+3 : at]
	if i := strings.IndexByte(userinfo, ':'); i >= 0 {
		return target[:start+3] + userinfo[:i] + ":xxxxx" + target[at:]
	}
	return target
}

// OpenRaw opens a plain pool on target with its engine's driver (`?`
// placeholders work on both), without migrations or caches: for tests and
// tools that look at tables directly.
func OpenRaw(target string) (*sql.DB, error) {
	d, err := dialectFor(target)
	if err != nil {
		return nil, err
	}
	w, r, err := d.open(target, Options{Readers: 2})
	if err != nil {
		return nil, err
	}
	w.Close()
	return r, nil
}

// Engine is "sqlite" or "postgres", for tools with engine-specific tuning
// (bench/seed); the storage itself never asks.
func (db *DB) Engine() string { return db.dialect.name() }

// catalogRows reads the catalog queries of a dialect: tablesSQL lists table
// names (given the table to leave out: search_legacy, the old engines'
// sections until the open that migrates them has indexed them), refsSQL pairs of (table,
// table it references).
func catalogRows(ctx context.Context, q queryer, tablesSQL, refsSQL string) (tables []string, refs map[string][]string, err error) {
	rows, err := q.QueryContext(ctx, tablesSQL, searchLegacyTable)
	if err != nil {
		return nil, nil, err
	}
	for rows.Next() {
		var t string
		if err := rows.Scan(&t); err != nil {
			rows.Close()
			return nil, nil, err
		}
		if !bookkeepingTables[t] {
			tables = append(tables, t)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, nil, err
	}
	refs = map[string][]string{}
	rows, err = q.QueryContext(ctx, refsSQL)
	if err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var from, to string
		if err := rows.Scan(&from, &to); err != nil {
			return nil, nil, err
		}
		refs[from] = append(refs[from], to)
	}
	return tables, refs, rows.Err()
}
