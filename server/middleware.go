package server

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"net/http"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"

	"docsapi/apierr"
	"docsapi/graph"
	"docsapi/importer"
	"docsapi/rest"
)

// NoSniff makes browsers take every answer's Content-Type as given (no
// guessing HTML or script out of JSON, a downloaded file or an error).
// First in the chain, so even panics, 404s and 405s carry it.
func NoSniff(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header()["X-Content-Type-Options"] = nosniff
		next.ServeHTTP(w, r)
	})
}

// nosniff is the header's value, one slice for every answer (see
// rest.jsonContentType).
var nosniff = []string{"nosniff"}

// requestID takes the caller's X-Request-Id (when sane) or makes one, puts
// it in the context and echoes it on the response.
func requestID(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := r.Header.Get("X-Request-Id")
		if id == "" || len(id) > 128 {
			id = newRequestID()
		}
		w.Header().Set("X-Request-Id", id)
		// One context value carries the id and the request (audit.go).
		next.ServeHTTP(w, r.WithContext(&requestContext{Context: r.Context(), id: id, req: r}))
	})
}

// requestIDs are a random per-process prefix and a counter: unique without
// reading crypto/rand on every request (ids identify, they guard nothing).
var (
	requestIDPrefix = func() (p [8]byte) {
		var b [4]byte
		rand.Read(b[:])
		hex.Encode(p[:], b[:])
		return p
	}()
	requestIDCount atomic.Uint32
)

// newRequestID is 16 hex digits: the prefix, then the counter's low 32 bits.
func newRequestID() string {
	var b [16]byte
	copy(b[:8], requestIDPrefix[:])
	n := requestIDCount.Add(1)
	const digits = "0123456789abcdef"
	for i := 15; i >= 8; i-- {
		b[i] = digits[n&15]
		n >>= 4
	}
	return string(b[:])
}

// observeRequests writes one structured line per request (method, route
// pattern, status, duration, request id) and records it in the metrics.
// Requests answered before routing (rate limited, preflight, unknown
// paths) have the route "(none)" in the metrics, keeping series bounded.
func (s *Server) observeRequests(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		ww := middleware.NewWrapResponseWriter(w, r.ProtoMajor)
		next.ServeHTTP(ww, r)
		took := time.Since(start)
		status := ww.Status()
		if status == 0 {
			status = http.StatusOK // the handler wrote nothing
		}
		route, label := r.URL.Path, "(none)"
		if p := routePatterns.of(chi.RouteContext(r.Context())); p != "" {
			route, label = p, p
		}
		s.Metrics.ObserveRequest(r.Method, label, status, took)
		if status >= 400 {
			s.Metrics.CountError("http", (&apierr.Error{Status: status}).Code())
		}
		if !s.Log.Enabled(r.Context(), slog.LevelInfo) { // --log-level warn: metrics only
			return
		}
		s.Log.LogAttrs(r.Context(), slog.LevelInfo, "request",
			slog.String("method", r.Method), slog.String("route", route), slog.Int("status", status),
			slog.Duration("duration", took), slog.String("request_id", middleware.GetReqID(r.Context())))
	})
}

// routePatterns keeps chi's RoutePattern (the joined patterns of the
// routers a request went through, wildcards removed: two string builds)
// by the patterns it joins: the router's own strings, so the map holds at
// most one entry per route.
var routePatterns = routePatternCache{m: map[[3]string]string{}}

type routePatternCache struct {
	mu sync.RWMutex
	m  map[[3]string]string
}

func (c *routePatternCache) of(rc *chi.Context) string {
	if rc == nil {
		return ""
	}
	if len(rc.RoutePatterns) > 3 {
		return rc.RoutePattern()
	}
	var k [3]string // joined, an empty string adds nothing: shorter lists fit
	copy(k[:], rc.RoutePatterns)
	c.mu.RLock()
	p, ok := c.m[k]
	c.mu.RUnlock()
	if !ok {
		p = rc.RoutePattern()
		c.mu.Lock()
		if len(c.m) < 4096 {
			c.m[k] = p
		}
		c.mu.Unlock()
	}
	return p
}

