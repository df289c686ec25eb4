package storage

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"
)

// postgresDialect serves a postgres:// URL through pgx's database/sql
// driver. Several docsapi processes may share the database; writes are
// serialized between all of them by one advisory lock (writeLockKey), so
// every write transaction sees the result of the one before it exactly as
// with SQLite's single writer: check-then-write, numbering, counters and
// order keys need no retry logic. Reads are not serialized and scale with
// the processes; writes do not.
type postgresDialect struct{}

// writeLockKey is the transaction-level advisory lock every write
// transaction takes first (any constant works; this one spells "docsapi").
const writeLockKey = 0x646f6373617069

func (postgresDialect) name() string { return "postgres" }

// open makes two pools on the same server: a writer pool of one connection
// (writes queue in Go, as with SQLite, instead of each holding a
// connection while it waits for the lock) and a reader pool. Two pools
// also mean that a write transaction reading through the readers can never
// wait for a connection held by writers queued behind it.
func (postgresDialect) open(target string, opt Options) (*sql.DB, *sql.DB, error) {
	cfg, err := pgx.ParseConfig(target)
	if err != nil {
		return nil, nil, fmt.Errorf("database %q: %w", redact(target), err)
	}
	connector := pgConnector{stdlib.GetConnector(*cfg)}
	w := sql.OpenDB(connector)
	w.SetMaxOpenConns(1)
	w.SetMaxIdleConns(1)
	w.SetConnMaxIdleTime(5 * time.Minute)
	r := sql.OpenDB(connector)
	n := opt.Readers
	if n <= 0 {
		n = max(4, 2*runtime.GOMAXPROCS(0))
	}
	r.SetMaxOpenConns(n)
	r.SetMaxIdleConns(n)
	r.SetConnMaxIdleTime(5 * time.Minute)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := w.PingContext(ctx); err != nil {
		w.Close()
		r.Close()
		return nil, nil, fmt.Errorf("database %s: %w", redact(target), err)
	}
	return w, r, nil
}

func (postgresDialect) migrations() string { return "migrations/postgres" }

func (postgresDialect) bootstrap() []string {
	return []string{
		`CREATE TABLE IF NOT EXISTS schema_migrations (name TEXT COLLATE "C" PRIMARY KEY, applied_at BIGINT NOT NULL)`,
		`CREATE TABLE IF NOT EXISTS change_counter (id BIGINT PRIMARY KEY, n BIGINT NOT NULL)`,
	}
}

// A write transaction costs a network round trip per statement, one at a
// time on the single writer, so the fixed ones are folded: the BEGIN of
// every read-write transaction takes the write lock in the same round trip
// (beginWriteSQL), and the COMMIT of one that bumps the change counter
// bumps it in the same round trip (bumpCommitSQL). Both are simple-protocol
// queries of several statements (pgx sends Begin's and Commit's SQL so): the
// lock is still taken first and held to the end, and the bump is still the
// transaction's last statement, exactly as when each was its own round trip.
var (
	beginWriteSQL = fmt.Sprintf("BEGIN; SELECT pg_advisory_xact_lock(%d)", int64(writeLockKey))
	bumpCommitSQL = "UPDATE change_counter SET n = n + 1 WHERE id = 1; COMMIT"
)

// bumpAtCommit marks the context of a write transaction whose COMMIT bumps
// the change counter (writeContext).
type bumpAtCommit struct{}

// writeContext: the connection takes the write lock at BEGIN (every
// read-write transaction) and, for bump, bumps the counter at COMMIT.
func (postgresDialect) writeContext(ctx context.Context, bump bool) (context.Context, bool) {
	if !bump {
		return ctx, false
	}
	return context.WithValue(ctx, bumpAtCommit{}, true), true
}

// locksInBegin: BEGIN takes the advisory write lock (beginWriteSQL), a wait
// that must end with the request.
func (postgresDialect) locksInBegin() bool { return true }

