package server

import (
	"context"
	"math"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/go-chi/cors"
	"github.com/go-chi/httprate"

	"docsapi/apierr"
	"docsapi/auth"
	"docsapi/graph"
	"docsapi/rest"
	"docsapi/storage"
)

// identity is the outcome of resolving a request's bearer token, done once
// by identify so that the rate limiter can key on the token and
// authenticate does not look it up again.
type identity struct {
	caller auth.Caller
	err    error
}

type identityKey struct{}

// identify resolves the Authorization header when there is one. Known
// tokens are answered from the authenticator's cache. First it reads the
// storage counters for the whole request (storage.WithCounters): the token
// cache and every read cache after it are validated by that one reading.
func (s *Server) identify(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		state := requestState(r)
		if !unlimited[r.URL.Path] {
			if c, err := s.readCounters(r); err == nil {
				if state != nil {
					state.counters = c
				} else {
					r = r.WithContext(context.WithValue(r.Context(), storage.CountersKey, c))
				}
			}
		}
		if h := r.Header.Get("Authorization"); h != "" {
			c, err := s.Resolver.Auth.Authenticate(r.Context(), h)
			if state != nil {
				state.identity = identity{c, err}
			} else {
				r = r.WithContext(context.WithValue(r.Context(), identityKey{}, identity{c, err}))
			}
		}
		next.ServeHTTP(w, r)
	})
}

// readCounters reads the request's storage counters. A write about an
// organization named in its path (/v1/orgs/{id}/...) by a token already
// cached reads that organization and the token's user's membership in the
// same statement (storage.ReadCountersFor: on PostgreSQL one round trip
// instead of two, the change version moving at every commit of the
// installation). Reads keep the counters alone: between writes their
// organization comes from the cache.
func (s *Server) readCounters(r *http.Request) (*storage.Counters, error) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead && s.DB.ReadsOrgWithCounters() {
		if org := orgOfPath(r.URL.Path); org != "" {
			if user := s.Resolver.Auth.CachedUserID(r.Header.Get("Authorization")); user != "" {
				return s.DB.ReadCountersFor(r.Context(), org, user)
			}
		}
	}
	return s.DB.ReadCounters(r.Context())
}

// orgOfPath is the organization id of a /v1/orgs/{id}[/...] path, else "".
func orgOfPath(path string) string {
	rest, ok := strings.CutPrefix(path, "/v1/orgs/")
	if !ok {
		return ""
	}
	if i := strings.IndexByte(rest, '/'); i >= 0 {
		rest = rest[:i]
	}
	return rest
}

// authenticate requires a valid bearer token and puts the caller in the
// context for the resolvers; refusals are the REST error body. Operations
// declared public (GET /v1/openapi.json) need no token and ignore one.
func (s *Server) authenticate(next http.Handler) http.Handler {
	withToken := s.authenticateOr(next, func(w http.ResponseWriter, r *http.Request, err error) { rest.WriteError(w, r, s.Log, err) })
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if rest.IsPublic(r) {
			next.ServeHTTP(w, r)
			return
		}
		withToken.ServeHTTP(w, r)
	})
}

// authenticateGraphQL refuses like authenticate, with a GraphQL error body
// (same status, extensions.code UNAUTHENTICATED) that GraphQL clients read.
func (s *Server) authenticateGraphQL(next http.Handler) http.Handler {
	return s.authenticateOr(next, func(w http.ResponseWriter, r *http.Request, err error) {
		e, ok := apierr.As(err)
		if !ok {
			rest.WriteError(w, r, s.Log, err)
			return
		}
		if e.Status == http.StatusUnauthorized {
			rest.Challenge(w, r, e.Message)
		}
		ext := map[string]any{"code": e.Code(), "status": e.Status}
		if e.RetryAfter > 0 { // the database unavailable while reading the token
			w.Header().Set("Retry-After", strconv.Itoa(e.RetryAfter))
			ext["retryAfter"] = e.RetryAfter
		}
		rest.WriteJSON(w, e.Status, map[string]any{"errors": []map[string]any{{"message": e.Message, "extensions": ext}}})
	})
}

// authenticateOr uses the identity resolved by identify (no second lookup).
func (s *Server) authenticateOr(next http.Handler, refuse func(http.ResponseWriter, *http.Request, error)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id, ok := r.Context().Value(identityKey{}).(identity)
		if !ok {
			id.caller, id.err = s.Resolver.Auth.Authenticate(r.Context(), r.Header.Get("Authorization"))
		}
		if id.err != nil {
			refuse(w, r, id.err)
			return
		}
		if state := requestState(r); state != nil {
			state.caller = id.caller
			next.ServeHTTP(w, r)
			return
		}
		next.ServeHTTP(w, r.WithContext(auth.WithCaller(r.Context(), id.caller)))
	})
}

