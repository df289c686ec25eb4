package storage

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"
)

// holdCommuting starts a commuting write of org that holds its queue
// until the returned function is called.
func holdCommuting(t *testing.T, db *DB, org string) (release func()) {
	t.Helper()
	return holdWrite(t, func(fn func(*Tx) error) error { return db.writeCommuting(context.Background(), org, fn) })
}

// holdCommutingAll holds every leader of org's commuting writes (one on
// SQLite, where they are unscoped); releasing the first lets the queue run.
func holdCommutingAll(t *testing.T, db *DB, org string) (first, rest func()) {
	t.Helper()
	n := 1
	if db.dialect.scopes() {
		n = commutingLeaders
	}
	var holds []func()
	for range n {
		holds = append(holds, holdCommuting(t, db, org))
	}
	t.Cleanup(func() {
		for _, r := range holds {
			r()
		}
	})
	return holds[0], func() {
		for _, r := range holds[1:] {
			r()
		}
	}
}

// queueCommuting is queue for commuting writes of org.
func queueCommuting(t *testing.T, db *DB, org string, fns ...func(tx *Tx) error) func() []error {
	t.Helper()
	errs := make([]error, len(fns))
	var wg sync.WaitGroup
	base := db.writes.queued()
	for i, fn := range fns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = db.writeCommuting(context.Background(), org, fn)
		}()
		waitQueued(t, db, base+i+1)
	}
	return func() []error { wg.Wait(); return errs }
}

func insertItemLater(tx *Tx, id string) error {
	return tx.execLater(`INSERT INTO gc_items (id, v) VALUES (?, 0)`, id)
}

// TestCommutingWritesRunAsOneBatch: the commuting writes of an organization
// queued while one is in flight run together and commit together (on
// PostgreSQL in one transaction: the rows share their xmin), each answered
// once durable, with its after-commit work.
func TestCommutingWritesRunAsOneBatch(t *testing.T) {
	db := gcDB(t, Options{})
	sizes := batchSizes(db)
	var mu sync.Mutex
	var after []string
	release, rest := holdCommutingAll(t, db, "org-1")
	defer rest()
	holders := len(sizes())
	var fns []func(*Tx) error
	for i := range 5 {
		id := fmt.Sprint("i", i)
		fns = append(fns, func(tx *Tx) error {
			tx.afterCommit(func() { mu.Lock(); after = append(after, id); mu.Unlock() })
			return insertItemLater(tx, id)
		})
	}
	wait := queueCommuting(t, db, "org-1", fns...)
	release()
	for i, err := range wait() {
		if err != nil {
			t.Fatalf("write %d: %v", i, err)
		}
	}
	want := []string{"i0", "i1", "i2", "i3", "i4"}
	if got := items(t, db); !slices.Equal(got, want) {
		t.Fatalf("stored %v, want %v", got, want)
	}
	slices.Sort(after)
	if !slices.Equal(after, want) {
		t.Fatalf("after-commit work ran for %v, want %v", after, want)
	}
	if got := sizes()[holders:]; !slices.Equal(got, []int{5}) {
		t.Fatalf("batch sizes %v after the holding writes, want [5]", got)
	}
	if _, pg := db.dialect.(postgresDialect); pg {
		if got := committedColumn(t, db, `SELECT CAST(count(DISTINCT xmin::text) AS TEXT) FROM gc_items`); !slices.Equal(got, []string{"1"}) {
			t.Fatalf("transactions of the batch's rows: %v, want 1", got)
		}
	}
}

