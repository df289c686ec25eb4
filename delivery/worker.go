package delivery

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"sort"
	"strings"
	"time"

	"docsapi/storage"
)

// Policy is how deliveries are attempted.
type Policy struct {
	Timeout     time.Duration // per attempt
	MaxAttempts int           // attempts before an event is failed
	Backoff     time.Duration // wait before the 2nd attempt; doubles each time
	MaxBackoff  time.Duration
	Concurrency int           // attempts in flight at once
	Poll        time.Duration // how often the queue is re-read when idle (other processes may enqueue)
}

// DefaultPolicy: 10s per attempt, 5 attempts over about 15 seconds of
// backoff (1s, 2s, 4s, 8s), 32 attempts in flight.
var DefaultPolicy = Policy{Timeout: 10 * time.Second, MaxAttempts: 5, Backoff: time.Second, MaxBackoff: time.Minute, Concurrency: 32, Poll: time.Second}

// Worker drains the persistent delivery queue. Every attempt and the outcome
// land in the event's trace and status. The queue is in the database, so
// pending deliveries survive a restart; a delivery whose attempt was cut off
// by a crash is retried when its lease runs out.
type Worker struct {
	Store  storage.Deliveries
	Doer   Doer
	Now    func() time.Time
	Log    *slog.Logger
	Policy Policy

	wake chan struct{}
}

// NewWorker builds a worker with DefaultPolicy; doer nil means DefaultDoer.
func NewWorker(store storage.Deliveries, doer Doer, now func() time.Time, log *slog.Logger) *Worker {
	doer, now, log = orDefaults(doer, now, log)
	return &Worker{Store: store, Doer: doer, Now: now, Log: log, Policy: DefaultPolicy, wake: make(chan struct{}, 1)}
}

// Notify tells the worker that deliveries were queued (it never blocks).
func (w *Worker) Notify() {
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

func (w *Worker) lease() time.Duration { return w.Policy.Timeout + 30*time.Second }

// RunOnce makes one attempt of every delivery due now (up to limit) and
// waits for all of them: the deterministic step tests drive.
func (w *Worker) RunOnce(ctx context.Context, limit int) (int, error) {
	return runOnce(ctx, w.queue(), limit)
}

// Drain runs RunOnce until nothing is due now.
func (w *Worker) Drain(ctx context.Context) (int, error) { return drain(ctx, w.queue()) }

// Run is the background loop (see runQueue). It returns when ctx is
// cancelled and the attempts in flight have been recorded.
func (w *Worker) Run(ctx context.Context) { runQueue(ctx, w.queue()) }

func (w *Worker) queue() queue[storage.Delivery, storage.DeliveryOutcome] {
	return queue[storage.Delivery, storage.DeliveryOutcome]{
		claim: func(ctx context.Context, limit int, _ map[string]int) ([]storage.Delivery, error) {
			return w.Store.ClaimDeliveries(ctx, w.Now(), w.lease(), limit)
		},
		attempt: w.attempt,
		finish:  w.Store.FinishDeliveries,
		nextAt:  w.Store.NextDeliveryAt,
		now:     w.Now, wake: w.wake, log: w.Log,
		concurrency: w.Policy.Concurrency, poll: w.Policy.Poll,
	}
}

// attempt makes one delivery attempt and says what to record.
func (w *Worker) attempt(ctx context.Context, d storage.Delivery) storage.DeliveryOutcome {
	now := w.Now()
	o := storage.DeliveryOutcome{EventID: d.EventID, Attempt: d.Attempt}
	log := func(level, format string, args ...any) {
		o.Logs = append(o.Logs, storage.LogLine{Level: level, Message: fmt.Sprintf(format, args...), At: w.Now()})
	}
	if d.TunnelURL == nil {
		log("error", "development mode was turned off before delivery: no runtime to deliver to")
		o.Status = "failed"
		return o
	}
	res, err := Send(ctx, w.Doer, now, w.Policy.Timeout, Request{
		URL: *d.TunnelURL, Secret: d.Secret, Integration: d.IntegrationName, EventID: d.EventID, EventType: d.Type,
		Attempt: d.Attempt, Body: d.Payload, CSP: CSPHeader(d.CSP),
	})
	of := fmt.Sprintf("%d/%d", d.Attempt, w.Policy.MaxAttempts)
	retry := false
	switch {
	case err != nil && ctx.Err() != nil:
		// Shutting down: due again at once, so the next start retries it.
		log("warn", "delivery attempt %s to %s interrupted by shutdown; retried at the next start", of, *d.TunnelURL)
		o.RetryAt = now
		return o
	case err != nil:
		log("warn", "delivery attempt %s to %s failed: %v", of, *d.TunnelURL, err)
		retry = true
	case res.Status >= 200 && res.Status < 300:
		log("info", "delivery attempt %s to %s: HTTP %d in %s", of, *d.TunnelURL, res.Status, res.Duration.Round(time.Millisecond))
		o.Status = "success"
		return o
	case res.Status == 408 || res.Status == 425 || res.Status == 429 || res.Status >= 500:
		log("warn", "delivery attempt %s to %s: HTTP %d %s", of, *d.TunnelURL, res.Status, snippet(res.Body))
		retry = true
	default:
		log("error", "delivery attempt %s to %s: HTTP %d %s (the runtime refused the event; not retried)", of, *d.TunnelURL, res.Status, snippet(res.Body))
		o.Status = "failed"
		return o
	}
	if retry && d.Attempt < w.Policy.MaxAttempts {
		wait := w.backoff(d.Attempt)
		log("info", "retrying in %s", wait)
		o.RetryAt = now.Add(wait)
		return o
	}
	log("error", "delivery failed after %d attempts", d.Attempt)
	o.Status = "failed"
	return o
}

// backoff is the wait after the given (1-based) failed attempt.
func (w *Worker) backoff(attempt int) time.Duration {
	return Backoff(w.Policy.Backoff, w.Policy.MaxBackoff, attempt)
}

// Backoff is exponential backoff: the wait after the given (1-based) failed
// attempt is base doubled attempt-1 times, at most limit.
func Backoff(base, limit time.Duration, attempt int) time.Duration {
	if attempt > 62 {
		return limit
	}
	d := base << (attempt - 1)
	if d <= 0 || d > limit {
		d = limit
	}
	return d
}

// CSPHeader turns a stored content security policy (a JSON string, or an
// object from directive to value) into a header value; "" when unset.
func CSPHeader(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var m map[string]string
	if json.Unmarshal(raw, &m) != nil {
		return ""
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		parts = append(parts, strings.TrimSpace(k+" "+m[k]))
	}
	return strings.Join(parts, "; ")
}
