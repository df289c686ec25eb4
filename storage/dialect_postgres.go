package storage

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"hash/fnv"
	"runtime"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"
)

// postgresDialect serves a postgres:// URL through pgx's database/sql
// driver. Several docsapi processes may share the database. Writes are
// serialized by advisory locks held to the end of their transaction, taken
// in the BEGIN's round trip (pgConn.BeginTx):
//
//   - A write confined to one organization (scope.go) takes the global
//     key (writeLockKey) shared, then its organization's key (orgLockClass,
//     a 32-bit hash of the id) exclusive: it waits only for writes of the
//     same organization, from this process or another replica, and for
//     unscoped writes. Within the organization every write sees the one
//     before it, exactly as with SQLite's single writer: check-then-write,
//     numbering, positions, counts and If-Match need no retry logic.
//   - Any other write takes the global key exclusive: it waits for every
//     write in flight and runs alone, as all writes did before.
//
// Both take the global key first, so no two writes wait for each other in
// a cycle. There is no change counter row to bump either (its one row,
// bumped by every write, serialized every commit): the change version
// caches are validated by is read from the snapshot (changeVersionSQL).
// Reads are not serialized.
type postgresDialect struct{}

// writeLockKey is the advisory lock (bigint key space) every write
// transaction takes first, exclusive or shared (any constant works; this
// one spells "docsapi").
const writeLockKey = 0x646f6373617069

// orgLockClass is the first half of an organization's advisory lock (the
// two-int4 key space, apart from writeLockKey's): "docs".
const orgLockClass = 0x646f6373

// orgLockKey is the second half: FNV-1a of the organization id. Two
// organizations with one hash share a lock, which only serializes them.
func orgLockKey(orgID string) int32 {
	h := fnv.New32a()
	h.Write([]byte(orgID))
	return int32(h.Sum32())
}

// pgWriters is the writer pool's size: the scopes that can hold a
// transaction at once in this process (groupcommit.go runs one batch per
// scope at a time). A scope past it waits for a connection.
const pgWriters = 16

func (postgresDialect) name() string { return "postgres" }

