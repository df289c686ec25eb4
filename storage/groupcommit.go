package storage

// Group commit. A durable write's cost is mostly its COMMIT's fsync (about
// 200 µs on a quiet disk, far more on a busy one: README "Performance"),
// paid on the single writer. The writes that queue for the writer while a
// transaction is in flight are therefore run together in one transaction
// and made durable by one COMMIT, as databases do with concurrent commits'
// log flushes:
//
//   - Leader and followers: a write enqueues itself (a member); when the
//     writer is free it runs at once (a batch of one, exactly the
//     transaction it had before), else it waits. Whoever holds the writer
//     takes the queued members in order (at most maxBatch), runs them,
//     commits, hands the writer to the next queued member and wakes each of
//     its batch with its own result. There is no deliberate delay: a batch is
//     what queued while the previous one ran.
//   - Each member of a batch of several runs in its own savepoint: its
//     precondition, its statements, its commit hook, its change-counter bump
//     and its recorded changes; an error (or a panic, re-raised on the
//     member's own goroutine) rolls back to the savepoint, so its writes go
//     and its batch-mates' stay. A member whose request ended before its
//     turn is skipped. If the engine ended the transaction (a savepoint that
//     cannot be rolled back to or released) or the COMMIT fails, every
//     member gets an error and nothing of the batch is committed.
//   - Nothing is answered before the COMMIT that makes it durable has
//     returned: a member's afterCommit work, its request steps' done marks
//     and its counters snapshot's end run on its own goroutine once woken.
//   - A precondition (WithPrecondition) reads through the reader pool, which
//     sees committed writes only, not the batch's own: a member with one
//     only ever runs first in its batch, after the previous batch committed.
//
// Options.NoGroupCommit turns it off (one transaction and one COMMIT per
// write, for measuring).

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

// maxBatch bounds the members of one batch, so that a long queue still
// commits (and answers) every so often.
const maxBatch = 64

// A member's state: waiting in the queue, taken by the writer (to run in a
// batch or to lead the next one), or abandoned by its request.
const (
	memberWaiting int32 = iota
	memberTaken
	memberAbandoned
)

// savepoint is the name of each member's savepoint (one at a time).
const (
	savepoint         = `SAVEPOINT write_member`
	savepointRollback = `ROLLBACK TO SAVEPOINT write_member`
	savepointRelease  = `RELEASE SAVEPOINT write_member`
)

// member is one write transaction's request to the writer.
type member struct {
	ctx    context.Context
	scope  string      // the organization it is confined to ("" for none: scope.go)
	queue  *writeQueue // the queue of its scope
	bump   bool
	fn     func(*Tx) error
	pre    *txStep[func(context.Context) error]
	hook   *txStep[func(*Tx) error]
	rec    *txStep[func() []Change]
	queued time.Time

	state atomic.Int32
	wake  chan bool // one message: true to lead the next batch, false when done

	// Set by the writer before the member is woken.
	t         *Tx
	err       error
	committed bool
	panicked  bool
	panicVal  any
	began     time.Time     // its transaction's BEGIN returned (zero: never began)
	held      time.Duration // from then to the end of the COMMIT or rollback
	commit    time.Duration // the COMMIT's share of held
}

// writeQueues holds one queue per write scope (scope.go): the writes of
// one organization (or the unscoped ones, scope "") form batches among
// themselves, and each scope's leader runs on a writer connection of its
// own, so that batches of different organizations run and commit side by
// side on PostgreSQL. SQLite has one scope, "": one writer. A queue exists
// while its writer is held, so the map holds the scopes writing now.
type writeQueues struct {
	mu sync.Mutex
	m  map[string]*writeQueue
}

// writeQueue is the members of one scope waiting for its writer.
type writeQueue struct {
	owner *writeQueues
	scope string
	mu    sync.Mutex
	lead  int // leaders holding a writer: at most leaders(scope)
	q     []*member
}