// TestCommutingBatchFailureIsEachMembersOwn: a member's error (its own, a
// statement refused at the COMMIT, a panic) is its answer alone; its
// batch-mates' writes are stored (on PostgreSQL the batch, which has no
// savepoints, runs again one write at a time) and only theirs run their
// after-commit work; the panic is raised on its own goroutine, once.
func TestCommutingBatchFailureIsEachMembersOwn(t *testing.T) {
	db := gcDB(t, Options{})
	refused := errors.New("refused")
	var mu sync.Mutex
	var after []string
	runs := map[string]int{}
	note := func(tx *Tx, s string) {
		mu.Lock()
		runs[s]++
		mu.Unlock()
		tx.afterCommit(func() { mu.Lock(); after = append(after, s); mu.Unlock() })
	}
	release, rest := holdCommutingAll(t, db, "org-1")
	defer rest()
	waitA := queueCommuting(t, db, "org-1", func(tx *Tx) error { note(tx, "a"); return insertItemLater(tx, "a") })
	recovered := make(chan any, 1)
	go func() {
		defer func() { recovered <- recover() }()
		db.writeCommuting(context.Background(), "org-1", func(tx *Tx) error {
			note(tx, "p")
			insertItemLater(tx, "p")
			panic("boom")
		})
	}()
	waitQueued(t, db, 2)
	wait := queueCommuting(t, db, "org-1",
		func(tx *Tx) error {
			note(tx, "b")
			if err := insertItemLater(tx, "b"); err != nil {
				return err
			}
			return refused
		},
		func(tx *Tx) error { note(tx, "dup"); return insertItemLater(tx, "a") }, // refused at the COMMIT
		func(tx *Tx) error { note(tx, "c"); return insertItemLater(tx, "c") },
		func(tx *Tx) error { note(tx, "d"); return insertItemLater(tx, "d") },
	)
	release()
	errs := append(waitA(), wait()...)
	if errs[0] != nil || !errors.Is(errs[1], refused) || errs[2] == nil || !db.dialect.unique(errs[2]) || errs[3] != nil || errs[4] != nil {
		t.Fatalf("errors %v, want [nil refused unique-violation nil nil]", errs)
	}
	select {
	case p := <-recovered:
		if p != "boom" {
			t.Fatalf("the panicking write's goroutine recovered %v, want boom", p)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the panicking write never returned")
	}
	if got := items(t, db); !slices.Equal(got, []string{"a", "c", "d"}) {
		t.Fatalf("stored %v, want [a c d]", got)
	}
	slices.Sort(after)
	if !slices.Equal(after, []string{"a", "c", "d"}) {
		t.Fatalf("after-commit work ran for %v, want [a c d]", after)
	}
	if runs["p"] != 1 {
		t.Fatalf("the panicking write ran %d times, want once", runs["p"])
	}
}

// TestTeamOfUnknownOrganizationIsRefused: a team is stored only for an
// organization that exists, with or without the foreign key (PostgreSQL
// checks it in the INSERT: migration 0033b), alone or in a batch of
// commuting creates whose other members are stored.
func TestTeamOfUnknownOrganizationIsRefused(t *testing.T) {
	db, err := Open(testTarget(t), Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	ctx := context.Background()
	org := scopeOrg(t, db, "known").Organization.ID
	if _, err := db.NewTeam(ctx, "no-such-org", "Orphan", nil); err == nil {
		t.Fatal("a team of an unknown organization was created")
	}
	release, rest := holdCommutingAll(t, db, org)
	defer rest()
	var wg sync.WaitGroup
	errs := make([]error, 3)
	base := db.writes.queued()
	for i, o := range []string{org, "no-such-org", org} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = db.NewTeam(ctx, o, fmt.Sprint("team ", i), nil)
		}()
		if db.dialect.scopes() && o != org {
			continue // its own scope: it does not queue behind the held one
		}
		waitQueued(t, db, base+1)
		base++
	}
	release()
	wg.Wait()
	if errs[0] != nil || errs[1] == nil || errs[2] != nil {
		t.Fatalf("errors %v, want [nil refused nil]", errs)
	}
	got := committedColumn(t, db, `SELECT organization_id FROM teams ORDER BY title`)
	if !slices.Equal(got, []string{org, org}) {
		t.Fatalf("teams of organizations %v, want two of %s", got, org)
	}
}
