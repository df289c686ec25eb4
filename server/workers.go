package server

import (
	"context"
	"sync"
	"time"
)

// Worker is a background loop of a resource family (trash purge, deliveries,
// processing). It runs until ctx is cancelled.
type Worker func(ctx context.Context, s *Server)

var workers []Worker

// RegisterWorker adds a background loop started by StartWorkers.
func RegisterWorker(w Worker) { workers = append(workers, w) }

// StartWorkers starts every registered worker; Wait on the result after
// cancelling ctx to let them finish.
func (s *Server) StartWorkers(ctx context.Context) *sync.WaitGroup {
	var wg sync.WaitGroup
	for _, w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w(ctx, s)
		}()
	}
	return &wg
}

// queues holds one wake-up channel per named work queue. The queues
// themselves are database tables; a wake-up only saves the worker from
// waiting for its next poll.
type queues struct {
	mu sync.Mutex
	ch map[string]chan struct{}
}

func (q *queues) channel(name string) chan struct{} {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.ch == nil {
		q.ch = map[string]chan struct{}{}
	}
	c, ok := q.ch[name]
	if !ok {
		c = make(chan struct{}, 1) // one pending wake-up is enough
		q.ch[name] = c
	}
	return c
}

// Wake tells the worker of queue that work was recorded; it never blocks.
func (s *Server) Wake(queue string) {
	select {
	case s.queues.channel(queue) <- struct{}{}:
	default:
	}
}

// Wakeups is the channel a queue's worker waits on.
func (s *Server) Wakeups(queue string) <-chan struct{} { return s.queues.channel(queue) }

// runsSweep reports whether this process runs the named periodic sweep
// (trash purge, idempotency-key expiry) this time: one process at a time
// holds a sweep's lease (storage.TakeJobLease) and renews it on each run,
// every interval; when it dies, another takes the sweep over once the lease
// (two intervals and a minute) has run out. A failure to read the lease is
// logged and skips this run.
func (s *Server) runsSweep(ctx context.Context, name string, every time.Duration) bool {
	held, err := s.DB.TakeJobLease(ctx, name, 2*every+time.Minute)
	if err != nil && ctx.Err() == nil {
		s.Log.Error("taking a sweep's lease", "sweep", name, "error", err)
	}
	return held
}

// sweepEvery runs a periodic sweep that deletes expired rows: once at
// start and then every interval, on one process at a time (runsSweep),
// until ctx ends. step says how many rows it removed; unit names them in
// the log line (none when unit is empty: a sweep that runs every second).
func (s *Server) sweepEvery(ctx context.Context, name string, every time.Duration, unit string, step func(context.Context) (int, error)) {
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		if s.runsSweep(ctx, name, every) {
			start := time.Now()
			n, err := step(ctx)
			s.Metrics.ObserveJob(name, time.Since(start), err)
			switch {
			case err != nil && ctx.Err() == nil:
				s.Log.Error("sweep failed", "sweep", name, "error", err)
			case n > 0 && unit != "":
				s.Log.Info("sweep purged", "sweep", name, unit, n)
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// Retention purges (audit log, webhook deliveries) walk the owners of the
// rows (organizations, webhooks) purgeWalkPage ids at a time, one read
// each page, and delete an owner's expired rows purgeBatch at a time, each
// batch one short write transaction (requests' writes interleave), at most
// purgeBatches batches per run; what is left waits for the next run.
const (
	purgeWalkPage = 100
	purgeBatch    = 1000
	purgeBatches  = 100
)

// purgeExpired runs one retention purge of the rows older than before:
// walk pages through the owners after an id (returning those holding
// expired rows and the last id walked, "" at the end), purge deletes up to
// a limit of one owner's expired rows. It says how many rows went.
func purgeExpired(ctx context.Context, before time.Time,
	walk func(ctx context.Context, after string, before time.Time, limit int) ([]string, string, error),
	purge func(ctx context.Context, owner string, before time.Time, limit int) (int, error)) (int, error) {
	total, batches, after := 0, 0, ""
	for {
		owners, last, err := walk(ctx, after, before, purgeWalkPage)
		if err != nil || last == "" {
			return total, err
		}
		for _, owner := range owners {
			for n := purgeBatch; n == purgeBatch; {
				if batches == purgeBatches {
					return total, nil
				}
				batches++
				if n, err = purge(ctx, owner, before, purgeBatch); err != nil {
					return total + n, err
				}
				total += n
			}
		}
		after = last
	}
}
