package delivery

import (
	"context"
	"log/slog"
	"maps"
	"sync"
	"time"
)

// queue is a persistent delivery queue as a worker drains it: the
// integration event queue (Worker) and the webhook outbox (WebhookWorker)
// share the loop below and differ only in these functions.
type queue[D, O any] struct {
	// claim leases up to limit due deliveries; inFlight is what the
	// background loop has in flight by organization (nil from runOnce).
	claim func(ctx context.Context, limit int, inFlight map[string]int) ([]D, error)
	// orgOf names a delivery's organization, for the loop's in-flight
	// count; nil when the queue does not share its slots by organization.
	orgOf       func(D) string
	attempt     func(ctx context.Context, d D) O              // one attempt, never recorded by itself
	finish      func(ctx context.Context, outcomes []O) error // record outcomes in one transaction
	nextAt      func(ctx context.Context) (time.Time, bool, error)
	now         func() time.Time
	wake        chan struct{}
	log         *slog.Logger
	concurrency int
	poll        time.Duration
}

// runOnce makes one attempt of every delivery due now (up to limit) and
// waits for all of them.
func runOnce[D, O any](ctx context.Context, q queue[D, O], limit int) (int, error) {
	ds, err := q.claim(ctx, limit, nil)
	if err != nil || len(ds) == 0 {
		return 0, err
	}
	outcomes := make([]O, len(ds))
	sem := make(chan struct{}, max(q.concurrency, 1))
	var wg sync.WaitGroup
	for i, d := range ds {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			outcomes[i] = q.attempt(ctx, d)
			<-sem
		}()
	}
	wg.Wait()
	return len(ds), q.finish(context.WithoutCancel(ctx), outcomes)
}

// drain runs runOnce until nothing is due now.
func drain[D, O any](ctx context.Context, q queue[D, O]) (int, error) {
	total := 0
	for {
		n, err := runOnce(ctx, q, 256)
		total += n
		if err != nil || n == 0 {
			return total, err
		}
	}
}

// runQueue is the background loop: it keeps up to q.concurrency attempts
// in flight (a slow receiver holds one slot, not the queue), records
// outcomes as they come in batches of whatever has finished (one commit for
// many deliveries), and sleeps until the next delivery is due, a wake-up, a
// freed slot, or the poll interval. It returns when ctx is cancelled and
// the attempts in flight have been recorded.
func runQueue[D, O any](ctx context.Context, q queue[D, O]) {
	slots := max(q.concurrency, 1)
	sem := make(chan struct{}, slots)
	freed := make(chan struct{}, 1)
	type result struct {
		o   O
		org string
	}
	results := make(chan result, slots)
	recorded := make(chan struct{})
	// inFlight counts the attempts of each organization from claim to
	// record, for the claim's fair share (guarded by mu: the recorder
	// lowers it while the loop claims).
	var mu sync.Mutex
	inFlight := map[string]int{}
	go func() {
		defer close(recorded)
		for r := range results {
			batch := []O{r.o}
			orgs := []string{r.org}
		more:
			for len(batch) < 256 {
				select {
				case r, ok := <-results:
					if !ok {
						break more
					}
					batch = append(batch, r.o)
					orgs = append(orgs, r.org)
				default:
					break more
				}
			}
			if err := q.finish(context.WithoutCancel(ctx), batch); err != nil {
				q.log.Error("recording deliveries", "count", len(batch), "error", err)
			}
			mu.Lock()
			for _, org := range orgs {
				if inFlight[org]--; inFlight[org] <= 0 {
					delete(inFlight, org)
				}
			}
			mu.Unlock()
			for range batch {
				<-sem
			}
			select {
			case freed <- struct{}{}:
			default:
			}
		}
	}()
	var attempts sync.WaitGroup
	defer func() {
		attempts.Wait()
		close(results)
		<-recorded
	}()
	for {
		free := slots - len(sem)
		claimed := 0
		if free > 0 {
			mu.Lock()
			busy := maps.Clone(inFlight)
			mu.Unlock()
			ds, err := q.claim(ctx, free, busy)
			if err != nil && ctx.Err() == nil {
				q.log.Error("claiming deliveries", "error", err)
			}
			claimed = len(ds)
			for _, d := range ds {
				org := ""
				if q.orgOf != nil {
					org = q.orgOf(d)
				}
				mu.Lock()
				inFlight[org]++
				mu.Unlock()
				sem <- struct{}{}
				attempts.Add(1)
				go func() {
					defer attempts.Done()
					results <- result{q.attempt(ctx, d), org}
				}()
			}
		}
		if claimed > 0 && claimed == free {
			continue // more may be due
		}
		// A delivery due already but not claimed waits for a slot: every
		// slot is busy, or its organization has its share in flight (the
		// claim takes every other due delivery). A freed slot wakes the
		// loop; re-reading the queue meanwhile would spin.
		wait := q.poll
		if at, ok, err := q.nextAt(ctx); err == nil && ok {
			if d := at.Sub(q.now()); d > 0 && d < wait {
				wait = d
			}
		}
		timer := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			timer.Stop()
			return
		case <-q.wake:
		case <-freed:
		case <-timer.C:
		}
		timer.Stop()
	}
}

// orDefaults fills in what a worker's constructor was given as nil: the
// default Doer, the wall clock, a logger that discards.
func orDefaults(doer Doer, now func() time.Time, log *slog.Logger) (Doer, func() time.Time, *slog.Logger) {
	if doer == nil {
		doer = DefaultDoer()
	}
	if now == nil {
		now = time.Now
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return doer, now, log
}
