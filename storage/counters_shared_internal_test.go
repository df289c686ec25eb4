package storage

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"testing"
	"time"

	"golang.org/x/sync/errgroup"
)

// sharedReadsHeld is a sharedCounterReads on db whose first read, once
// answered, waits for release; reads lists how many requests each read
// served.
func sharedReadsHeld(db *DB) (s *sharedCounterReads, release func(), reads func() []int) {
	s = &sharedCounterReads{db: db}
	var mu sync.Mutex
	var served []int
	hold := make(chan struct{})
	s.answered = func(n int) {
		mu.Lock()
		served = append(served, n)
		first := len(served) == 1
		mu.Unlock()
		if first {
			<-hold
		}
	}
	return s, sync.OnceFunc(func() { close(hold) }), func() []int {
		mu.Lock()
		defer mu.Unlock()
		return append([]int(nil), served...)
	}
}

// countersQueued waits until n requests wait in s's queue.
func countersQueued(t *testing.T, s *sharedCounterReads, n int) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		s.mu.Lock()
		k := len(s.queue)
		s.mu.Unlock()
		if k >= n {
			return
		}
	}
	t.Fatalf("fewer than %d requests queued", n)
}

// answeredOnce waits until the first read is answered (and held).
func answeredOnce(reads func() []int) {
	for len(reads()) == 0 {
		time.Sleep(time.Millisecond)
	}
}

// TestSharedCounterReadsServeTheQueue: the requests that arrive while a
// read is in flight share the next read, each with a snapshot of its own
// (a write marks only its own request's stale), and those that name an
// organization and user get them with it (none for an organization that
// does not exist), as OrganizationFor reads them. Both engines.
func TestSharedCounterReadsServeTheQueue(t *testing.T) {
	db, sp := testSpace(t)
	ctx := context.Background()
	org := sp.OrganizationID
	s, release, reads := sharedReadsHeld(db)
	defer release()

	type answer struct {
		snap *countersSnapshot
		err  error
	}
	first := make(chan answer, 1)
	go func() { c, err := s.read(ctx, "", ""); first <- answer{c, err} }()
	answeredOnce(reads)
	read := "read"
	reader, _, err := db.CreateUserWithToken(ctx, "r@example.com", "R", org, &read, true, "h2")
	if err != nil {
		t.Fatal(err)
	}
	asks := [][2]string{{org, "u1"}, {"", ""}, {org, reader.ID}, {org, "u1"}, {"no-such-org", "u1"}, {"", ""}}
	answers := make([]chan answer, len(asks))
	for i, a := range asks {
		answers[i] = make(chan answer, 1)
		go func() { c, err := s.read(ctx, a[0], a[1]); answers[i] <- answer{c, err} }()
		countersQueued(t, s, i+1) // in this order: the read carries the first one's organization
	}
	release()
	if a := <-first; a.err != nil || a.snap == nil {
		t.Fatalf("first read: %v", a.err)
	}
	var snaps []*countersSnapshot
	for i, ch := range answers {
		a := <-ch
		if a.err != nil {
			t.Fatalf("request %d: %v", i, a.err)
		}
		snaps = append(snaps, a.snap)
	}
	if got := reads(); len(got) != 2 || got[1] != len(asks) {
		t.Fatalf("reads served %v requests, want [1 %d]", got, len(asks))
	}
	for i, c := range snaps {
		if c.n != snaps[0].n || c.access != snaps[0].access || c.tokens != snaps[0].tokens {
			t.Fatalf("request %d read other counters than request 0", i)
		}
		for j := range i {
			if snaps[j] == c {
				t.Fatalf("requests %d and %d share one snapshot", j, i)
			}
		}
	}
	for i, a := range asks {
		want := a[0] == org
		if got := snaps[i].org != nil; got != want || (got && snaps[i].orgKey != a[0]+"\x00"+a[1]) {
			t.Fatalf("request %d (%q, %q): organization carried %v (key %q), want %v", i, a[0], a[1], got, snaps[i].orgKey, want)
		}
		if !want {
			continue
		}
		o, m, err := db.OrganizationFor(context.Background(), a[0], a[1])
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(snaps[i].org.org, o) || !reflect.DeepEqual(snaps[i].org.member, m) {
			t.Fatalf("request %d: carried %+v %+v, OrganizationFor reads %+v %+v", i, snaps[i].org.org, snaps[i].org.member, o, m)
		}
	}
	if snaps[2].org.member == nil || *snaps[2].org.member.Role != "read" || snaps[0].org.member != nil {
		t.Fatalf("memberships carried: reader %+v, stranger %+v", snaps[2].org.member, snaps[0].org.member)
	}
	snaps[0].stale.Store(true)
	if snaps[2].stale.Load() {
		t.Fatal("a write of one request made another's snapshot stale")
	}
}