// commutingLeaders is how many batches of an organization's commuting
// writes may be in flight at once (each on its own writer connection):
// while some wait for their COMMIT's WAL flush, the next one runs its
// members' statements. With two, batches were larger (16 clients on one
// organization, a loaded machine: 4.5 members against 2.6 with four) but
// the organization's creates were bound by two COMMITs' latency at a time
// and fell to half of what separate transactions made when the disk was
// slow; four kept most of the CPU saved per create (bench/pg.sh). Ordered
// and unscoped writes have one leader: their batches are their order.
var commutingLeaders = 4

func leaders(scope string) int {
	if commuting(scope) {
		return commutingLeaders
	}
	return 1
}

// lock returns scope's queue, made when missing, with its mutex held. The
// order is always the map's mutex, then a queue's (see handOff).
func (ws *writeQueues) lock(scope string) *writeQueue {
	ws.mu.Lock()
	w := ws.m[scope]
	if w == nil {
		if ws.m == nil {
			ws.m = map[string]*writeQueue{}
		}
		w = &writeQueue{owner: ws, scope: scope}
		ws.m[scope] = w
	}
	w.mu.Lock()
	ws.mu.Unlock()
	return w
}

// enqueue runs m in its scope's queue.
func (ws *writeQueues) enqueue(db *DB, m *member) {
	ws.lock(m.scope).enqueue(db, m)
}

// queued is how many members wait, in every scope (tests).
func (ws *writeQueues) queued() int {
	ws.mu.Lock()
	qs := make([]*writeQueue, 0, len(ws.m))
	for _, w := range ws.m {
		qs = append(qs, w)
	}
	ws.mu.Unlock()
	n := 0
	for _, w := range qs {
		n += w.queued()
	}
	return n
}

// enqueue runs m (w's mutex held by the caller, released here): at once
// when the writer is free, else once a leader ran it in a batch (or handed
// it the writer). A request that ends while it waits leaves the queue with
// its context's error.
func (w *writeQueue) enqueue(db *DB, m *member) {
	m.queue = w
	if w.lead < leaders(w.scope) {
		w.lead++
		w.mu.Unlock()
		m.state.Store(memberTaken)
		db.lead(m)
		return
	}
	m.wake = make(chan bool, 1)
	w.q = append(w.q, m)
	w.mu.Unlock()
	var lead bool
	select {
	case lead = <-m.wake:
	case <-m.ctx.Done():
		if m.state.CompareAndSwap(memberWaiting, memberAbandoned) {
			m.err = m.ctx.Err()
			return
		}
		lead = <-m.wake // taken meanwhile: its answer follows
	}
	if lead {
		db.lead(m)
	}
}

// take removes from the queue the members that join first's batch, in
// order. A member with a precondition is left to lead a batch of its own.
func (w *writeQueue) take(first *member) []*member {
	batch := []*member{first}
	w.mu.Lock()
	defer w.mu.Unlock()
	i := 0
	for ; i < len(w.q) && len(batch) < maxBatch; i++ {
		m := w.q[i]
		if m.pre != nil {
			break
		}
		if m.state.CompareAndSwap(memberWaiting, memberTaken) {
			batch = append(batch, m)
		}
	}
	n := copy(w.q, w.q[i:])
	clear(w.q[n:])
	w.q = w.q[:n]
	return batch
}

// handOff takes the next waiting member to lead, or frees the writer and
// forgets the queue (a later write of its scope makes a new one).
func (w *writeQueue) handOff() *member {
	w.owner.mu.Lock()
	defer w.owner.mu.Unlock()
	w.mu.Lock()
	defer w.mu.Unlock()
	for len(w.q) > 0 {
		m := w.q[0]
		w.q[0] = nil
		w.q = w.q[1:]
		if m.state.CompareAndSwap(memberWaiting, memberTaken) {
			return m
		}
	}
	if w.lead--; w.lead > 0 {
		return nil
	}
	if w.owner.m[w.scope] == w {
		delete(w.owner.m, w.scope)
	}
	return nil
}

// queued is how many members wait (tests).
func (w *writeQueue) queued() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := 0
	for _, m := range w.q {
		if m.state.Load() == memberWaiting {
			n++
		}
	}
	return n
}

