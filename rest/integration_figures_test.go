package rest_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"sort"
	"sync/atomic"
	"testing"
	"time"

	"docsapi/apitest"
	"docsapi/storage"
)

// TestDeliveryFigures measures event delivery throughput and the latency
// of installation updates while the tunnel is slow. It runs only with
// DOCSAPI_FIGURES=1 (go test ./rest -run Figures -v) and logs the figures.
func TestDeliveryFigures(t *testing.T) {
	if os.Getenv("DOCSAPI_FIGURES") == "" {
		t.Skip("set DOCSAPI_FIGURES=1 to measure")
	}
	t.Run("throughput", func(t *testing.T) {
		env := apitest.New(t)
		publish(env, env.Admin, "chat", env.Org, nil)
		var got atomic.Int64
		const n = 5000
		done := make(chan struct{})
		tunnel := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if got.Add(1) == n {
				close(done)
			}
		}))
		defer tunnel.Close()
		env.Must(204, "PUT", "/v1/integrations/chat/dev", env.Admin.Token, map[string]any{"tunnelUrl": tunnel.URL})
		it, _ := env.DB.IntegrationByName(context.Background(), "chat", "")
		var evs []storage.NewEvent
		for range n {
			evs = append(evs, storage.NewEvent{ID: storage.NewID(), IntegrationID: it.ID, OrganizationID: env.Org, Type: "installation_setup",
				Payload: []byte(`{"type":"installation_setup"}`), Status: "pending", Deliver: true})
		}
		if err := env.DB.RecordEvents(context.Background(), evs...); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		stopped := make(chan struct{})
		start := time.Now()
		go func() { env.Server.Resolver.Deliveries.Run(ctx); close(stopped) }()
		select {
		case <-done:
		case <-time.After(5 * time.Minute):
			t.Fatalf("delivered %d of %d", got.Load(), n)
		}
		d := time.Since(start)
		cancel()
		<-stopped
		t.Logf("FIGURE delivery throughput: %d events in %s = %.0f events/s (concurrency %d)", n, d.Round(time.Millisecond),
			float64(n)/d.Seconds(), env.Server.Resolver.Deliveries.Policy.Concurrency)
	})
	t.Run("update latency with a slow tunnel", func(t *testing.T) {
		env := apitest.New(t)
		publish(env, env.Admin, "chat", env.Org, nil)
		id := install(env, env.Admin, "chat", env.Org)
		patch := func(k int) time.Duration {
			start := time.Now()
			env.Must(200, "PATCH", "/v1/integrations/chat/installations/"+id, env.Admin.Token, map[string]any{"externalIds": []string{fmt.Sprint(k)}})
			return time.Since(start)
		}
		const n = 300
		base := make([]time.Duration, n)
		for k := range n {
			base[k] = patch(k)
		}
		var arrived atomic.Int64
		tunnel := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			arrived.Add(1)
			select { // the slow tunnel: two seconds per event
			case <-time.After(2 * time.Second):
			case <-r.Context().Done():
			}
		}))
		defer tunnel.Close()
		env.Must(204, "PUT", "/v1/integrations/chat/dev", env.Admin.Token, map[string]any{"tunnelUrl": tunnel.URL})
		ctx, cancel := context.WithCancel(context.Background())
		stopped := make(chan struct{})
		go func() { env.Server.Resolver.Deliveries.Run(ctx); close(stopped) }()
		slow := make([]time.Duration, n)
		for k := range n {
			slow[k] = patch(k)
		}
		inFlight := arrived.Load()
		cancel()
		<-stopped
		q := func(ds []time.Duration) string {
			s := append([]time.Duration(nil), ds...)
			sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
			at := func(p float64) time.Duration { return s[int(p*float64(len(s)-1))].Round(10 * time.Microsecond) }
			return fmt.Sprintf("p50 %s, p95 %s, p99 %s, max %s", at(.5), at(.95), at(.99), at(1))
		}
		t.Logf("FIGURE PATCH installation latency, dev mode off: %s", q(base))
		t.Logf("FIGURE PATCH installation latency, 2s tunnel, %d deliveries reached it meanwhile: %s", inFlight, q(slow))
	})
}