// TestSharedCounterReadSeesEarlierWrites: a request that arrives while a
// read is in flight never gets that read's answer: a write committed
// before the request began is in its counters. Both engines.
func TestSharedCounterReadSeesEarlierWrites(t *testing.T) {
	db, sp := testSpace(t)
	ctx := context.Background()
	s, release, reads := sharedReadsHeld(db)
	defer release()
	first := make(chan *countersSnapshot, 1)
	go func() { c, _ := s.read(ctx, "", ""); first <- c }()
	answeredOnce(reads)
	if _, err := db.CreateTeam(ctx, sp.OrganizationID, "after the first read", nil); err != nil {
		t.Fatal(err)
	}
	second := make(chan *countersSnapshot, 1)
	go func() { c, _ := s.read(ctx, "", ""); second <- c }()
	countersQueued(t, s, 1)
	release()
	a, b := <-first, <-second
	if a == nil || b == nil {
		t.Fatal("a read failed")
	}
	if b.n <= a.n {
		t.Fatalf("the request after the write read change version %d, the one before it %d", b.n, a.n)
	}
}

// TestSharedCounterReadLeavesWithItsRequest: a queued request whose
// context ends returns at once; the read goes on for the others.
func TestSharedCounterReadLeavesWithItsRequest(t *testing.T) {
	db, _ := testSpace(t)
	s, release, reads := sharedReadsHeld(db)
	defer release()
	go s.read(context.Background(), "", "")
	answeredOnce(reads)
	ctx, cancel := context.WithCancel(context.Background())
	left := make(chan error, 1)
	go func() { _, err := s.read(ctx, "", ""); left <- err }()
	stays := make(chan error, 1)
	go func() { _, err := s.read(context.Background(), "", ""); stays <- err }()
	countersQueued(t, s, 2)
	cancel()
	select {
	case err := <-left:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("ended request: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("a request whose context ended waited for the read")
	}
	release()
	if err := <-stays; err != nil {
		t.Fatalf("the other request: %v", err)
	}
}

// TestCountersAfterOwnWrite: under concurrent requests (whose counters
// reads PostgreSQL shares), a request that reads the counters after its
// write committed always reads them moved. Both engines.
func TestCountersAfterOwnWrite(t *testing.T) {
	db, sp := testSpace(t)
	ctx := context.Background()
	var g errgroup.Group
	for w := range 8 {
		g.Go(func() error {
			for i := range 5 {
				a, err := db.ReadCounters(ctx)
				if err != nil {
					return err
				}
				if _, err := db.CreateTeam(ctx, sp.OrganizationID, fmt.Sprintf("team %d.%d", w, i), nil); err != nil {
					return err
				}
				b, err := db.ReadCounters(ctx)
				if err != nil {
					return err
				}
				if b.n <= a.n {
					return fmt.Errorf("change version %d after the write, %d before it", b.n, a.n)
				}
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		t.Fatal(err)
	}
}

// TestSharedCounterReadPanicIsAnError: a read that panics is its
// requests' error, and the next read is sent as usual.
func TestSharedCounterReadPanicIsAnError(t *testing.T) {
	db, _ := testSpace(t)
	s := &sharedCounterReads{db: db}
	s.answered = func(int) { s.answered = nil; panic("boom") }
	if _, err := s.read(context.Background(), "", ""); err == nil {
		t.Fatal("a read that panicked answered no error")
	}
	if c, err := s.read(context.Background(), "", ""); err != nil || c == nil {
		t.Fatalf("the read after a panic: %v", err)
	}
}
