package storage

import (
	"context"
	"fmt"
	"slices"
	"sync"
)

// Where the counters are read over the network (PostgreSQL), every
// request's first statement is that read (counters.go): a round trip of
// its own, the larger part of a cached GET's cost and a quarter of a
// create's. Requests that arrive while such a read is in flight queue and
// share the next one, which starts after all of them arrived: each sees
// every write committed before its own call (the rule of WithCounters),
// as it would reading alone. One read is in flight at a time; under load
// each takes the requests that queued during the previous one, so reads
// grow with the round trip's time, not with the requests. A request
// alone reads at once, on its own goroutine.
//
// A read carries the organization and membership each request asked for
// (ReadCountersFor), each pair once, up to maxOrgsWithCounters of them; a
// request past those gets the counters alone and reads its organization
// through the cache (a round trip more for it, what SQLite always does).
type sharedCounterReads struct {
	db      *DB
	mu      sync.Mutex
	reading bool           // a read is in flight, or about to be sent
	queue   []*counterWait // requests waiting for the next read
	// answered, set by tests, runs after each read is answered, before
	// its requests are, with the number of them.
	answered func(requests int)
}

// counterWait is one request waiting for a shared read.
type counterWait struct {
	ctx       context.Context
	org, user string // ReadCountersFor's, or empty
	done      chan struct{}
	snap      *countersSnapshot
	err       error
}

// read is readCountersNow shared (above): it queues the request and, when
// no read is in flight, sends the next read itself.
func (s *sharedCounterReads) read(ctx context.Context, org, user string) (*countersSnapshot, error) {
	w := &counterWait{ctx: ctx, org: org, user: user, done: make(chan struct{})}
	s.mu.Lock()
	s.queue = append(s.queue, w)
	if s.reading {
		s.mu.Unlock()
		select {
		case <-w.done:
			return w.snap, w.err
		case <-ctx.Done():
			return nil, ctx.Err() // the read goes on for the others
		}
	}
	s.reading = true
	s.mu.Unlock()
	// This request leads: it reads for the queue (itself among it), then
	// leaves the requests queued meanwhile to a goroutine, so that its own
	// request goes on at once. Should its context end first, it still waits
	// for the read while another request in it does (bounded by theirs).
	s.serve(s.next())
	if batch := s.next(); batch != nil {
		go s.serveAll(batch)
	}
	return w.snap, w.err
}

// next takes the queue, or ends the reading when it is empty (nil).
func (s *sharedCounterReads) next() []*counterWait {
	s.mu.Lock()
	defer s.mu.Unlock()
	batch := s.queue
	s.queue = nil
	if len(batch) == 0 {
		s.reading = false
	}
	return batch
}

// serveAll serves batch, then every queue that grows meanwhile.
func (s *sharedCounterReads) serveAll(batch []*counterWait) {
	for ; batch != nil; batch = s.next() {
		s.serve(batch)
	}
}

// serve sends one read for batch and gives each request its own snapshot
// of it. The read runs while any of their requests waits (whileAnyWaits).
// A panic is each request's error, so that the reads go on.
func (s *sharedCounterReads) serve(batch []*counterWait) {
	answered := 0
	defer func() {
		if p := recover(); p != nil {
			for _, w := range batch[answered:] {
				w.err = fmt.Errorf("storage: counters read panicked: %v", p)
				close(w.done)
			}
		}
	}()
	ctx := batch[0].ctx
	if len(batch) > 1 {
		var cancel context.CancelFunc
		var disarm func()
		ctx, cancel, disarm = whileAnyWaits(len(batch), func(i int) context.Context { return batch[i].ctx })
		defer cancel()
		defer disarm()
	}
	// The organizations asked, each once, in the order asked.
	var asked []orgUser
	for _, w := range batch {
		if w.org != "" && len(asked) < maxOrgsWithCounters && !slices.Contains(asked, orgUser{w.org, w.user}) {
			asked = append(asked, orgUser{w.org, w.user})
		}
	}
	snap, orgs, err := s.db.readCountersNow(ctx, asked)
	if s.answered != nil {
		s.answered(len(batch))
	}
	for _, w := range batch {
		if err != nil {
			w.err = err
		} else {
			// Each request its own snapshot: a write marks its own stale.
			w.snap = &countersSnapshot{counters: snap.counters, tokens: snap.tokens}
			if i := slices.Index(asked, orgUser{w.org, w.user}); i >= 0 && orgs[i] != nil {
				w.snap.org, w.snap.orgKey = orgs[i], asked[i].key()
			}
		}
		close(w.done)
		answered++
	}
}