// open makes two pools on the same server: a writer pool of pgWriters
// connections (one per write scope in flight: writes of one scope queue in
// Go, as with SQLite, instead of each holding a connection while it waits
// for the lock) and a reader pool. Two pools also mean that a write
// transaction reading through the readers can never wait for a connection
// held by writers queued behind it.
func (postgresDialect) open(target string, opt Options) (*sql.DB, *sql.DB, error) {
	cfg, err := pgx.ParseConfig(target)
	if err != nil {
		return nil, nil, fmt.Errorf("database %q: %w", redact(target), err)
	}
	var connector driver.Connector = pgConnector{stdlib.GetConnector(*cfg)}
	if opt.Statements != nil {
		connector = countingConnector{inner: connector, n: opt.Statements} // statements.go
	}
	w := sql.OpenDB(connector)
	w.SetMaxOpenConns(pgWriters)
	w.SetMaxIdleConns(pgWriters)
	w.SetConnMaxIdleTime(5 * time.Minute)
	r := sql.OpenDB(connector)
	n := opt.Readers
	if n <= 0 {
		// Sized for 16 clients: with 4, GET /v1/spaces/{id} with 16
		// clients queued for a connection (docs/postgresql.md).
		n = max(16, 2*runtime.GOMAXPROCS(0))
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

// A write transaction costs a network round trip per statement, so the
// BEGIN of every read-write transaction takes its write locks in the same
// round trip: a simple-protocol query of several statements (pgx sends
// Begin's SQL so), the locks still taken first, in order, and held to the
// end.
var beginWriteSQL = fmt.Sprintf("BEGIN; SELECT pg_advisory_xact_lock(%d)", int64(writeLockKey))

// beginScopedSQL is the BEGIN of a write confined to the organization
// whose lock key is key.
func beginScopedSQL(key int32) string {
	return fmt.Sprintf("BEGIN; SELECT pg_advisory_xact_lock_shared(%d); SELECT pg_advisory_xact_lock(%d, %d)", int64(writeLockKey), orgLockClass, key)
}

// beginCommutingSQL is the BEGIN of a commuting write (scope.go) of the
// organization whose lock key is key: both locks shared.
func beginCommutingSQL(key int32) string {
	return fmt.Sprintf("BEGIN; SELECT pg_advisory_xact_lock_shared(%d); SELECT pg_advisory_xact_lock_shared(%d, %d)", int64(writeLockKey), orgLockClass, key)
}

// scopeKey marks the context of a write transaction confined to an
// organization (writeContext); its value is the organization id.
type scopeKey struct{}

// writeContext: the connection takes the write locks of scope at BEGIN.
// Nothing to bump: the change version is the snapshot's (changeVersionSQL).
func (postgresDialect) writeContext(ctx context.Context, _ bool, scope string) (context.Context, bool) {
	if scope != "" {
		ctx = context.WithValue(ctx, scopeKey{}, scope)
	}
	return ctx, true
}

// scopes: one lock per organization.
func (postgresDialect) scopes() bool { return true }

// moveAudit deletes the first entries and inserts exactly the rows deleted,
// in one statement (one snapshot): entries organizations' writes add
// meanwhile are either moved whole or left whole. A second mover (another
// replica) waits for the first's row locks and skips what it deleted.
func (postgresDialect) moveAudit(tx *Tx, limit int) (int64, error) {
	// The count is of the entries deleted (moved), not of those inserted:
	// one already in audit_log is skipped by the INSERT but still moved.
	var n int64
	err := tx.QueryRowContext(tx.ctx, `WITH moved AS (DELETE FROM audit_recent WHERE (organization_id, id) IN (
 SELECT organization_id, id FROM audit_recent ORDER BY organization_id, id LIMIT ?) RETURNING `+auditCols+`),
 copied AS (INSERT INTO audit_log (`+auditCols+`) SELECT `+auditCols+` FROM moved ON CONFLICT (organization_id, id) DO NOTHING)
 SELECT COUNT(*) FROM moved`, limit).Scan(&n)
	return n, err
}

// auditMoverScope: a scope of its own (a space before it: no organization
// id starts so), beside the organizations' writes; movers of several
// replicas take turns.
func (postgresDialect) auditMoverScope() string { return " audit mover" }

// changeVersionSQL is PostgreSQL's reading of the change counter: the
// number of transactions the statement's snapshot sees as ended, the
// snapshot's xmax less its in-progress ids. Every commit moves it and
// nothing moves it back, and two snapshots that read one value see the
// same commits (snapshots are taken in the one order transactions end
// in), so it validates caches exactly as a counter row bumped by every
// write did, without the row every write had to lock and update. A
// transaction ending in another database of the cluster moves it too: a
// cache miss, never a stale hit.
const changeVersionSQL = `(SELECT pg_snapshot_xmax(s)::text::bigint - (SELECT count(*) FROM pg_snapshot_xip(s)) FROM pg_current_snapshot() s)`

// pgCountersOrgsSQL: likewise, with the access and token counters (by
// countersOrgsSQL's text).
var pgCountersOrgsSQL = func() map[string]string {
	m := make(map[string]string, maxOrgsWithCounters)
	for _, q := range countersOrgsSQL[1:] {
		m[q] = numberPlaceholders(strings.Replace(q, `c.n, c.access`, changeVersionSQL+`, c.access`, 1))
	}
	return m
}()

// pgOrgForVersionedSQL: the counter read from the statement's snapshot.
var pgOrgForVersionedSQL = numberPlaceholders(strings.Replace(orgForVersionedSQL, `(`+changeCounterSQL+`)`, changeVersionSQL, 1))

// pgCounterStatement is q rewritten for PostgreSQL when q reads the change
// counter (counters.go, content.go, page.go), else "".
func pgCounterStatement(q string) string {
	switch q {
	case countersSnapshotSQL:
		return `SELECT ` + changeVersionSQL + `, c.access, t.n FROM change_counter c, token_changes t WHERE c.id = 1 AND t.id = 1`
	case countersSQL:
		return `SELECT ` + changeVersionSQL + `, access FROM change_counter WHERE id = 1`
	case changeCounterSQL:
		return `SELECT ` + changeVersionSQL
	case orgForVersionedSQL:
		return pgOrgForVersionedSQL
	}
	if strings.HasPrefix(q, countersOrgsPrefix) {
		return pgCountersOrgsSQL[q]
	}
	return ""
}

// locksInBegin: BEGIN takes the advisory write locks (beginWriteSQL,
// beginScopedSQL), a wait that must end with the request.
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

// deadlock: deadlock_detected, PostgreSQL's end of one transaction of a
// cycle of lock waits.
func (postgresDialect) deadlock(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == "40P01"
}

// refused: the server answered with an error (the transaction is then
// aborted and its COMMIT rolls it back), or the COMMIT came back as a
// rollback, or nothing was sent (a bad connection before the batch): in
// each case nothing committed. Any other error (a connection lost once the
// COMMIT was sent) leaves the outcome unknown.
func (postgresDialect) refused(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) || errors.Is(err, pgx.ErrTxCommitRollback) || errors.Is(err, driver.ErrBadConn)
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
	return &pgConn{Conn: sc, begun: true}, nil
}

// pgConn is a pgx connection whose statements are rewritten from `?` to
// `$n` and whose Go booleans are sent as 0/1 (the schema stores booleans as
// integers, as SQLite does). Every other method is pgx's own.
type pgConn struct {
	*stdlib.Conn
	// The write pipeline (below BeginTx): statements not sent yet, the
	// lazy BEGIN's context, and whether the BEGIN went out.
	pending  []queued
	beginLen int // the lazy BEGIN's statements, first in pending
	beginCtx context.Context
	begun    bool
}

// BeginTx: a read-only transaction is pgx's own; a read-write one (the
// writer pool's: writes and the migrations) begins with beginWriteSQL, or
// beginScopedSQL when its context names an organization (writeContext).
// Under lazyBegin its BEGIN and locks are not sent yet: they wait in the
// connection's pipeline (below) for the transaction's first statement.
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
	org, _ := ctx.Value(scopeKey{}).(string)
	if ctx.Value(lazyBeginKey{}) != nil {
		c.pending = append(c.pending[:0], beginStatements(org)...)
		c.beginLen = len(c.pending)
		c.beginCtx, c.begun = ctx, false
		return &pgLazyTx{c}, nil
	}
	begin := beginWriteSQL
	if commuting(org) {
		begin = beginCommutingSQL(orgLockKey(strings.TrimPrefix(org, commutingScope)))
	} else if org != "" {
		begin = beginScopedSQL(orgLockKey(org))
	}
	slot, _ := ctx.Value(webhookCounterKey{}).(*webhookCounter)
	if slot != nil {
		begin += "; " + webhookCounterSQL
	}
	results, err := conn.PgConn().Exec(ctx, begin).ReadAll()
	if err != nil {
		if pgconn.SafeToRetry(err) {
			return nil, driver.ErrBadConn
		}
		if !conn.IsClosed() {
			conn.Exec(context.Background(), "rollback") // a lock wait that failed: end what BEGIN opened
		}
		return nil, err
	}
	if slot != nil {
		slot.read(results)
	}
	c.pending, c.beginLen, c.beginCtx, c.begun = c.pending[:0], 0, nil, true
	return &pgLazyTx{c}, nil
}