// lead runs first's batch while holding the writer, then hands the writer
// on before waking the batch (the next batch's BEGIN need not wait for them).
func (db *DB) lead(first *member) {
	w := first.queue
	batch := w.take(first)
	db.runBatch(batch)
	if next := w.handOff(); next != nil {
		next.wake <- true
	}
	for _, m := range batch[1:] {
		m.wake <- false
	}
}

// runBatch runs batch in one write transaction and commits it. A batch of
// one runs without a savepoint and begins under its request's context,
// as every write did before group commit; a larger one begins under
// beginContext (it waits while one of its members still waits) and,
// once begun, no longer depends on any member's context.
func (db *DB) runBatch(batch []*member) {
	if obs := db.batchObserver.Load(); obs != nil {
		(*obs)(len(batch))
	}
	solo := len(batch) == 1
	if !solo && commuting(batch[0].scope) {
		db.runCommuting(batch)
		return
	}
	bump := false
	for _, m := range batch {
		bump = bump || m.bump
	}
	ctx := batch[0].ctx
	begun := func() {}
	if !solo {
		var cancel context.CancelFunc
		ctx, cancel, begun = beginContext(batch)
		defer cancel() // the transaction has ended by then
	}
	begin, bumped := db.dialect.writeContext(ctx, bump, batch[0].scope)
	if solo && commuting(batch[0].scope) && batch[0].pre == nil && db.dialect.pipelines() {
		// A commuting write (scope.go) reads nothing to decide: its BEGIN
		// and locks can go out with its first statement, under its
		// request's context as the BEGIN would have. Any other write holds
		// its locks from BEGIN on, before fn runs (fn may read through the
		// readers, a precondition does).
		begin = lazyBegin(begin)
	}
	b, began := db.beginBatch(begin, batch, begun)
	if !began {
		return
	}
	sqlTx, release := b.tx, b.release
	ok := 0        // members whose write stands
	var lost error // the engine ended the transaction
	for _, m := range batch {
		if !b.enter(db, m) {
			continue
		}
		if solo {
			if m.err = m.run(bumped); m.err == nil {
				ok++
			}
			break
		}
		// The savepoint waits for the member's first statement where the
		// dialect pipelines (Tx.execLater), and what the member queued goes
		// out with its release: two round trips fewer a member. An error of
		// a queued statement is the member's own (queuedError); one of the
		// release itself means the transaction ended under the batch.
		if err := m.t.execLater(savepoint); err != nil {
			lost = err
			break
		}
		m.err = m.run(bumped)
		released := false
		if m.err == nil {
			_, err := m.t.exec(savepointRelease)
			var qe *queuedError
			switch {
			case err == nil:
				released = true
			case errors.As(err, &qe):
				m.err = qe.err
			default:
				lost = err
			}
			if lost != nil {
				break
			}
		}
		if !released {
			if _, err := m.t.exec(savepointRollback); err != nil {
				lost = err
				break
			}
			if _, err := m.t.exec(savepointRelease); err != nil {
				lost = err
				break
			}
		}
		if m.err == nil {
			ok++
		}
	}
	var commit time.Duration
	switch {
	case lost != nil:
		release(sqlTx.Rollback())
		for _, m := range batch {
			if m.err == nil {
				m.err = fmt.Errorf("storage: the write's transaction ended before its commit (a batch-mate's statement or the engine ended it): %w", lost)
			}
		}
	case ok == 0:
		release(sqlTx.Rollback())
	default:
		committing := time.Now()
		err := commitAndRelease(sqlTx, release)
		commit = time.Since(committing)
		for _, m := range batch {
			if m.err == nil && m.t != nil {
				m.err = err
				m.committed = err == nil
			}
		}
	}
	held := time.Since(b.began)
	for _, m := range batch {
		m.held = held
		if m.committed {
			m.commit = commit
		}
	}
}

