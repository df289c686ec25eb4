package storage

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"
)

// gcDB opens a database with the group-commit test tables: items, and
// children whose parent is checked at the COMMIT (a deferred foreign key).
func gcDB(t *testing.T, opt Options) *DB {
	t.Helper()
	return gcDBAt(t, testTarget(t), opt)
}

func gcDBAt(t *testing.T, target string, opt Options) *DB {
	t.Helper()
	db, err := Open(target, opt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if err := db.Write(context.Background(), func(tx *Tx) error {
		for _, q := range []string{
			`CREATE TABLE gc_items (id TEXT PRIMARY KEY, v BIGINT NOT NULL)`,
			`CREATE TABLE gc_children (id TEXT PRIMARY KEY, parent TEXT REFERENCES gc_items (id) DEFERRABLE INITIALLY DEFERRED)`,
		} {
			if _, err := tx.exec(q); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return db
}

func insertItem(tx *Tx, id string) error {
	_, err := tx.exec(`INSERT INTO gc_items (id, v) VALUES (?, 0)`, id)
	return err
}

// items are the ids stored in gc_items, read through the reader pool (what
// is committed).
func items(t *testing.T, db *DB) []string {
	t.Helper()
	return committedColumn(t, db, `SELECT id FROM gc_items ORDER BY id`)
}

// committedColumn is the one text column q selects, read through the reader
// pool.
func committedColumn(t *testing.T, db *DB, q string) []string {
	t.Helper()
	rows, err := db.read.Query(q)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	return ids
}

// holdWriter starts a write that holds the writer until the returned
// function is called.
func holdWriter(t *testing.T, db *DB) (release func()) {
	t.Helper()
	return holdWrite(t, func(fn func(*Tx) error) error { return db.Write(context.Background(), fn) })
}

// holdWrite starts write with a function that holds its transaction until
// the returned function is called, once it has begun.
func holdWrite(t *testing.T, write func(func(*Tx) error) error) (release func()) {
	t.Helper()
	inside, done := make(chan struct{}), make(chan struct{})
	go write(func(tx *Tx) error {
		close(inside)
		<-done
		return nil
	})
	select {
	case <-inside:
	case <-time.After(10 * time.Second):
		t.Fatal("the holding write never began")
	}
	return sync.OnceFunc(func() { close(done) })
}

// waitQueued waits until n writes wait for the writer.
func waitQueued(t *testing.T, db *DB, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for db.writes.queued() < n {
		if time.Now().After(deadline) {
			t.Fatalf("%d writes queued, want %d", db.writes.queued(), n)
		}
		time.Sleep(time.Millisecond)
	}
}

// queue starts writes one after the other, each queued behind the previous
// one (so that their order in the queue is theirs), and returns their errors
// once all have returned.
func queue(t *testing.T, db *DB, ctxs []context.Context, fns ...func(tx *Tx) error) func() []error {
	t.Helper()
	errs := make([]error, len(fns))
	var wg sync.WaitGroup
	base := db.writes.queued()
	for i, fn := range fns {
		ctx := context.Background()
		if ctxs != nil && ctxs[i] != nil {
			ctx = ctxs[i]
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = db.Write(ctx, fn)
		}()
		waitQueued(t, db, base+i+1)
	}
	return func() []error { wg.Wait(); return errs }
}

func batchSizes(db *DB) func() []int {
	var mu sync.Mutex
	var sizes []int
	db.ObserveBatches(func(n int) { mu.Lock(); sizes = append(sizes, n); mu.Unlock() })
	return func() []int { mu.Lock(); defer mu.Unlock(); return slices.Clone(sizes) }
}

// TestGroupCommitRunsQueuedWritesTogether: writes that queued while the
// writer was busy run in queue order in one transaction (one COMMIT), and
// each is committed when its Write returns.
func TestGroupCommitRunsQueuedWritesTogether(t *testing.T) {
	db := gcDB(t, Options{})
	sizes := batchSizes(db)
	release := holdWriter(t, db)
	var order []string
	var fns []func(*Tx) error
	for i := range 5 {
		id := fmt.Sprint("i", i)
		fns = append(fns, func(tx *Tx) error { order = append(order, id); return insertItem(tx, id) })
	}
	wait := queue(t, db, nil, fns...)
	release()
	for i, err := range wait() {
		if err != nil {
			t.Fatalf("write %d: %v", i, err)
		}
	}
	if want := []string{"i0", "i1", "i2", "i3", "i4"}; !slices.Equal(order, want) || !slices.Equal(items(t, db), want) {
		t.Fatalf("ran %v, stored %v, want %v", order, items(t, db), want)
	}
	if got := sizes(); !slices.Equal(got, []int{1, 5}) {
		t.Fatalf("batch sizes %v, want [1 5] (the holding write alone, then the five queued behind it)", got)
	}
	// One client alone: a batch of one each time.
	for i := range 3 {
		if err := db.Write(context.Background(), func(tx *Tx) error { return insertItem(tx, fmt.Sprint("j", i)) }); err != nil {
			t.Fatal(err)
		}
	}
	if got := sizes(); !slices.Equal(got, []int{1, 5, 1, 1, 1}) {
		t.Fatalf("batch sizes %v after three lone writes", got)
	}
}

// TestGroupCommitOffCommitsEachWrite: Options.NoGroupCommit runs every write
// in its own transaction, however many wait.
func TestGroupCommitOffCommitsEachWrite(t *testing.T) {
	db := gcDB(t, Options{NoGroupCommit: true})
	sizes := batchSizes(db)
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := db.Write(context.Background(), func(tx *Tx) error {
				time.Sleep(time.Millisecond)
				return insertItem(tx, fmt.Sprint("i", i))
			}); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if got := sizes(); len(got) != 8 || slices.Max(got) != 1 || len(items(t, db)) != 8 {
		t.Fatalf("batch sizes %v, %d items stored, want eight batches of one", got, len(items(t, db)))
	}
}

// TestGroupCommitMemberErrorIsItsOwn: a member's error rolls back its own
// writes only (its savepoint) and is returned to it alone; its batch-mates
// commit, and only theirs run their after-commit work.
func TestGroupCommitMemberErrorIsItsOwn(t *testing.T) {
	db := gcDB(t, Options{})
	sizes := batchSizes(db)
	refused := errors.New("refused")
	var mu sync.Mutex
	var after []string
	note := func(s string) func() { return func() { mu.Lock(); after = append(after, s); mu.Unlock() } }
	release := holdWriter(t, db)
	wait := queue(t, db, nil,
		func(tx *Tx) error { tx.afterCommit(note("a")); return insertItem(tx, "a") },
		func(tx *Tx) error {
			tx.afterCommit(note("b"))
			if err := insertItem(tx, "b"); err != nil {
				return err
			}
			return refused
		},
		func(tx *Tx) error { return insertItem(tx, "a") }, // a unique violation: the statement's error
		func(tx *Tx) error { tx.afterCommit(note("c")); return insertItem(tx, "c") },
	)
	release()
	errs := wait()
	if errs[0] != nil || !errors.Is(errs[1], refused) || errs[2] == nil || !db.dialect.unique(errs[2]) || errs[3] != nil {
		t.Fatalf("errors %v, want [nil refused unique-violation nil]", errs)
	}
	if got := items(t, db); !slices.Equal(got, []string{"a", "c"}) {
		t.Fatalf("stored %v, want [a c]", got)
	}
	slices.Sort(after)
	if !slices.Equal(after, []string{"a", "c"}) {
		t.Fatalf("after-commit work ran for %v, want [a c]", after)
	}
	if got := sizes(); !slices.Equal(got, []int{1, 4}) {
		t.Fatalf("batch sizes %v, want [1 4]", got)
	}
}

// TestGroupCommitPanicIsRaisedOnItsOwnGoroutine: a member's panic rolls
// its savepoint back, the batch goes on and commits, and the panic is
// raised again on the member's goroutine; the writer stays usable.
func TestGroupCommitPanicIsRaisedOnItsOwnGoroutine(t *testing.T) {
	db := gcDB(t, Options{})
	release := holdWriter(t, db)
	recovered := make(chan any, 1)
	wait := queue(t, db, nil, func(tx *Tx) error { return insertItem(tx, "a") })
	go func() {
		defer func() { recovered <- recover() }()
		db.Write(context.Background(), func(tx *Tx) error {
			insertItem(tx, "b")
			panic("boom")
		})
	}()
	waitQueued(t, db, 2)
	waitC := queue(t, db, nil, func(tx *Tx) error { return insertItem(tx, "c") })
	release()
	if errs := append(wait(), waitC()...); errs[0] != nil || errs[1] != nil {
		t.Fatalf("batch-mates of a panicking write: %v", errs)
	}
	select {
	case p := <-recovered:
		if p != "boom" {
			t.Fatalf("the panicking write's goroutine recovered %v, want boom", p)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the panicking write never returned")
	}
	if got := items(t, db); !slices.Equal(got, []string{"a", "c"}) {
		t.Fatalf("stored %v, want [a c]", got)
	}
	// A lone write's panic too leaves the writer usable.
	func() {
		defer func() {
			if p := recover(); p != "alone" {
				t.Fatalf("recovered %v, want alone", p)
			}
		}()
		db.Write(context.Background(), func(tx *Tx) error { insertItem(tx, "d"); panic("alone") })
	}()
	if err := db.Write(context.Background(), func(tx *Tx) error { return insertItem(tx, "e") }); err != nil {
		t.Fatal(err)
	}
	if got := items(t, db); !slices.Equal(got, []string{"a", "c", "e"}) {
		t.Fatalf("stored %v, want [a c e]", got)
	}
}

// TestGroupCommitSkipsEndedRequests: a member whose request ended before
// its turn does not run (its context's error), and the batch's transaction
// does not end with it; a request that ends while queued leaves at once.
func TestGroupCommitSkipsEndedRequests(t *testing.T) {
	db := gcDB(t, Options{})
	release := holdWriter(t, db)
	ctxB, cancelB := context.WithCancel(context.Background())
	defer cancelB()
	ranB := false
	wait := queue(t, db, []context.Context{nil, ctxB, nil},
		func(tx *Tx) error { cancelB(); return insertItem(tx, "a") },
		func(tx *Tx) error { ranB = true; return insertItem(tx, "b") },
		func(tx *Tx) error { return insertItem(tx, "c") },
	)
	release()
	errs := wait()
	if errs[0] != nil || !errors.Is(errs[1], context.Canceled) || errs[2] != nil || ranB {
		t.Fatalf("errors %v, B ran %v: want [nil canceled nil], B not run", errs, ranB)
	}
	if got := items(t, db); !slices.Equal(got, []string{"a", "c"}) {
		t.Fatalf("stored %v, want [a c]", got)
	}

	// Queued, then the request ends: Write returns without the writer.
	release = holdWriter(t, db)
	defer release()
	ctx, cancel := context.WithCancel(context.Background())
	wait = queue(t, db, []context.Context{ctx}, func(tx *Tx) error { return insertItem(tx, "x") })
	cancel()
	if errs := wait(); !errors.Is(errs[0], context.Canceled) {
		t.Fatalf("a queued write whose request ended: %v", errs[0])
	}
	release()
	if err := db.Write(context.Background(), func(tx *Tx) error { return insertItem(tx, "d") }); err != nil {
		t.Fatal(err)
	}
	if got := items(t, db); !slices.Equal(got, []string{"a", "c", "d"}) {
		t.Fatalf("stored %v, want [a c d]", got)
	}
}

// TestGroupCommitFailedCommitFailsTheBatch: when the COMMIT fails (here a
// deferred foreign key), every member gets an error and none of the
// batch's writes is stored; the writer is usable after.
func TestGroupCommitFailedCommitFailsTheBatch(t *testing.T) {
	db := gcDB(t, Options{})
	release := holdWriter(t, db)
	after := false
	wait := queue(t, db, nil,
		func(tx *Tx) error { tx.afterCommit(func() { after = true }); return insertItem(tx, "a") },
		func(tx *Tx) error {
			_, err := tx.exec(`INSERT INTO gc_children (id, parent) VALUES ('k', 'missing')`)
			return err
		},
		func(tx *Tx) error { return insertItem(tx, "c") },
	)
	release()
	for i, err := range wait() {
		if err == nil {
			t.Fatalf("write %d of a batch whose COMMIT failed returned no error", i)
		}
	}
	if got := items(t, db); len(got) != 0 || after {
		t.Fatalf("stored %v, after-commit ran %v: want nothing of the failed batch", got, after)
	}
	if err := db.Write(context.Background(), func(tx *Tx) error { return insertItem(tx, "d") }); err != nil {
		t.Fatalf("the writer after a failed COMMIT: %v", err)
	}
	if got := items(t, db); !slices.Equal(got, []string{"d"}) {
		t.Fatalf("stored %v, want [d]", got)
	}
}

// TestGroupCommitEndedTransactionFailsTheBatch: when the transaction ends
// under the batch (a member's statement ended it; an engine that rolls back
// on its own does the same), every member gets an error and nothing of the
// batch is stored, not even what ran after it in autocommit.
func TestGroupCommitEndedTransactionFailsTheBatch(t *testing.T) {
	db := gcDB(t, Options{})
	release := holdWriter(t, db)
	ranC := false
	wait := queue(t, db, nil,
		func(tx *Tx) error { return insertItem(tx, "a") },
		func(tx *Tx) error { _, err := tx.tx.ExecContext(tx.steady, `ROLLBACK`); return err },
		func(tx *Tx) error { ranC = true; return insertItem(tx, "c") },
	)
	release()
	for i, err := range wait() {
		if err == nil {
			t.Fatalf("write %d of a batch whose transaction ended returned no error", i)
		}
	}
	if got := items(t, db); len(got) != 0 || ranC {
		t.Fatalf("stored %v, C ran %v: want nothing", got, ranC)
	}
	if err := db.Write(context.Background(), func(tx *Tx) error { return insertItem(tx, "d") }); err != nil {
		t.Fatalf("the writer after an ended transaction: %v", err)
	}
}

// TestGroupCommitPreconditionsNeverBothPass: two writes guarded by the same
// precondition (read through the reader pool, as If-Match does), queued
// together: the precondition of the second sees the first's write, so only
// one succeeds (in one batch both would read the committed state).
func TestGroupCommitPreconditionsNeverBothPass(t *testing.T) {
	db := gcDB(t, Options{})
	if err := db.Write(context.Background(), func(tx *Tx) error { return insertItem(tx, "r") }); err != nil {
		t.Fatal(err)
	}
	stale := errors.New("stale")
	guarded := func() context.Context {
		return WithPrecondition(context.Background(), func(ctx context.Context) error {
			var v int64
			if err := db.r().QueryRowContext(ctx, `SELECT v FROM gc_items WHERE id = 'r'`).Scan(&v); err != nil {
				return err
			}
			if v != 0 {
				return stale
			}
			return nil
		})
	}
	bumpR := func(tx *Tx) error { _, err := tx.exec(`UPDATE gc_items SET v = v + 1 WHERE id = 'r'`); return err }
	for round := range 3 {
		if _, err := db.read.Exec(`SELECT 1`); err != nil {
			t.Fatal(err)
		}
		if err := db.Write(context.Background(), func(tx *Tx) error {
			_, err := tx.exec(`UPDATE gc_items SET v = 0 WHERE id = 'r'`)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		release := holdWriter(t, db)
		wait := queue(t, db, []context.Context{nil, guarded(), guarded(), nil},
			func(tx *Tx) error { return insertItem(tx, fmt.Sprint("x", round)) }, bumpR, bumpR, func(tx *Tx) error { return insertItem(tx, fmt.Sprint("y", round)) })
		release()
		errs := wait()
		passed := 0
		for _, err := range errs[1:3] {
			if err == nil {
				passed++
			} else if !errors.Is(err, stale) {
				t.Fatal(err)
			}
		}
		var v int64
		if err := db.read.QueryRow(`SELECT v FROM gc_items WHERE id = 'r'`).Scan(&v); err != nil {
			t.Fatal(err)
		}
		if passed != 1 || v != 1 || errs[0] != nil || errs[3] != nil {
			t.Fatalf("round %d: %d guarded writes passed, v = %d, errors %v: want exactly one", round, passed, v, errs)
		}
	}
}

// TestGroupCommitConcurrentWrites: many clients writing at once all get
// their own answer and every committed write is stored (race detector).
func TestGroupCommitConcurrentWrites(t *testing.T) {
	db := gcDB(t, Options{})
	sizes := batchSizes(db)
	refused := errors.New("refused")
	var wg sync.WaitGroup
	errs := make([]error, 64)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = db.Write(context.Background(), func(tx *Tx) error {
				if err := insertItem(tx, fmt.Sprintf("i%02d", i)); err != nil {
					return err
				}
				if i%3 == 0 {
					return refused
				}
				return nil
			})
		}()
	}
	wg.Wait()
	var want []string
	for i, err := range errs {
		if (i%3 == 0) != errors.Is(err, refused) || (i%3 != 0 && err != nil) {
			t.Fatalf("write %d: %v", i, err)
		}
		if i%3 != 0 {
			want = append(want, fmt.Sprintf("i%02d", i))
		}
	}
	if got := items(t, db); !slices.Equal(got, want) {
		t.Fatalf("stored %v, want %v", got, want)
	}
	total := 0
	for _, n := range sizes() {
		total += n
		if n > maxBatch {
			t.Fatalf("a batch of %d members, more than %d", n, maxBatch)
		}
	}
	if total != len(errs) {
		t.Fatalf("batches held %d members, want %d", total, len(errs))
	}
}

// TestGroupCommitRequestStepsPerMember: each member of a batch runs its own
// recorded changes and commit hook inside its savepoint; a failed member's
// are rolled back with it and stay pending for its request's next write,
// a committed member's are done.
func TestGroupCommitRequestStepsPerMember(t *testing.T) {
	db := gcDB(t, Options{})
	sizes := batchSizes(db)
	change := func(id string) context.Context {
		return RecordingChange(context.Background(), Change{OrganizationID: "o1", Action: "thing.created", TargetType: "thing", TargetID: id})
	}
	audited := func() []string {
		t.Helper()
		return committedColumn(t, db, `SELECT target_id FROM audit_recent ORDER BY target_id`)
	}
	counter := func() (n int64) {
		t.Helper()
		if err := db.read.QueryRow(`SELECT n FROM change_counter WHERE id = 1`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	refused := errors.New("refused")
	ctxA, ctxB := change("a"), change("b")
	ctxC := WithCommitHook(change("c"), func(tx *Tx) error { return insertItem(tx, "hook-c") })
	ctxD := WithCommitHook(change("d"), func(tx *Tx) error { return refused })
	n0 := counter()
	release := holdWriter(t, db)
	wait := queue(t, db, []context.Context{ctxA, ctxB, ctxC, ctxD},
		func(tx *Tx) error { return insertItem(tx, "a") },
		func(tx *Tx) error { insertItem(tx, "b"); return refused },
		func(tx *Tx) error { return insertItem(tx, "c") },
		func(tx *Tx) error { return insertItem(tx, "d") },
	)
	release()
	errs := wait()
	if errs[0] != nil || !errors.Is(errs[1], refused) || errs[2] != nil || !errors.Is(errs[3], refused) {
		t.Fatalf("errors %v, want [nil refused nil refused]", errs)
	}
	if got := sizes(); !slices.Equal(got, []int{1, 4}) {
		t.Fatalf("batch sizes %v, want [1 4]", got)
	}
	if got, want := items(t, db), []string{"a", "c", "hook-c"}; !slices.Equal(got, want) {
		t.Fatalf("stored %v, want %v", got, want)
	}
	if got := audited(); !slices.Equal(got, []string{"a", "c"}) {
		t.Fatalf("audited %v, want [a c]", got)
	}
	// The change counter moved for the committed writes (SQLite: one bump
	// each, in their savepoints; PostgreSQL: one at the batch's COMMIT).
	if moved := counter() - n0; moved < 1 || (db.dialect.name() == "sqlite" && moved != 1+2) {
		t.Fatalf("change counter moved by %d (the holding write and two committed members: 3 on SQLite)", moved)
	}
	// B's change is still pending for its request's next write; A's is done.
	for _, ctx := range []context.Context{ctxA, ctxB} {
		if err := db.Write(ctx, func(*Tx) error { return nil }); err != nil {
			t.Fatal(err)
		}
	}
	if got := audited(); !slices.Equal(got, []string{"a", "b", "c"}) {
		t.Fatalf("audited %v after the requests' next writes, want [a b c]", got)
	}
}

// TestGroupCommitBatchBeginEndsWithItsRequests: on PostgreSQL a batch's
// BEGIN waits for the advisory write lock, which another session (another
// replica) may hold; the batch stops waiting once every member's request
// has ended, and the writer serves the next write once the lock is free.
func TestGroupCommitBatchBeginEndsWithItsRequests(t *testing.T) {
	if !TestOnPostgres() {
		t.Skip("the wait is for PostgreSQL's advisory write lock (SQLite's writer is this process's own)")
	}
	target := testTarget(t)
	db := gcDBAt(t, target, Options{})
	sizes := batchSizes(db)
	other, err := sql.Open("pgx", target)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	ctx := context.Background()
	lockWaiters := func() int {
		var n int
		if err := other.QueryRowContext(ctx, `SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	waitLockWaiters := func(what string) {
		t.Helper()
		for deadline := time.Now().Add(10 * time.Second); lockWaiters() < 1; time.Sleep(5 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("%s never waited for the write lock", what)
			}
		}
	}

	release := holdWriter(t, db)
	defer release()
	ctxA, cancelA := context.WithCancel(ctx)
	ctxB, cancelB := context.WithCancel(ctx)
	defer cancelA()
	defer cancelB()
	wait := queue(t, db, []context.Context{ctxA, ctxB},
		func(tx *Tx) error { return insertItem(tx, "a") },
		func(tx *Tx) error { return insertItem(tx, "b") },
	)
	// Another session asks for the lock behind the holding write, so it
	// gets it when that write commits, before the batch of a and b.
	conn, err := other.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	lock := fmt.Sprintf(`SELECT pg_advisory_lock(%d)`, int64(writeLockKey))
	locked := make(chan error, 1)
	go func() { _, err := conn.ExecContext(ctx, lock); locked <- err }()
	waitLockWaiters("the other session")
	release()
	if err := <-locked; err != nil {
		t.Fatal(err)
	}
	unlock := sync.OnceFunc(func() {
		if _, err := conn.ExecContext(ctx, fmt.Sprintf(`SELECT pg_advisory_unlock(%d)`, int64(writeLockKey))); err != nil {
			t.Error(err)
		}
	})
	defer unlock()
	waitLockWaiters("the batch")

	cancelA()
	cancelB()
	returned := make(chan []error, 1)
	go func() { returned <- wait() }()
	select {
	case errs := <-returned:
		for i, err := range errs {
			if !errors.Is(err, context.Canceled) {
				t.Errorf("write %d: %v, want context.Canceled", i, err)
			}
		}
	case <-time.After(10 * time.Second):
		unlock()
		<-returned
		t.Fatal("the batch still waited for the write lock 10 s after its requests ended")
	}
	if got := sizes(); !slices.Equal(got, []int{1, 2}) {
		t.Errorf("batches %v, want [1 2] (the holding write, then a and b together)", got)
	}
	unlock()
	if err := db.Write(ctx, func(tx *Tx) error { return insertItem(tx, "c") }); err != nil {
		t.Fatal(err)
	}
	if got := items(t, db); !slices.Equal(got, []string{"c"}) {
		t.Fatalf("stored %v, want [c]", got)
	}
}

// TestGroupCommitQueuedStatementErrorIsItsOwn: a statement queued with
// execLater (PostgreSQL sends it with the member's release of its
// savepoint, or with the COMMIT) fails its own member only, with its own
// error, in a batch as alone; on SQLite it runs at once, to the same end.
func TestGroupCommitQueuedStatementErrorIsItsOwn(t *testing.T) {
	db := gcDB(t, Options{})
	later := func(id string) func(tx *Tx) error {
		return func(tx *Tx) error { return tx.execLater(`INSERT INTO gc_items (id, v) VALUES (?, 0)`, id) }
	}
	release := holdWriter(t, db)
	wait := queue(t, db, nil,
		later("a"),
		later("a"), // a unique violation, known only once sent
		func(tx *Tx) error {
			if err := later("b")(tx); err != nil {
				return err
			}
			return insertItem(tx, "c") // sends b first
		},
		later("d"),
	)
	release()
	errs := wait()
	if errs[0] != nil || errs[1] == nil || !db.dialect.unique(errs[1]) || errs[2] != nil || errs[3] != nil {
		t.Fatalf("errors %v, want [nil unique-violation nil nil]", errs)
	}
	if got := items(t, db); !slices.Equal(got, []string{"a", "b", "c", "d"}) {
		t.Fatalf("stored %v, want [a b c d]", got)
	}
	// Alone in its transaction: the COMMIT carries the queued statement,
	// whose error is the write's; nothing of it is stored.
	err := db.Write(context.Background(), func(tx *Tx) error {
		if err := later("e")(tx); err != nil {
			return err
		}
		return later("a")(tx)
	})
	if err == nil || !db.dialect.unique(err) {
		t.Fatalf("a write whose queued statement fails: %v, want a unique violation", err)
	}
	if got := items(t, db); !slices.Equal(got, []string{"a", "b", "c", "d"}) {
		t.Fatalf("stored %v after the failed write, want [a b c d]", got)
	}
	if err := db.Write(context.Background(), later("e")); err != nil {
		t.Fatalf("the writer after a failed queued statement: %v", err)
	}
}