// webhookCounterSQL reads the webhook counter (webhooks.go, webhookSubs)
// in the BEGIN's round trip, after the locks: no write that changes
// subscriptions (unscoped, the global lock exclusive) can commit before
// this transaction ends, so the reading holds for the whole transaction,
// as the counter SQLite's bump returns does (bumpReturningWebhooks), and
// a change of an organization that no webhook listens to costs no
// statement on PostgreSQL either.
const webhookCounterSQL = `SELECT webhooks FROM change_counter WHERE id = 1`

// webhookCounterKey: the context of a write BEGIN carries a
// *webhookCounter for the reading (runBatch).
type webhookCounterKey struct{}

// webhookCounter is the reading: known false when there was none (no
// counter row: a copy-db target mid-copy; or a lazy BEGIN).
type webhookCounter struct {
	n     int64
	known bool
}

func (w *webhookCounter) read(results []*pgconn.Result) {
	if len(results) == 0 {
		return
	}
	last := results[len(results)-1]
	if len(last.Rows) != 1 || len(last.Rows[0]) != 1 {
		return
	}
	n, err := strconv.ParseInt(string(last.Rows[0][0]), 10, 64)
	if err == nil {
		w.n, w.known = n, true
	}
}

// The write pipeline. Each statement of a write transaction is a loopback
// round trip, and its BEGIN, its locks and its COMMIT are three more. A
// statement whose result the write does not read (Tx.execLater: an INSERT
// of a new row, an audit entry) is queued on the connection instead of
// sent, and so is a lazy BEGIN with its locks (lazyBegin); the queue goes
// out with the next statement the write does read, or with the COMMIT, as
// one pgx batch: one round trip. A team created alone is then BEGIN, its
// two locks, its row, its audit entry and the COMMIT in a single round trip
// (a bare INSERT in a transaction of its own is three); a space created is
// BEGIN, its reads, then its rows, audit entry and COMMIT in one. What a queued
// statement would have failed with is the error of the statement or the
// COMMIT it went out with (the transaction is then rolled back, as it
// would have been): nothing is committed that the write did not mean.

