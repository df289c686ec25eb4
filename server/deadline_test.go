package server

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"docsapi/apierr"
	"docsapi/rest"
)

// TestRequestDeadline: a handler's context ends at Config.RequestTimeout
// (imports and GraphQL: plus the import timeout), and a handler that
// returns its context's error answers 503 naming the limit, not a 500 or
// the silent 499 of a client that left.
func TestRequestDeadline(t *testing.T) {
	s := &Server{Config: Config{RequestTimeout: 50 * time.Millisecond, ImportTimeout: 200 * time.Millisecond}}
	// Measured from before the request enters the middleware, which starts
	// the deadline's clock: timed from inside the handler it can read a
	// little under the limit.
	var begin time.Time
	var took time.Duration
	h := s.requestDeadline(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		<-r.Context().Done()
		took = time.Since(begin)
		rest.WriteError(w, r, nil, r.Context().Err())
	}))
	for _, c := range []struct {
		method, path string
		limit        time.Duration
	}{
		{"GET", "/v1/orgs/x/spaces", 50 * time.Millisecond},
		{"POST", "/v1/spaces/x/content/import", 250 * time.Millisecond},
		{"POST", "/graphql", 250 * time.Millisecond},
	} {
		w := httptest.NewRecorder()
		req := httptest.NewRequest(c.method, c.path, nil)
		begin = time.Now()
		h.ServeHTTP(w, req)
		var body struct{ Error struct{ Message string } }
		json.Unmarshal(w.Body.Bytes(), &body)
		if w.Code != 503 || !strings.Contains(body.Error.Message, "limit of "+c.limit.String()) {
			t.Errorf("%s %s: %d %s", c.method, c.path, w.Code, w.Body)
		}
		if took < c.limit || took > c.limit+time.Second {
			t.Errorf("%s %s: context ended after %v, want %v", c.method, c.path, took, c.limit)
		}
	}
}

// TestRequestDeadlineGraphQL: GraphQL presents the deadline's end as REST
// does (503 naming the limit), not as an internal error.
func TestRequestDeadlineGraphQL(t *testing.T) {
	ctx, cancel := context.WithTimeoutCause(context.Background(), time.Millisecond, apierr.Unavailable(0, "the request took longer than the server's limit of 1ms"))
	defer cancel()
	<-ctx.Done()
	gerr := presentError(ctx, fmt.Errorf("resolving: %w", ctx.Err()))
	if gerr.Extensions["code"] != "UNAVAILABLE" || gerr.Extensions["status"] != 503 || !strings.Contains(gerr.Message, "limit of 1ms") {
		t.Fatalf("%v %v", gerr.Message, gerr.Extensions)
	}
}