// runCommuting runs a batch of several commuting writes (scope.go) of one
// organization in one transaction without savepoints: nothing a commuting
// write does depends on another's, so all of theirs (the lazy BEGIN, both
// locks shared, each member's rows and audit entry, the COMMIT) goes out in
// one round trip (the dialect's pipeline), where each alone paid its own
// BEGIN, locks and COMMIT, and PostgreSQL its own transaction id, MultiXact
// of the organization row's key-share lockers and WAL flush. A savepoint a
// member would cost two statements more on the server (and a subtransaction
// id); instead, should anything of the batch fail (a member's error, a
// statement the engine refused, the COMMIT), the transaction is rolled back
// whole and each member that did not panic runs again alone, in a
// transaction of its own, as it would have without the batch: its answer is
// its own, never a batch-mate's. A failure that leaves it unknown whether
// the COMMIT took effect (the connection lost after it was sent) is every
// member's answer, as it is a lone write's. Its BEGIN waits under
// beginContext, kept armed to the end: the batch gives up only once every
// member's request has ended.
func (db *DB) runCommuting(batch []*member) {
	ctx, cancel, begun := beginContext(batch)
	defer cancel()
	defer begun()
	begin, bumped := db.dialect.writeContext(ctx, false, batch[0].scope)
	b, began := db.beginBatch(lazyBegin(begin), batch, func() {})
	if !began {
		return
	}
	sqlTx, release := b.tx, b.release
	failed, ran := false, 0
	for _, m := range batch {
		if !b.enter(db, m) {
			continue
		}
		ran++
		if m.err = m.run(bumped); m.err != nil {
			failed = true
			break
		}
	}
	var commit time.Duration
	switch {
	case failed:
		release(sqlTx.Rollback())
	case ran == 0:
		release(sqlTx.Rollback())
		return
	default:
		committing := time.Now()
		err := commitAndRelease(sqlTx, release)
		commit = time.Since(committing)
		if err != nil && !db.dialect.refused(err) {
			failed = false // it may have committed: the lone write's answer
			for _, m := range batch {
				if m.t != nil {
					m.err = err
				}
			}
		} else if err != nil {
			failed = true
		}
	}
	held := time.Since(b.began)
	if !failed {
		for _, m := range batch {
			m.held = held
			if m.t != nil && m.err == nil {
				m.committed, m.commit = true, commit
			}
		}
		return
	}
	for _, m := range batch {
		if m.panicked || (m.t == nil && m.err != nil) {
			m.held = held
			continue // a panic is raised once; an ended request is skipped
		}
		m.t, m.err = nil, nil
		db.runBatch([]*member{m})
	}
}

// batchTx is the transaction a batch of writes runs in.
type batchTx struct {
	tx      *sql.Tx
	release func(commitErr error)
	hooks   *webhookCounter
	began   time.Time
}

// beginBatch begins batch's transaction under begin and calls begun once
// the BEGIN has returned. PostgreSQL reads the webhook counter in the
// BEGIN's round trip (the webhook sink's summary, webhookSubs;
// dialect_postgres.go). If it cannot begin, every member gets the error.
func (db *DB) beginBatch(begin context.Context, batch []*member, begun func()) (b batchTx, began bool) {
	b.hooks = &webhookCounter{}
	tx, release, err := db.beginWrite(context.WithValue(begin, webhookCounterKey{}, b.hooks))
	begun()
	b.tx, b.release, b.began = tx, release, time.Now()
	if err != nil {
		for _, m := range batch {
			m.err, m.began = err, b.began
		}
		return b, false
	}
	return b, true
}

// enter gives m its Tx in the batch's transaction, unless its request
// ended before its turn (then that is its error, and enter is false).
func (b batchTx) enter(db *DB, m *member) bool {
	m.began = b.began
	if err := m.ctx.Err(); err != nil {
		m.err = err
		return false
	}
	m.t = &Tx{tx: b.tx, db: db, ctx: m.ctx, steady: context.WithoutCancel(m.ctx), Now: db.Now(), scope: m.scope,
		webhooks: b.hooks.n, webhooksKnown: b.hooks.known, hooks: b.hooks}
	return true
}

// beginContext is the context a batch of several begins under: it ends
// when the last of its members' requests has ended, so a BEGIN that waits
// (on PostgreSQL for the advisory write lock another replica holds) gives
// up once nobody waits for its answer, and waits as long as one request
// does. begun disarms that: the transaction keeps the context to its end
// (database/sql rolls a transaction back when its context ends), and from
// BEGIN on a member whose request ends is only skipped, never the batch.
func beginContext(batch []*member) (ctx context.Context, cancel context.CancelFunc, begun func()) {
	return whileAnyWaits(len(batch), func(i int) context.Context { return batch[i].ctx })
}

