package openapi

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"docsapi/auth"
	"docsapi/fetch"
	"docsapi/storage"
	"docsapi/storage/storagetest"
)

// fairnessBound is how long another organization's small spec may take
// while one organization floods the queue with slow specs: with one worker
// always left to others, it is claimed at once and parsed in milliseconds.
const fairnessBound = 2 * time.Second

func newQueueDB(t *testing.T) (*storage.DB, func(title string) string) {
	t.Helper()
	db, err := storage.Open(storagetest.Target(t), storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	n := 0
	org := func(title string) string {
		n++
		_, hash := auth.NewToken()
		boot, err := db.CreateOrganizationWithAdmin(context.Background(), title, fmt.Sprintf("admin%d@example.com", n), "admin", hash)
		if err != nil {
			t.Fatal(err)
		}
		return boot.Organization.ID
	}
	return db, org
}

// slowSpecServer answers a valid spec after delay, or when the test ends.
func slowSpecServer(t *testing.T, delay time.Duration) *httptest.Server {
	done := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-time.After(delay):
		case <-done:
		case <-r.Context().Done():
		}
		w.Write([]byte(`{"openapi":"3.0.3","info":{"title":"slow","version":"1"},"paths":{}}`))
	}))
	t.Cleanup(func() { close(done); srv.Close() })
	return srv
}

func TestOpenAPIQueueIsFairAcrossOrganizations(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	db, newOrg := newQueueDB(t)
	flooder, other := newOrg("Flooder"), newOrg("Other")
	slow := slowSpecServer(t, time.Minute)
	for i := range 20 {
		if _, err := db.CreateOpenAPISpec(ctx, flooder, fmt.Sprintf("slow-%d", i), storage.OpenAPISource{URL: slow.URL}); err != nil {
			t.Fatal(err)
		}
	}
	var mu sync.Mutex
	finished := map[string]time.Time{}
	p := &Processor{Queue: db, Fetch: fetch.New(fetch.Options{AllowPrivate: true, Timeout: 2 * time.Minute}),
		Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Workers: 4, JobTimeout: time.Minute,
		After: func(r Result) {
			mu.Lock()
			finished[r.Slug] = time.Now()
			mu.Unlock()
		}}
	wake := make(chan struct{}, 1)
	go p.Run(ctx, wake)
	// The flooder's runs take the workers it may have (all but one).
	deadline := time.Now().Add(5 * time.Second)
	for {
		n := countInProgress(t, db, flooder)
		if n == p.Workers-1 {
			break
		}
		if n > p.Workers-1 {
			t.Fatalf("one organization holds %d of %d workers", n, p.Workers)
		}
		if time.Now().After(deadline) {
			t.Fatalf("the flooder's runs did not start (%d in progress)", n)
		}
		time.Sleep(20 * time.Millisecond)
	}
	start := time.Now()
	if _, err := db.CreateOpenAPISpec(ctx, other, "small", storage.OpenAPISource{Text: `{"openapi":"3.0.3","info":{"title":"small","version":"1"},"paths":{}}`}); err != nil {
		t.Fatal(err)
	}
	wake <- struct{}{}
	for {
		mu.Lock()
		at, ok := finished["small"]
		mu.Unlock()
		if ok {
			t.Logf("the other organization's spec was processed in %v while 20 slow specs of another waited", at.Sub(start))
			break
		}
		if time.Since(start) > fairnessBound {
			t.Fatalf("the other organization's spec is not processed after %v", fairnessBound)
		}
		time.Sleep(10 * time.Millisecond)
	}
	s, err := db.OpenAPISpec(ctx, other, "small")
	if err != nil || s.LastVersion == nil {
		t.Fatalf("no version: %+v %v", s, err)
	}
}

// countInProgress is the organization's specs in progress.
func countInProgress(t *testing.T, db *storage.DB, org string) int {
	t.Helper()
	page, err := db.ListOpenAPISpecs(context.Background(), org, storage.PageQuery{Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, s := range page.Items {
		if s.State == "progress" {
			n++
		}
	}
	return n
}

func TestOpenAPIRunDeadline(t *testing.T) {
	ctx := context.Background()
	db, newOrg := newQueueDB(t)
	org := newOrg("Acme")
	slow := slowSpecServer(t, time.Minute)
	if _, err := db.CreateOpenAPISpec(ctx, org, "slow", storage.OpenAPISource{URL: slow.URL}); err != nil {
		t.Fatal(err)
	}
	var res Result
	p := &Processor{Queue: db, Fetch: fetch.New(fetch.Options{AllowPrivate: true, Timeout: time.Minute}),
		Log: slog.New(slog.NewTextHandler(io.Discard, nil)), JobTimeout: 300 * time.Millisecond,
		After: func(r Result) { res = r }}
	start := time.Now()
	if n, err := p.RunPending(ctx); err != nil || n != 1 {
		t.Fatalf("%d runs, %v", n, err)
	}
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("the run took %v, over its 300ms deadline", took)
	}
	// Failed for good, not released to take a worker again.
	if res.Released || res.ErrorCode != CodeFetchTimeout {
		t.Fatalf("%+v", res)
	}
	s, err := db.OpenAPISpec(ctx, org, "slow")
	if err != nil || s.State == "pending" || s.LastErrorMessage == nil {
		t.Fatalf("%+v %v", s, err)
	}
	t.Logf("%s: %s", *s.LastErrorCode, *s.LastErrorMessage)
}

// With one worker, organizations take turns: another organization's spec
// is the next run after the one in progress, ahead of the backlog.
func TestOpenAPIQueueTakesTurnsWithOneWorker(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	db, newOrg := newQueueDB(t)
	flooder, other := newOrg("Flooder"), newOrg("Other")
	slow := slowSpecServer(t, 300*time.Millisecond)
	for i := range 5 {
		if _, err := db.CreateOpenAPISpec(ctx, flooder, fmt.Sprintf("slow-%d", i), storage.OpenAPISource{URL: slow.URL}); err != nil {
			t.Fatal(err)
		}
	}
	var mu sync.Mutex
	var order []string
	p := &Processor{Queue: db, Fetch: fetch.New(fetch.Options{AllowPrivate: true, Timeout: time.Minute}),
		Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Workers: 1,
		After: func(r Result) {
			mu.Lock()
			order = append(order, r.Slug)
			mu.Unlock()
		}}
	wake := make(chan struct{}, 1)
	go p.Run(ctx, wake)
	for countInProgress(t, db, flooder) == 0 {
		time.Sleep(10 * time.Millisecond)
	}
	if _, err := db.CreateOpenAPISpec(ctx, other, "small", storage.OpenAPISource{Text: `{"openapi":"3.0.3","info":{"title":"small","version":"1"},"paths":{}}`}); err != nil {
		t.Fatal(err)
	}
	wake <- struct{}{}
	deadline := time.Now().Add(10 * time.Second)
	for {
		mu.Lock()
		done := len(order)
		got := append([]string(nil), order...)
		mu.Unlock()
		if done >= 2 {
			if got[1] != "small" {
				t.Fatalf("runs in order %v: the other organization's spec waited behind the backlog", got)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("runs so far: %v", got)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