// lazyBeginKey marks the context of a write transaction whose BEGIN may
// wait for its first statement (runBatch: a commuting write alone in its
// transaction, whose BEGIN and locks then wait under its request's
// context, as they did when sent first).
type lazyBeginKey struct{}

// lazyBegin: ctx's write transaction begins with its first statement.
func lazyBegin(ctx context.Context) context.Context {
	return context.WithValue(ctx, lazyBeginKey{}, true)
}

// laterKey marks the context of a statement to queue (Tx.execLater).
type laterKey struct{}

// queuedError is the error of a queued statement that went out before
// another one (the batch's own: runBatch tells a member's error from its
// savepoint release's).
type queuedError struct{ err error }

func (e *queuedError) Error() string { return e.err.Error() }
func (e *queuedError) Unwrap() error { return e.err }

// queued is one statement of the pipeline, its placeholders rewritten.
type queued struct {
	sql  string
	args []any
}

// beginStatements are the lazy BEGIN of a write of scope org and its
// locks, in the order beginWriteSQL, beginScopedSQL and beginCommutingSQL
// take them.
func beginStatements(org string) []queued {
	begin := queued{sql: "begin"}
	switch {
	case commuting(org):
		return []queued{begin, {sql: "select pg_advisory_xact_lock_shared($1::bigint)", args: []any{int64(writeLockKey)}},
			{sql: "select pg_advisory_xact_lock_shared($1::int4, $2::int4)", args: []any{int32(orgLockClass), orgLockKey(strings.TrimPrefix(org, commutingScope))}}}
	case org != "":
		return []queued{begin, {sql: "select pg_advisory_xact_lock_shared($1::bigint)", args: []any{int64(writeLockKey)}},
			{sql: "select pg_advisory_xact_lock($1::int4, $2::int4)", args: []any{int32(orgLockClass), orgLockKey(org)}}}
	}
	return []queued{begin, {sql: "select pg_advisory_xact_lock($1::bigint)", args: []any{int64(writeLockKey)}}}
}

// send runs the queue, then last (when not empty), as one batch, and
// returns last's command tag. The queue is empty afterwards, whatever the
// outcome. A batch that holds the lazy BEGIN runs under the BEGIN's context
// too: the wait for the locks ends with the request, as before.
func (c *pgConn) send(ctx context.Context, last queued) (pgconn.CommandTag, error) {
	b := &pgx.Batch{}
	for _, q := range c.pending {
		b.Queue(q.sql, q.args...)
	}
	if last.sql != "" {
		b.Queue(last.sql, last.args...)
	}
	n := len(b.QueuedQueries)
	c.pending = c.pending[:0]
	if n == 0 {
		return pgconn.CommandTag{}, nil
	}
	if !c.begun {
		c.begun = true
		if bc := c.beginCtx; bc != nil {
			c.beginCtx = nil
			var stop func() bool
			var cancel context.CancelFunc
			ctx, cancel = context.WithCancel(ctx)
			stop = context.AfterFunc(bc, cancel)
			defer func() { stop(); cancel() }()
		}
	}
	br := c.Conn.Conn().SendBatch(ctx, b)
	var tag pgconn.CommandTag
	var err error
	failed := -1
	for i := 0; i < n && err == nil; i++ {
		if tag, err = br.Exec(); err != nil {
			failed = i
		}
	}
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	if err != nil && pgconn.SafeToRetry(err) {
		return tag, driver.ErrBadConn
	}
	if err != nil && last.sql != "" && failed >= 0 && failed < n-1 {
		return tag, &queuedError{err}
	}
	return tag, err
}

// flush sends the queue, if any, before a statement that reads.
func (c *pgConn) flush(ctx context.Context) error {
	if len(c.pending) == 0 {
		return nil
	}
	_, err := c.send(ctx, queued{})
	return err
}

// pgLazyTx is a write transaction whose statements may wait in the
// connection's queue (see above), begun lazily or already.
type pgLazyTx struct{ c *pgConn }