// whileAnyWaits is a context that ends once each of n contexts (ctxOf(0)
// to ctxOf(n-1)) has ended, carrying the first one's values: the context
// of work several requests wait for (a batch's BEGIN, a shared counters
// read). disarm stops it following them (cancel still ends it).
func whileAnyWaits(n int, ctxOf func(int) context.Context) (ctx context.Context, cancel context.CancelFunc, disarm func()) {
	ctx, cancel = context.WithCancel(context.WithoutCancel(ctxOf(0)))
	var waiting atomic.Int32
	waiting.Store(int32(n))
	stops := make([]func() bool, n)
	for i := range n {
		stops[i] = context.AfterFunc(ctxOf(i), func() {
			if waiting.Add(-1) == 0 {
				cancel()
			}
		})
	}
	return ctx, cancel, func() {
		for _, stop := range stops {
			stop()
		}
	}
}

// run is the member's part of the transaction: its precondition, its
// statements, its commit hook, the change-counter bump and the changes it
// records. A panic is recovered here (the writer goes on) and re-raised
// by finish on the member's own goroutine.
func (m *member) run(bumped bool) (err error) {
	defer func() {
		if p := recover(); p != nil {
			m.panicked, m.panicVal = true, p
			err = fmt.Errorf("storage: write panicked: %v", p)
		}
	}()
	t := m.t
	if m.pre != nil {
		// The write lock is held (SQLite: BEGIN IMMEDIATE; PostgreSQL: the
		// advisory lock its BEGIN took) and the member is first in its
		// batch: no write commits until this transaction ends, and none is
		// pending in it. The check reads the counters afresh, not the
		// request's snapshot (counters.go), which may be older.
		err = m.pre.fn(context.WithValue(context.WithValue(m.ctx, inPrecondition{}, true), countersKey{}, (*countersSnapshot)(nil)))
	}
	if err == nil {
		err = m.fn(t)
	}
	if err == nil && m.hook != nil {
		err = m.hook.fn(t)
	}
	if err == nil && m.bump && !bumped {
		// Before the changes are recorded: the bump also returns the
		// webhook counter, which tells the webhook sink whether its
		// summary of the subscriptions still holds (webhookSubs). Under
		// the write lock its place in the transaction changes nothing else.
		err = t.QueryRowContext(m.ctx, bumpReturningWebhooks).Scan(&t.webhooks)
		t.webhooksKnown = err == nil
		if errors.Is(err, sql.ErrNoRows) {
			err = nil // no counter row (a copy-db target mid-copy): nothing to bump, the sink's statement decides
		}
	}
	if err == nil {
		err = t.recordChanges(m.ctx, m.rec)
	}
	return err
}

// finish is the member's end on its own goroutine, once its batch has
// committed or rolled back: what waits for the commit, the statements to
// prepare, the observer, and a panic of its fn re-raised.
func (m *member) finish(db *DB) error {
	if m.committed {
		dropCounters(m.ctx)
		if m.rec != nil {
			m.rec.done = true
		}
		if m.pre != nil {
			m.pre.done = true
		}
		if m.hook != nil {
			m.hook.done = true
		}
		for _, f := range m.t.committed {
			f()
		}
	}
	if m.t != nil && len(m.t.unprepared) > 0 {
		db.prepareWrites(m.t.unprepared)
	}
	if obs := db.writeObserver.Load(); obs != nil {
		began := m.began
		if began.IsZero() {
			began = time.Now()
		}
		(*obs)(began.Sub(m.queued), m.held, m.commit, m.err)
	}
	if m.panicked {
		panic(m.panicVal)
	}
	return m.err
}

// ObserveBatches installs fn (nil removes it), told the number of members
// of every write transaction (1 without group commit); metrics use it.
func (db *DB) ObserveBatches(fn func(members int)) {
	if fn == nil {
		db.batchObserver.Store(nil)
		return
	}
	db.batchObserver.Store(&fn)
}
