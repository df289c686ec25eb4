package delivery

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"time"

	"docsapi/fetch"
	"docsapi/storage"
)

// WebhookPolicy is how webhook deliveries are attempted.
type WebhookPolicy struct {
	Timeout    time.Duration // per attempt
	Backoff    time.Duration // the wait after the first failed attempt; doubles each time
	MaxBackoff time.Duration
	// RetryFor is how long a delivery is retried after it was queued (or
	// replayed); the attempt that finds it older fails it.
	RetryFor time.Duration
	// DisableAfter is how long an endpoint's attempts may fail without one
	// success before the endpoint is disabled.
	DisableAfter time.Duration
	Concurrency  int // attempts in flight at once
	// PerOrganization is the most of them one organization may hold (its
	// backlog or slow receivers leave the other slots to the others); 0:
	// a quarter of Concurrency.
	PerOrganization int
	Poll            time.Duration
}

// DefaultWebhookPolicy: 10 s per attempt; retries after about 30 s, 1 min,
// 2 min, ... up to 1 h apart (each wait jittered down by up to half), for
// 24 hours; an endpoint failing for 24 hours is disabled. 16 attempts in
// flight, at most 4 of one organization.
var DefaultWebhookPolicy = WebhookPolicy{Timeout: 10 * time.Second, Backoff: 30 * time.Second, MaxBackoff: time.Hour,
	RetryFor: 24 * time.Hour, DisableAfter: 24 * time.Hour, Concurrency: 16, PerOrganization: 4, Poll: 5 * time.Second}

// perOrganization is the policy's share of one organization.
func (p WebhookPolicy) perOrganization() int {
	if p.PerOrganization > 0 {
		return min(p.PerOrganization, max(p.Concurrency, 1))
	}
	return max(p.Concurrency/4, 1)
}

// WebhookWorker drains the webhook outbox (storage/webhooks.go) with the
// same loop, Doer and signatures as integration deliveries.
type WebhookWorker struct {
	Store  storage.WebhookDeliveries
	Doer   Doer
	Now    func() time.Time
	Log    *slog.Logger
	Policy WebhookPolicy
	// Jitter returns a number in [0, 1); the wait before a retry is
	// reduced by up to half of it (rand.Float64 unless a test sets it).
	Jitter func() float64

	wake chan struct{}
}

// NewWebhookWorker builds a worker with DefaultWebhookPolicy; doer nil
// means DefaultDoer.
func NewWebhookWorker(store storage.WebhookDeliveries, doer Doer, now func() time.Time, log *slog.Logger) *WebhookWorker {
	doer, now, log = orDefaults(doer, now, log)
	return &WebhookWorker{Store: store, Doer: doer, Now: now, Log: log, Policy: DefaultWebhookPolicy, Jitter: rand.Float64,
		wake: make(chan struct{}, 1)}
}

// Notify tells the worker that deliveries were queued (it never blocks).
func (w *WebhookWorker) Notify() {
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// RunOnce makes one attempt of every delivery due now (up to limit).
func (w *WebhookWorker) RunOnce(ctx context.Context, limit int) (int, error) {
	return runOnce(ctx, w.queue(), limit)
}

// Drain runs RunOnce until nothing is due now.
func (w *WebhookWorker) Drain(ctx context.Context) (int, error) { return drain(ctx, w.queue()) }

// Run is the background loop; it returns when ctx is cancelled.
func (w *WebhookWorker) Run(ctx context.Context) { runQueue(ctx, w.queue()) }

func (w *WebhookWorker) queue() queue[storage.WebhookAttempt, storage.WebhookOutcome] {
	return queue[storage.WebhookAttempt, storage.WebhookOutcome]{
		claim: func(ctx context.Context, limit int, inFlight map[string]int) ([]storage.WebhookAttempt, error) {
			c := storage.WebhookClaim{Limit: limit}
			if inFlight != nil { // the background loop: shares by organization
				c.PerOrganization, c.InFlight = w.Policy.perOrganization(), inFlight
			}
			return w.Store.ClaimWebhookDeliveries(ctx, w.Now(), w.Policy.Timeout+30*time.Second, c)
		},
		orgOf:   func(a storage.WebhookAttempt) string { return a.OrganizationID },
		attempt: w.attempt,
		finish: func(ctx context.Context, outcomes []storage.WebhookOutcome) error {
			return w.Store.FinishWebhookDeliveries(ctx, outcomes, w.Policy.DisableAfter)
		},
		nextAt: w.Store.NextWebhookDeliveryAt,
		now:    w.Now, wake: w.wake, log: w.Log,
		concurrency: w.Policy.Concurrency, poll: w.Policy.Poll,
	}
}

// RetryWait is the wait after the given (1-based) failed attempt: the
// exponential backoff reduced by up to half at random, so endpoints that
// failed together are not retried together.
func (w *WebhookWorker) RetryWait(attempt int) time.Duration {
	d := Backoff(w.Policy.Backoff, w.Policy.MaxBackoff, attempt)
	return d - time.Duration(w.Jitter()*float64(d/2))
}

// attempt sends one delivery and says what to record.
func (w *WebhookWorker) attempt(ctx context.Context, d storage.WebhookAttempt) storage.WebhookOutcome {
	now := w.Now()
	o := storage.WebhookOutcome{WebhookID: d.WebhookID, EventID: d.EventID, At: now}
	if !d.Active {
		o.Status, o.Error = "failed", "the endpoint is inactive: not sent"
		return o
	}
	res, err := Send(ctx, w.Doer, now, w.Policy.Timeout, Request{
		URL: d.URL, Secret: d.Secret, PreviousSecret: d.PreviousSecret, UserAgent: "docsapi-webhooks/1",
		EventID: d.EventID, EventType: d.Type, Attempt: d.Attempt, Body: d.Payload,
	})
	o.Sent, o.ResponseStatus, o.Duration = true, res.Status, res.Duration
	switch {
	case err != nil && ctx.Err() != nil:
		// Shutting down: due again at once, so the next start retries it.
		return storage.WebhookOutcome{WebhookID: d.WebhookID, EventID: d.EventID, At: now, RetryAt: now, Error: "interrupted by shutdown"}
	case errors.As(err, new(*fetch.BlockedError)):
		// The fetch guard refuses the address: retrying would not change that.
		o.Status, o.Error = "failed", err.Error()+" (refused by the fetch guard; not retried)"
		return o
	case err != nil:
		o.Error = err.Error()
	case res.Status >= 200 && res.Status < 300:
		o.Status = "succeeded"
		return o
	case res.Status == 408 || res.Status == 429 || res.Status >= 500:
		o.Error = fmt.Sprintf("HTTP %d %s", res.Status, snippet(res.Body))
	default:
		// The receiver refused the event: retrying would not change that.
		o.Status, o.Error = "failed", fmt.Sprintf("HTTP %d %s (refused; not retried)", res.Status, snippet(res.Body))
		return o
	}
	if now.Sub(d.QueuedAt) >= w.Policy.RetryFor {
		o.Status, o.Error = "failed", o.Error+fmt.Sprintf(" (gave up after %d attempts over %s)", d.Attempt, w.Policy.RetryFor)
		return o
	}
	o.RetryAt = now.Add(w.RetryWait(d.Attempt))
	return o
}