// Commit sends the queue and the COMMIT together. A transaction that sent
// nothing at all (its BEGIN still queued) has nothing to commit.
func (t *pgLazyTx) Commit() error {
	c := t.c
	if !c.begun && len(c.pending) == c.beginLen {
		c.pending = c.pending[:0]
		c.begun, c.beginCtx = true, nil
		return nil
	}
	tag, err := c.send(context.Background(), queued{sql: "commit"})
	if err != nil {
		if !errors.Is(err, driver.ErrBadConn) {
			c.Conn.Conn().Exec(context.Background(), "rollback") // the queue's error left it aborted
		}
		return err
	}
	if tag.String() != "COMMIT" {
		// COMMIT of a transaction an earlier error aborted rolls it back.
		return pgx.ErrTxCommitRollback
	}
	return nil
}

// Rollback drops the queue: what waits in it was never sent.
func (t *pgLazyTx) Rollback() error {
	c := t.c
	c.pending = c.pending[:0]
	if !c.begun {
		c.begun, c.beginCtx = true, nil
		return nil
	}
	_, err := c.Conn.Conn().Exec(context.Background(), "rollback")
	return err
}

// ResetSession: a connection goes back to the pool with nothing queued
// (its transaction's Commit or Rollback emptied the queue already).
func (c *pgConn) ResetSession(ctx context.Context) error {
	c.pending, c.beginCtx, c.begun = c.pending[:0], nil, true
	return c.Conn.ResetSession(ctx)
}

// countersWithOrg: one round trip for the counters and the organization
// (ReadCountersFor), since every commit moves the change version.
func (postgresDialect) countersWithOrg() bool { return true }

// pipelines: statements queue (Tx.execLater) until one is read or the
// COMMIT.
func (postgresDialect) pipelines() bool { return true }

// deferredResult is the result of a queued statement: not known yet.
type deferredResult struct{}

var errDeferred = errors.New("storage: a queued statement's result is not known before it is sent (Tx.execLater)")

func (deferredResult) LastInsertId() (int64, error) { return 0, errDeferred }
func (deferredResult) RowsAffected() (int64, error) { return 0, errDeferred }

func (c *pgConn) Prepare(query string) (driver.Stmt, error) {
	return c.PrepareContext(context.Background(), query)
}

func (c *pgConn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	if err := c.flush(ctx); err != nil {
		return nil, err
	}
	st, err := c.Conn.PrepareContext(ctx, rewritePlaceholders(query))
	if err != nil {
		return nil, err
	}
	return pgStmt{st, c}, nil
}

// ExecContext queues a statement marked so (Tx.execLater) and sends any
// other statement with the queue before it, in one round trip.
func (c *pgConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	if ctx.Value(laterKey{}) != nil || len(c.pending) > 0 {
		if c.Conn.Conn().IsClosed() {
			return nil, driver.ErrBadConn
		}
		q := queued{sql: rewritePlaceholders(query), args: make([]any, len(args))}
		for i, a := range pgArgs(args) {
			q.args[i] = a.Value
		}
		if ctx.Value(laterKey{}) != nil {
			c.pending = append(c.pending, q)
			return deferredResult{}, nil
		}
		tag, err := c.send(ctx, q)
		return driver.RowsAffected(tag.RowsAffected()), err
	}
	return c.Conn.ExecContext(ctx, rewritePlaceholders(query), pgArgs(args))
}

func (c *pgConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	if err := c.flush(ctx); err != nil {
		return nil, err
	}
	return c.Conn.QueryContext(ctx, rewritePlaceholders(query), pgArgs(args))
}

// pgStmt is a prepared statement with the same argument conversion, run
// after its connection's queue.
type pgStmt struct {
	driver.Stmt
	c *pgConn
}

func (s pgStmt) ExecContext(ctx context.Context, args []driver.NamedValue) (driver.Result, error) {
	if err := s.c.flush(ctx); err != nil {
		return nil, err
	}
	return s.Stmt.(driver.StmtExecContext).ExecContext(ctx, pgArgs(args))
}

func (s pgStmt) QueryContext(ctx context.Context, args []driver.NamedValue) (driver.Rows, error) {
	if err := s.c.flush(ctx); err != nil {
		return nil, err
	}
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

// PostgreSQL plans each part of a UNION ALL on its own; a part cut by
// its own ORDER BY ... LIMIT reads no further than the page.
func (postgresDialect) mergesLazily() bool { return false }

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
