// Package storage owns docsapi's database: connection pools, embedded
// migrations, and one method per business read or write. Every write is
// atomic: one transaction, or its own savepoint in the transaction that
// commits it with the writes queued beside it (group commit, groupcommit.go);
// every list is keyset-paginated.
//
// The SQL is portable: what differs between SQLite and PostgreSQL (pools,
// placeholders, the write lock, migrations, search, backup, errors) is the
// dialect (dialect.go), and nothing else asks which engine it runs on.
package storage

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/singleflight"
)

//go:embed migrations/*.sql migrations/postgres/*.sql
var migrationFiles embed.FS

// DB is the database: a pool for writes (one connection: one writer at a
// time) and a pool of readers, on SQLite or PostgreSQL (its dialect).
type DB struct {
	write   *sql.DB
	read    *sql.DB
	now     func() time.Time
	dialect dialect
	// process names this handle in leases (leases.go): one per Open.
	process  string
	jobLease time.Duration

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
	readTxs       atomic.Int64                                // read transactions PrimeAccess opened (tests)
	orgs          versioned[orgFor]                           // OrganizationFor by organization and user, valid while the change counter stands still
	spaces        versioned[Space]                            // spaces by id (SpaceAccess), likewise
	revPages      versioned[[]ContentPage]                    // page trees of revisions (RevisionPages), valid while the change counter stands still
	searches      versioned[searchAnswer]                     // search answers by scope, query and page (search.go), likewise
	searchRows    indexCache                                  // rows of the search index by chunk stamp (search_cache.go)
	pages         versioned[any]                              // pages of the lists marked Cache (page.go), likewise
	kept          versioned[any]                              // reads kept between writes (between_writes.go), likewise
	listRanges    atomic.Int32                                // how lists with a merged form are read (merged.go)
	memberSide    atomic.Int32                                // which view a member's spaces through an installation token read first (SetMemberSideFirst)
	linkGroups    linkGroupCache                              // resolved link targets of a revision's scope (links.go)
	targetRemoved atomic.Pointer[TargetRemovedEvent]
	spaceLeaves   atomic.Pointer[SpaceLeavesSite]
	auditIDs      auditIDs               // ids of audit entries, increasing (audit.go)
	webhookWake   atomic.Pointer[func()] // see OnWebhooksQueued
	countersRead  countersReader         // the dialect's counterReader (nil: the reader pool)
	sharedReads   *sharedCounterReads    // counters reads over the network, shared (nil with a counterReader)
	webhookSubs   webhookSubs            // subscribed events by organization (webhooks.go)
	writes        writeQueues            // write transactions waiting for a writer, by scope (groupcommit.go)
	noGroupCommit bool                   // Options.NoGroupCommit
	importBatch   int                    // Options.ImportBatchPages (<= 0: one transaction)
	// afterImportBatch, set by tests, runs after each batch of a batched
	// write (its error fails the write).
	afterImportBatch func(batch int) error
	// importWrite, set by benchmarks, learns how long each write of a
	// batched write took (publish: the publishing one).
	importWrite    func(publish bool, took time.Duration)
	batchObserver  atomic.Pointer[func(members int)]
	linkScopeLoads singleflight.Group // one read of a revision's missing link targets at a time (BacklinksOfPages)
	spaceGrantsMax atomic.Int64       // space grants a cached access holds at most (Options.AccessSpaceGrants, access_grants.go)
	// webhookLimits are the per-organization webhook caps (SetWebhookLimits).
	webhookLimits atomic.Pointer[WebhookLimits]
	live          liveFeed // live updates (live.go)
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
	Readers int              // reader pool size; default max(4, 2*GOMAXPROCS) (PostgreSQL: max(16, 2*GOMAXPROCS))
	// JobLease is how long a claim on background work holds without
	// renewal (leases.go); default JobLease.
	JobLease time.Duration
	// NoGroupCommit runs every write transaction on its own, one COMMIT
	// (one fsync on SQLite) each, instead of committing the writes that
	// queued meanwhile together (groupcommit.go). For measuring.
	NoGroupCommit bool
	// Statements, when set, counts the SQL statements the pools run
	// (statements.go): for tests that measure batching.
	Statements *atomic.Int64
	// ImportBatchPages is the number of pages an import or a translation
	// stores per transaction (import_batch.go): 0 takes
	// DefaultImportBatchPages, a negative number writes them in one.
	ImportBatchPages int
	// AccessSpaceGrants is the number of grants on spaces a member's cached
	// access holds at most (access_grants.go): 0 takes
	// DefaultAccessSpaceGrants, a negative number holds none (every role
	// on a space looks its grants up; tests).
	AccessSpaceGrants int
}