// readOptions: REPEATABLE READ gives the whole read transaction one
// snapshot (a page and its count agree), as a SQLite read transaction does.
func (postgresDialect) readOptions() *sql.TxOptions { return &postgresRead }

var postgresRead = sql.TxOptions{Isolation: sql.LevelRepeatableRead, ReadOnly: true}

// prepares: pgx prepares and caches each statement per connection itself
// (its default query mode), so the storage's own caches stay empty.
func (postgresDialect) prepares() bool { return false }

// counterReader: none, the reader pool's prepared read is the way.
func (postgresDialect) counterReader(string) countersReader { return nil }

func (postgresDialect) unique(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == "23505"
}

// ErrBackupPostgres is the answer of Backup on PostgreSQL.
var ErrBackupPostgres = errors.New("docsapi backs up SQLite databases only; back up a PostgreSQL database with pg_dump (and restore it with pg_restore or psql)")

func (postgresDialect) backup(context.Context, *DB, string) error { return ErrBackupPostgres }

// pgConnector opens pgx connections that accept the storage's `?`
// placeholders (see rewritePlaceholders).
type pgConnector struct{ driver.Connector }

func (c pgConnector) Connect(ctx context.Context) (driver.Conn, error) {
	conn, err := c.Connector.Connect(ctx)
	if err != nil {
		return nil, err
	}
	sc, ok := conn.(*stdlib.Conn)
	if !ok {
		conn.Close()
		return nil, fmt.Errorf("storage: unexpected pgx connection type %T", conn)
	}
	return &pgConn{sc}, nil
}

// pgConn is a pgx connection whose statements are rewritten from `?` to
// `$n` and whose Go booleans are sent as 0/1 (the schema stores booleans as
// integers, as SQLite does). Every other method is pgx's own.
type pgConn struct{ *stdlib.Conn }

// BeginTx: a read-only transaction is pgx's own; a read-write one (the
// writer pool's: writes and the migrations) begins with beginWriteSQL and,
// when its context asks for it (writeContext), commits with bumpCommitSQL.
func (c *pgConn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	if opts.ReadOnly {
		return c.Conn.BeginTx(ctx, opts)
	}
	if sql.IsolationLevel(opts.Isolation) != sql.LevelDefault {
		return nil, fmt.Errorf("storage: write transactions run at the default isolation, not %v", sql.IsolationLevel(opts.Isolation))
	}
	conn := c.Conn.Conn()
	if conn.IsClosed() {
		return nil, driver.ErrBadConn
	}
	o := pgx.TxOptions{BeginQuery: beginWriteSQL}
	if ctx.Value(bumpAtCommit{}) != nil {
		o.CommitQuery = bumpCommitSQL
	}
	tx, err := conn.BeginTx(ctx, o)
	if err != nil {
		return nil, err
	}
	return pgTx{ctx, tx}, nil
}

// pgTx is a pgx transaction as database/sql drives it (stdlib's own
// wrapper is not exported).
type pgTx struct {
	ctx context.Context
	tx  pgx.Tx
}

func (t pgTx) Commit() error   { return t.tx.Commit(t.ctx) }
func (t pgTx) Rollback() error { return t.tx.Rollback(t.ctx) }

func (c *pgConn) Prepare(query string) (driver.Stmt, error) {
	return c.Conn.Prepare(rewritePlaceholders(query))
}

func (c *pgConn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	st, err := c.Conn.PrepareContext(ctx, rewritePlaceholders(query))
	if err != nil {
		return nil, err
	}
	return pgStmt{st}, nil
}

func (c *pgConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	return c.Conn.ExecContext(ctx, rewritePlaceholders(query), pgArgs(args))
}

func (c *pgConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	return c.Conn.QueryContext(ctx, rewritePlaceholders(query), pgArgs(args))
}

// pgStmt is a prepared statement with the same argument conversion.
type pgStmt struct{ driver.Stmt }

func (s pgStmt) ExecContext(ctx context.Context, args []driver.NamedValue) (driver.Result, error) {
	return s.Stmt.(driver.StmtExecContext).ExecContext(ctx, pgArgs(args))
}