// recoverPanics turns a panic into a logged 500 carrying the request id.
func (s *Server) recoverPanics(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			if p := recover(); p != nil {
				if p == http.ErrAbortHandler {
					panic(p)
				}
				id := middleware.GetReqID(r.Context())
				s.Log.Error("panic", "request_id", id, "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
				rest.WriteError(w, r, nil, apierr.New(http.StatusInternalServerError, "internal error (request id %s)", id))
			}
		}()
		next.ServeHTTP(w, r)
	})
}

// limitBody caps request bodies; reading past the cap gives a 413.
func (s *Server) limitBody(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		limit := s.Config.MaxBodyBytes
		if strings.HasPrefix(r.URL.Path, "/uploads/") {
			limit = s.Config.UploadMaxBytes // the signed URL bounds it further to its file's size
		}
		if r.ContentLength > limit {
			rest.WriteError(w, r, nil, apierr.New(http.StatusRequestEntityTooLarge, "request body is larger than %d bytes", limit))
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, limit)
		next.ServeHTTP(w, r)
	})
}

// requestDeadline ends every request's context after Config.RequestTimeout
// (imports and GraphQL, which may carry an import: plus the import
// timeout), so that no handler's work outlives its request; a handler
// whose context ended that way answers 503 naming the limit (see
// apierr.Ended). Reading the body has the same deadline: a client sending
// its body a byte at a time does not hold a handler (or a stopping process)
// for ever. First in the chain after NoSniff, so every layer's context
// (requestID's among them) derives from it.
func (s *Server) requestDeadline(next http.Handler) http.Handler {
	short := s.Config.RequestTimeout
	shortCause := apierr.Unavailable(0, "the request took longer than the server's limit of %s", short)
	long, longCause := s.graphQLTimeout()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if isLiveRequest(r) {
			// A subscription lasts as long as its client: bounded by
			// keepalive and its limits (live.go), not by a deadline.
			next.ServeHTTP(w, r)
			return
		}
		d, cause := short, shortCause
		if longRequest(r) {
			d, cause = long, longCause
		}
		ctx, cancel := context.WithTimeoutCause(r.Context(), d, cause)
		defer cancel()
		if r.Body != nil && r.Body != http.NoBody {
			// Only while a body is read: net/http clears the deadline at its
			// end, and a deadline set during the background read it starts
			// for requests without a body would end their context at once.
			// An error: the writer cannot (tests' recorders).
			http.NewResponseController(w).SetReadDeadline(time.Now().Add(d))
		}
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}

// graphQLTimeout is the deadline of a long request (a GraphQL operation,
// an import): the request timeout plus the import timeout, and the error
// its context ends with.
func (s *Server) graphQLTimeout() (time.Duration, *apierr.Error) {
	importTimeout := s.Config.ImportTimeout
	if importTimeout <= 0 {
		importTimeout = importer.DefaultLimits.Timeout
	}
	long := s.Config.RequestTimeout + importTimeout
	return long, apierr.Unavailable(0, "the request took longer than the server's limit of %s", long)
}

// longRequest tells the requests that may legitimately run for the import
// timeout: content imports (a website crawl) and GraphQL operations (which
// may be an importContent).
func longRequest(r *http.Request) bool {
	if r.Method == http.MethodPut && strings.HasPrefix(r.URL.Path, "/uploads/") {
		return true // a file of up to --upload-max-bytes on its way in
	}
	if r.Method != http.MethodPost {
		return false
	}
	return r.URL.Path == "/graphql" || r.URL.Path == "/graphql/" || strings.HasSuffix(r.URL.Path, "/import")
}

// headAsGet routes HEAD as GET: HEAD is a read (the README counts it as
// one), so every GET route, GraphQL's included, answers it with the GET's
// status and headers; net/http sends no body for a HEAD, whatever the
// handler writes. Last before routing, so the request log and metrics
// still say HEAD.
func headAsGet(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodHead {
			r = r.Clone(r.Context())
			r.Method = http.MethodGet
		}
		next.ServeHTTP(w, r)
	})
}

// shareLinkPassword hands the share link password header to the resolvers,
// which check it wherever a share key is used (REST and GraphQL alike).
func shareLinkPassword(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if p := r.Header.Get(graph.ShareLinkPasswordHeader); p != "" {
			r = r.WithContext(graph.WithShareLinkPassword(r.Context(), p))
		}
		next.ServeHTTP(w, r)
	})
}