// Open opens the database target names, a SQLite file path (its folder is
// created if needed) or a postgres:// URL, and applies the migrations not
// yet applied. Any other URL is refused (see dialectFor).
func Open(target string, opt Options) (*DB, error) {
	d, err := dialectFor(target)
	if err != nil {
		return nil, err
	}
	w, r, err := d.open(target, opt)
	if err != nil {
		return nil, err
	}
	db := &DB{write: w, read: r, now: opt.Clock, dialect: d, process: NewID(), rstmts: map[string]*sql.Stmt{}, wstmts: map[string]*sql.Stmt{}, counts: countCache{m: map[string]countEntry{}},
		trees: treeCache{versioned[CollectionTree]{max: 1000}}, access: versioned[AccessData]{max: 10_000, maxBytes: accessBytesMax},
		orgs: versioned[orgFor]{max: 10_000}, spaces: versioned[Space]{max: 10_000}, revPages: versioned[[]ContentPage]{max: maxCachedTrees},
		searches: versioned[searchAnswer]{max: 128}, pages: versioned[any]{max: maxCachedPages}, kept: versioned[any]{max: maxKeptReads}}
	if db.now == nil {
		db.now = time.Now
	}
	db.noGroupCommit = opt.NoGroupCommit
	db.SetAccessSpaceGrants(opt.AccessSpaceGrants)
	if db.importBatch = opt.ImportBatchPages; db.importBatch == 0 {
		db.importBatch = DefaultImportBatchPages
	}
	if db.jobLease = opt.JobLease; db.jobLease <= 0 {
		db.jobLease = JobLease
	}
	if err := db.migrate(context.Background()); err != nil {
		db.Close()
		return nil, err
	}
	db.countersRead = d.counterReader(target)
	if db.countersRead == nil {
		db.sharedReads = &sharedCounterReads{db: db}
	}
	db.live.target = target
	if err := db.backfillSearchIndex(context.Background()); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

// Close finishes the prepared statements and both pools; SQLite's WAL is
// checkpointed when the last connection closes.
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
	if db.countersRead != nil {
		db.countersRead.close()
	}
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

// migrate applies, in name order and in one write transaction, the
// dialect's migrations not yet recorded in schema_migrations. Both dialects
// have the same file names, so the recorded versions match. On PostgreSQL
// the transaction holds the write lock from its start: replicas starting
// together migrate one after the other, and the later ones find nothing to do.
func (db *DB) migrate(ctx context.Context) error {
	begin, _ := db.dialect.writeContext(ctx, false, "")
	tx, err := db.write.BeginTx(begin, nil)
	if err != nil {
		return fmt.Errorf("migrations: %w", err)
	}
	defer tx.Rollback()
	for _, q := range db.dialect.bootstrap() {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("migrations table: %w", err)
		}
	}
	// The change counter: one row, bumped by every write transaction (see
	// Write), read by lists to know whether a cached total is still exact.
	if _, err := tx.ExecContext(ctx, `INSERT INTO change_counter (id, n) SELECT 1, 0 WHERE NOT EXISTS (SELECT 1 FROM change_counter)`); err != nil {
		return fmt.Errorf("change counter: %w", err)
	}
	names, err := fs.Glob(migrationFiles, db.dialect.migrations()+"/*.sql")
	if err != nil {
		return err
	}
	sort.Strings(names)
	for _, file := range names {
		// Recorded as migrations/NAME on both (SQLite's first record).
		name := "migrations/" + file[strings.LastIndexByte(file, '/')+1:]
		var done int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM schema_migrations WHERE name = ?`, name).Scan(&done); err != nil {
			return err
		}
		if done > 0 {
			continue
		}
		body, err := migrationFiles.ReadFile(file)
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
	if !db.dialect.prepares() {
		return nil, nil
	}
	cache, pool := db.rstmts, db.read
	db.mu.RLock()
	s := cache[query]
	db.mu.RUnlock()
	if s != nil {
		return s, nil
	}
	// Prepared without holding mu: preparing waits for a pool connection,
	// and the read transactions holding them may need mu (cachedStmt) before
	// they give theirs back (under mu, a burst of new queries deadlocked
	// the pool). Two callers may prepare the same query; one keeps its own.
	s, err := pool.PrepareContext(ctx, query)
	if err != nil {
		return nil, fmt.Errorf("prepare %q: %w", firstLine(query), err)
	}
	db.mu.Lock()
	defer db.mu.Unlock()
	if prev := cache[query]; prev != nil {
		s.Close()
		return prev, nil
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
	if !db.dialect.prepares() {
		return
	}
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

// (On PostgreSQL there are none: the reader pool's driver prepares.)
func (r reader) QueryContext(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	s, err := r.db.stmt(ctx, q)
	if err != nil {
		return nil, err
	}
	if s == nil {
		return r.db.read.QueryContext(ctx, q, args...)
	}
	return s.QueryContext(ctx, args...)
}

func (r reader) QueryRowContext(ctx context.Context, q string, args ...any) *sql.Row {
	s, err := r.db.stmt(ctx, q)
	if err != nil || s == nil {
		return r.db.read.QueryRowContext(ctx, q, args...) // surfaces a prepare error on Scan
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
	// steady is ctx without its end, for the statements (see QueryContext).
	steady context.Context
	Now    time.Time
	// unprepared is the SQL this transaction ran without a prepared
	// statement; Write prepares it once the writer is free again.
	unprepared []string
	// createdID is the id of what this transaction created, for the
	// recorded changes that leave TargetID empty (changes.go).
	createdID string
	noChange  bool // see unchanged
	// auditID is the audit entry auditSink wrote for the change being
	// recorded, for the sinks after it (liveSink).
	auditID string
	// webhooks is the webhook counter this transaction's change-counter
	// bump returned (webhookSubs); known false when the engine bumps at
	// the commit (PostgreSQL) or the write does not bump.
	webhooks      int64
	webhooksKnown bool
	// hooks is the batch's reading of the webhook counter at BEGIN
	// (PostgreSQL), shared by its members: a member that changes
	// subscriptions voids it for the members after it.
	hooks *webhookCounter
	// committed runs once the transaction has committed (wake-ups of
	// background workers whose queue it wrote to).
	committed []func()
	// scope is the organization the transaction is confined to, "" when
	// it holds the whole write lock (scope.go).
	scope string
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
//
// The statements run with t.steady, not the caller's context: a statement
// under a context that can end costs the SQLite driver a watcher goroutine
// and a progress handler (to interrupt it), several per write on the single
// writer. The transaction as a whole still ends with the request's context
// (database/sql rolls it back, and its BEGIN and COMMIT use it): a
// statement already running finishes first.
func (t *Tx) QueryContext(_ context.Context, q string, args ...any) (*sql.Rows, error) {
	return t.tx.QueryContext(t.steady, q, args...)
}

func (t *Tx) QueryRowContext(_ context.Context, q string, args ...any) *sql.Row {
	if s := t.stmt(q); s != nil {
		return s.QueryRowContext(t.steady, args...)
	}
	return t.tx.QueryRowContext(t.steady, q, args...)
}

func (t *Tx) ExecContext(_ context.Context, q string, args ...any) (sql.Result, error) {
	if s := t.stmt(q); s != nil {
		return s.ExecContext(t.steady, args...)
	}
	return t.tx.ExecContext(t.steady, q, args...)
}

// stmt is q's prepared statement bound to this transaction, or nil (then
// q is noted for preparing after the transaction).
func (t *Tx) stmt(q string) *sql.Stmt {
	t.db.mu.RLock()
	s, known := t.db.wstmts[q]
	t.db.mu.RUnlock()
	if s != nil {
		return t.tx.StmtContext(t.steady, s)
	}
	if !known && len(t.unprepared) < 64 && t.db.dialect.prepares() {
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
	if !db.dialect.prepares() {
		return
	}
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

// execLater is exec for a statement whose result the write does not read
// (no rows-affected check, no error it handles itself: an INSERT of a new
// row, an audit entry). Where the dialect pipelines, it is sent with the
// transaction's next statement or with its COMMIT, in one round trip
// (dialect_postgres.go); its error is then that statement's or the
// COMMIT's, and the write fails all the same.
func (t *Tx) execLater(q string, args ...any) error {
	if !t.db.dialect.pipelines() {
		_, err := t.exec(q, args...)
		return err
	}
	_, err := t.tx.ExecContext(context.WithValue(t.steady, laterKey{}, true), q, args...)
	return err
}

// Write runs fn in one write transaction (with group commit, in its own
// savepoint of a transaction shared with the writes queued beside it); an
// error from fn rolls all fn wrote back, and Write returns once what fn
// wrote is durable.
// Every committed write also bumps the change counter, in the same
// transaction, so that cached list totals (countCache) are never stale, even
// for writes made by another process on the same file (docsapi admin).
func (db *DB) Write(ctx context.Context, fn func(tx *Tx) error) error {
	return db.writeTx(ctx, true, fn)
}

// writeTx is Write; bump false leaves the change counter alone, for writes
// that no cache depends on (last use of tokens), so they do not empty the
// read caches of every other request.
//
// With group commit (the default, groupcommit.go) the write joins the
// writes queued behind the one in flight: they run together in one
// transaction, each in its own savepoint, made durable by one COMMIT.
// Either way writeTx returns only once the COMMIT that makes its write
// durable has returned.
func (db *DB) writeTx(ctx context.Context, bump bool, fn func(tx *Tx) error) error {
	return db.writeScoped(ctx, "", bump, fn)
}

// writeScoped is writeTx confined to the organization scope ("" for
// none): see scope.go.
func (db *DB) writeScoped(ctx context.Context, scope string, bump bool, fn func(tx *Tx) error) error {
	if ctx.Value(inPrecondition{}) != nil {
		return ErrWriteInPrecondition
	}
	if !db.dialect.scopes() {
		scope = ""
	}
	m := &member{ctx: ctx, scope: scope, bump: bump, fn: fn, queued: time.Now()}
	// The request's precondition and commit hook (txhooks.go) and the
	// changes it records (changes.go), when it has any not yet run;
	// bookkeeping writes (bump false) leave them alone.
	if bump {
		if m.pre = pending[func(context.Context) error](ctx, preconditionKey{}); m.pre != nil {
			defer m.pre.mu.Unlock()
		}
		if m.hook = pending[func(*Tx) error](ctx, commitHookKey{}); m.hook != nil {
			defer m.hook.mu.Unlock()
			// A commit hook may write outside the organization (the
			// idempotency keys are the caller's): the whole write lock.
			m.scope = ""
		}
		if m.rec = pending[func() []Change](ctx, recordingKey{}); m.rec != nil {
			defer m.rec.mu.Unlock()
		}
	}
	if commuting(m.scope) && m.pre != nil {
		// A precondition reads what the write depends on: the
		// organization's order (scope.go).
		m.scope = strings.TrimPrefix(m.scope, commutingScope)
	}
	if db.noGroupCommit || (commuting(m.scope) && !db.dialect.pipelines()) {
		// One transaction per write: the writer pool's single connection is
		// the queue (beginWrite waits for it under ctx). The commuting
		// writes (scope.go) of an organization queue apart from its ordered
		// ones (a scope of their own, their lock shared): those queued while
		// one is in flight run as one batch in one round trip (runCommuting).
		m.state.Store(memberTaken)
		db.runBatch([]*member{m})
	} else {
		db.writes.enqueue(db, m)
	}
	return m.finish(db)
}

// bumpReturningWebhooks is the change-counter bump of a write transaction
// (SQLite: PostgreSQL folds its own into the COMMIT), returning the webhook
// counter at no extra statement.
const bumpReturningWebhooks = `UPDATE change_counter SET n = n + 1 WHERE id = 1 RETURNING webhooks`

// beginWrite begins a write transaction. Waiting for the single writer
// ends with ctx (a request whose client left does not queue on). When the
// engine's BEGIN does not itself wait for a lock (SQLite: the writer
// connection is the lock), the transaction then runs under ctx without its
// end: database/sql and the driver would otherwise watch the context with
// a goroutine each for the transaction, its BEGIN and its COMMIT, all on
// the single writer, and a write that has begun finishes (or fails) on its
// own in a few milliseconds. release returns the connection (after the
// commit or rollback, before anything else uses the writer); given the
// COMMIT's error, it first ends a transaction SQLite kept open (a COMMIT
// refused by a deferred constraint or a busy lock leaves it open, and the
// next BEGIN on the connection would fail).
func (db *DB) beginWrite(ctx context.Context) (*sql.Tx, func(commitErr error), error) {
	if db.dialect.locksInBegin() {
		tx, err := db.write.BeginTx(ctx, nil)
		return tx, func(error) {}, err
	}
	conn, err := db.write.Conn(ctx)
	if err != nil {
		return nil, nil, err
	}
	tx, err := conn.BeginTx(context.WithoutCancel(ctx), nil)
	if err != nil {
		conn.Close()
		return nil, nil, err
	}
	return tx, func(commitErr error) {
		if commitErr != nil {
			conn.ExecContext(context.Background(), `ROLLBACK`) // its error: no transaction was left open
		}
		conn.Close()
	}, nil
}

// commitAndRelease commits tx and releases its connection (beginWrite).
func commitAndRelease(tx *sql.Tx, release func(error)) error {
	err := tx.Commit()
	release(err)
	return err
}

// WriteObserver is told about every write transaction: how long it waited
// for the single writer connection, how long it then held it (up to and
// including the durable commit), how much of that hold the COMMIT took (on
// SQLite the WAL frames' writes and the fsync; the rest is BEGIN and the
// statements), and its error (nil when committed). With group commit each
// write is told about its batch: its wait until the batch began, the
// batch's hold and the batch's COMMIT.
type WriteObserver func(wait, hold, commit time.Duration, err error)

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
	sqlTx, err := db.read.BeginTx(ctx, db.dialect.readOptions())
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

// Engine is the database engine of the transaction (see DB.Engine).
func (t *Tx) Engine() string { return t.db.Engine() }
