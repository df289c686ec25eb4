package server_test

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"docsapi/apitest"
	"docsapi/server"
)

// BenchmarkGetOrganization measures the hot path in process (no network):
// a cached token, metrics, and the weak ETag, with and without rate limits.
func BenchmarkGetOrganization(b *testing.B) {
	for _, bc := range []struct {
		name  string
		limit int
	}{{"limits-off", 0}, {"limits-on", 1 << 30}} {
		b.Run(bc.name, func(b *testing.B) {
			env := apitest.New(b, apitest.Options{Config: func(c *server.Config) {
				c.RateLimit, c.RateLimitAnonymous, c.RateLimitWindow = bc.limit, bc.limit, time.Minute
			}})
			req := httptest.NewRequest("GET", "/v1/orgs/"+env.Org, nil)
			req.Header.Set("Authorization", "Bearer "+env.Admin.Token)
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				w := httptest.NewRecorder()
				env.Server.ServeHTTP(w, req)
				if w.Code != http.StatusOK {
					b.Fatal(w.Code)
				}
			}
		})
	}
}

// BenchmarkMiddleware is the cost of the middleware alone (/healthz does no
// work): request id, logging and metrics, recovery, body limit, token
// lookup (cached) and rate limit.
func BenchmarkMiddleware(b *testing.B) {
	env := apitest.New(b, apitest.Options{Config: func(c *server.Config) {
		c.RateLimit, c.RateLimitAnonymous, c.RateLimitWindow = 1<<30, 1<<30, time.Minute
	}})
	req := httptest.NewRequest("GET", "/healthz", nil)
	req.Header.Set("Authorization", "Bearer "+env.Admin.Token)
	b.ReportAllocs()
	for b.Loop() {
		env.Server.ServeHTTP(httptest.NewRecorder(), req)
	}
}
