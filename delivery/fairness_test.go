package delivery_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"docsapi/delivery"
	"docsapi/storage"
	"docsapi/storage/storagetest"
)

// fairnessBound is how long another organization's delivery may wait while
// one organization floods the webhook queue with slow receivers: its
// delivery is due at once and a slot is free (the flood holds its share).
const fairnessBound = 2 * time.Second

// One organization floods the outbox: 20 endpoints on a receiver that
// answers only when the attempt's deadline passes, 100 deliveries due.
// Another organization's delivery to a fast receiver goes out within
// fairnessBound, and the flood never holds more than its share of slots.
// (Before the fair claim the flood took all 16 slots, 5 s each here, for
// 100/16 rounds: the other delivery waited about 30 s.)
func TestWebhookFairnessUnderFlood(t *testing.T) {
	if testing.Short() {
		t.Skip("waits for slow receivers")
	}
	db, err := storage.Open(storagetest.Target(t), storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	ctx := context.Background()

	var inFlight, most atomic.Int32
	release := make(chan struct{})
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := inFlight.Add(1)
		defer inFlight.Add(-1)
		for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
		}
		io.Copy(io.Discard, r.Body)
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	var once sync.Once
	stopSlow := func() { once.Do(func() { close(release) }) }
	t.Cleanup(slow.Close)
	t.Cleanup(stopSlow)
	got := make(chan time.Time, 4)
	fast := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		got <- time.Now()
	}))
	t.Cleanup(fast.Close)

	org := func(name, url string, hooks int) (string, []string) {
		b, err := db.CreateOrganizationWithAdmin(ctx, name, name+"@x.test", name, "hash-"+name)
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for range hooks {
			w := storage.Webhook{OrganizationID: b.Organization.ID, URL: url, Events: []string{"space.created"}, Active: true, Secret: "whsec_k"}
			if err := db.CreateWebhook(ctx, &w); err != nil {
				t.Fatal(err)
			}
			ids = append(ids, w.ID)
		}
		return b.Organization.ID, ids
	}
	flood, floodHooks := org("flood", slow.URL, 20)
	quiet, quietHooks := org("quiet", fast.URL, 1)
	for range 5 {
		for _, h := range floodHooks {
			if _, err := db.QueueWebhookPing(ctx, flood, h); err != nil {
				t.Fatal(err)
			}
		}
	}

	w := delivery.NewWebhookWorker(db, &http.Client{}, nil, nil)
	w.Policy.Timeout, w.Policy.Poll = 5*time.Second, 5*time.Second
	db.OnWebhooksQueued(w.Notify)
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { defer close(done); w.Run(runCtx) }()
	t.Cleanup(func() { stopSlow(); stop(); <-done })

	// The flood's attempts are under way...
	for deadline := time.Now().Add(5 * time.Second); inFlight.Load() < 4; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the flood's attempts did not start: %d in flight", inFlight.Load())
		}
	}
	// ... when the other organization's event is queued.
	start := time.Now()
	if _, err := db.QueueWebhookPing(ctx, quiet, quietHooks[0]); err != nil {
		t.Fatal(err)
	}
	select {
	case at := <-got:
		t.Logf("the other organization's delivery went out after %v (bound %v); the flood held at most %d attempts at once",
			at.Sub(start).Round(time.Millisecond), fairnessBound, most.Load())
		if at.Sub(start) > fairnessBound {
			t.Errorf("the other organization's delivery waited %v, more than %v", at.Sub(start), fairnessBound)
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("the other organization's delivery had not gone out after 30 s")
	}
	if m := most.Load(); m > int32(delivery.DefaultWebhookPolicy.PerOrganization) {
		t.Errorf("the flood held %d attempts at once, more than its share of %d", m, delivery.DefaultWebhookPolicy.PerOrganization)
	}
}