// limiters are the two request budgets: one per token, one per client
// address for requests without a valid token. A nil limiter is off.
type limiters struct {
	token, address *httprate.RateLimiter
	window         time.Duration
}

func newLimiters(cfg Config) limiters {
	l := limiters{window: cfg.RateLimitWindow}
	if l.window <= 0 {
		l.window = time.Minute
	}
	if cfg.RateLimit > 0 {
		l.token = httprate.NewRateLimiter(cfg.RateLimit, l.window)
	}
	if cfg.RateLimitAnonymous > 0 {
		l.address = httprate.NewRateLimiter(cfg.RateLimitAnonymous, l.window)
	}
	return l
}

// rateLimit counts the request against its token's budget, or its client
// address's when it has no valid token (so made-up tokens share their
// address's budget). Every answer carries X-RateLimit-Limit, -Remaining and
// -Reset; an exhausted budget is a 429 with Retry-After.
func (s *Server) rateLimit(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if unlimited[r.URL.Path] {
			next.ServeHTTP(w, r)
			return
		}
		rl, key, kind := s.limits.address, "a:"+s.clientAddress(r), "address"
		if id, ok := r.Context().Value(identityKey{}).(identity); ok && id.err == nil {
			rl, key, kind = s.limits.token, "t:"+id.caller.TokenID, "token"
		}
		if rl == nil || !rl.OnLimit(w, r, key) {
			next.ServeHTTP(w, r)
			return
		}
		s.Metrics.CountRateLimited(kind)
		limit := w.Header().Get("X-RateLimit-Limit")
		retry := retryAfter(w.Header().Get("X-RateLimit-Reset"))
		w.Header().Set("Retry-After", strconv.Itoa(retry))
		rest.WriteError(w, r, nil, apierr.New(http.StatusTooManyRequests,
			"rate limit exceeded: at most %s requests per %s per %s; retry in %d s", limit, s.limits.window, kind, retry))
	})
}

// unlimited are the probes and the scrape: orchestrators and Prometheus
// call them often from one address without a token, and they must keep
// answering when that address's budget is spent.
var unlimited = map[string]bool{"/healthz": true, "/readyz": true, "/metrics": true}

// retryAfter is the whole seconds until the limiter's window resets (at
// least 1): by then the sliding count has room again.
func retryAfter(reset string) int {
	at, err := strconv.ParseInt(reset, 10, 64)
	if err != nil {
		return 1
	}
	return max(1, int(math.Ceil(time.Until(time.Unix(at, 0)).Seconds())))
}

// clientAddress is the peer's IP, or, behind a proxy named by
// --client-ip-header, the last address of that header (the one the proxy
// itself added; earlier ones are whatever the client sent).
func (s *Server) clientAddress(r *http.Request) string {
	if h := s.Config.ClientIPHeader; h != "" {
		if v := r.Header.Values(h); len(v) > 0 {
			parts := strings.Split(v[len(v)-1], ",")
			if ip := strings.TrimSpace(parts[len(parts)-1]); ip != "" {
				return httprate.CanonicalizeIP(ip)
			}
		}
	}
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	return httprate.CanonicalizeIP(host)
}

// corsHandler lets the configured browser origins call /v1 and /graphql.
// It runs before authentication and rate limiting: preflights carry no
// token, and refusals (401, 429) must be readable by the page.
func (s *Server) corsHandler() func(http.Handler) http.Handler {
	if len(s.Config.CORSOrigins) == 0 {
		return func(next http.Handler) http.Handler { return next }
	}
	c := cors.New(cors.Options{
		AllowedOrigins: s.Config.CORSOrigins,
		AllowedMethods: []string{"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"},
		AllowedHeaders: []string{"Authorization", "Content-Type", "Idempotency-Key", "If-Match", "If-None-Match", "X-Request-Id", "X-Visitor-Token", graph.ShareLinkPasswordHeader},
		ExposedHeaders: []string{"ETag", "Location", "Retry-After", "X-Request-Id", "Idempotent-Replayed",
			"X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset"},
		MaxAge: 600,
	})
	return func(next http.Handler) http.Handler {
		withCORS := c.Handler(next)
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if p := r.URL.Path; p == "/v1" || strings.HasPrefix(p, "/v1/") || p == "/graphql" || strings.HasPrefix(p, "/graphql/") {
				withCORS.ServeHTTP(w, r)
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}