func (s pgStmt) QueryContext(ctx context.Context, args []driver.NamedValue) (driver.Rows, error) {
	return s.Stmt.(driver.StmtQueryContext).QueryContext(ctx, pgArgs(args))
}

// pgArgs replaces boolean arguments by 1 or 0, and makes string
// arguments valid PostgreSQL text (in place: database/sql builds the slice
// for this call only). PostgreSQL text cannot hold NUL or invalid UTF-8,
// which SQLite stores as given: both become U+FFFD, so that such input is
// stored (or looked up, and not found) instead of failing the statement.
func pgArgs(args []driver.NamedValue) []driver.NamedValue {
	for i, a := range args {
		switch v := a.Value.(type) {
		case bool:
			if v {
				args[i].Value = int64(1)
			} else {
				args[i].Value = int64(0)
			}
		case string:
			if pgTextInvalid(v) {
				args[i].Value = pgText(v)
			}
		case *string: // pgx takes pointers as they are (nil is NULL)
			if v != nil && pgTextInvalid(*v) {
				args[i].Value = pgText(*v)
			}
		}
	}
	return args
}

func pgTextInvalid(s string) bool { return strings.IndexByte(s, 0) >= 0 || !utf8.ValidString(s) }

// pgText is s with each NUL and invalid byte sequence replaced by U+FFFD.
func pgText(s string) string {
	return strings.ReplaceAll(strings.ToValidUTF8(s, "\uFFFD"), "\x00", "\uFFFD")
}

func (postgresDialect) catalog(ctx context.Context, q queryer) ([]string, map[string][]string, error) {
	return catalogRows(ctx, q,
		`SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'
 AND table_name <> ?`,
		`SELECT DISTINCT c.conrelid::regclass::text, c.confrelid::regclass::text FROM pg_constraint c
 JOIN pg_namespace n ON n.oid = c.connamespace WHERE c.contype = 'f' AND n.nspname = current_schema()`)
}

// suspendChecks defers the foreign keys declared DEFERRABLE (the one
// referencing its own table, collections.parent_id; the referenced-first
// order satisfies the others) and disables the tables' own triggers for
// the transaction (ALTER TABLE takes their locks: the target is new and idle).
func (postgresDialect) suspendChecks(to *Tx, tables []string) (func() error, error) {
	if _, err := to.exec(`SET CONSTRAINTS ALL DEFERRED`); err != nil {
		return nil, err
	}
	for _, t := range tables {
		if _, err := to.exec(`ALTER TABLE ` + quoteIdent(t) + ` DISABLE TRIGGER USER`); err != nil {
			return nil, err
		}
	}
	return func() error {
		// The deferred checks run now: ALTER TABLE refuses a table with
		// pending trigger events.
		if _, err := to.exec(`SET CONSTRAINTS ALL IMMEDIATE`); err != nil {
			return err
		}
		for _, t := range tables {
			if _, err := to.exec(`ALTER TABLE ` + quoteIdent(t) + ` ENABLE TRIGGER USER`); err != nil {
				return err
			}
		}
		return nil
	}, nil
}

// notifyLive queues a notification on the live channel in tx: PostgreSQL
// delivers it to every listener at the commit, never for a rollback.
func (postgresDialect) notifyLive(tx *Tx, payload string) error {
	_, err := tx.exec(`SELECT pg_notify('`+liveChannel+`', CAST(? AS TEXT))`, payload)
	return err
}

// listenLive holds a connection of its own (outside both pools: a LISTEN
// lasts as long as its session) listening on the live channel.
func (postgresDialect) listenLive(ctx context.Context, target string, ready func(), fn func(string)) error {
	conn, err := pgx.Connect(ctx, target)
	if err != nil {
		return err
	}
	defer func() {
		c, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		conn.Close(c)
	}()
	if _, err := conn.Exec(ctx, "LISTEN "+liveChannel); err != nil {
		return err
	}
	ready()
	for {
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		fn(n.Payload)
	}
}
