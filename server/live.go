package server

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/handler/transport"
	coderws "github.com/coder/websocket"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"docsapi/apierr"
	"docsapi/auth"
	"docsapi/graph"
	"docsapi/storage"
)

// GraphQL subscriptions' transports: graphql-transport-ws over
// a WebSocket (GET /graphql with Upgrade) and SSE (POST /graphql with
// Accept: text/event-stream). The rules (what is watched, who may, the
// limits) are graph's (graph/live.go); this file authenticates
// connections and keeps them bounded: messages a client sends, writes to
// a client that stopped reading, keepalive.

// Defaults of live updates' transport bounds.
const (
	// DefaultLiveKeepAlive is how often a WebSocket connection is pinged
	// (a client that answers no ping for two of them is disconnected) and
	// an SSE stream gets a comment line.
	DefaultLiveKeepAlive = 25 * time.Second
	// liveMessageBytes bounds a client's WebSocket message (connection_init
	// and subscribe included): a larger one closes the connection (1009).
	liveMessageBytes = 64 << 10
	// liveWriteTimeout is how long a write to a client may wait: a client
	// that does not read its socket is disconnected after it.
	liveWriteTimeout = 10 * time.Second
	// liveInitTimeout is how long a connection may wait before its
	// connection_init.
	liveInitTimeout = 10 * time.Second
)

// startLive connects the storage's committed changes to the feed of
// subscriptions.
func (s *Server) startLive() {
	s.Resolver.Live = graph.NewLiveFeed(graph.LiveLimits{PerConnection: s.Config.GraphQLSubscriptionsPerConnection,
		PerToken: s.Config.GraphQLSubscriptionsPerToken})
	s.DB.OnLiveChange(s.Resolver.Live.Publish)
	s.DB.OnLiveGap(s.Resolver.Live.Resync)
}

func init() {
	// Other processes' changes, on PostgreSQL (LISTEN); returns at once on SQLite.
	RegisterWorker(func(ctx context.Context, s *Server) { s.DB.ListenLive(ctx) })
}

// ListenLive receives the live events of the other processes on the
// database until ctx ends (StartWorkers runs it; see storage.ListenLive).
func (s *Server) ListenLive(ctx context.Context) { s.DB.ListenLive(ctx) }

// isLiveRequest tells the requests that open a subscription transport.
func isLiveRequest(r *http.Request) bool {
	if r.URL.Path != "/graphql" && r.URL.Path != "/graphql/" {
		return false
	}
	return isWebSocket(r) || (r.Method == http.MethodPost && strings.Contains(r.Header.Get("Accept"), "text/event-stream"))
}

func isWebSocket(r *http.Request) bool {
	return r.Method == http.MethodGet && strings.EqualFold(r.Header.Get("Upgrade"), "websocket")
}

// liveConnection gives a subscription request its graph.LiveConnection and
// a context without the request's counters snapshot (events are read
// long after the request's start). A WebSocket without an Authorization
// header authenticates in its connection_init instead (browsers cannot
// set headers on a WebSocket): it skips the HTTP authentication.
func (s *Server) liveConnection(authenticate func(http.Handler) http.Handler) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		withAuth := authenticate(next)
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if !isLiveRequest(r) {
				withAuth.ServeHTTP(w, r)
				return
			}
			header := r.Header.Get("Authorization")
			c := &graph.LiveConnection{Authorization: header, WebSocket: isWebSocket(r)}
			r = r.WithContext(graph.WithLiveConnection(storage.WithoutCounters(r.Context()), c))
			if c.WebSocket && header == "" {
				next.ServeHTTP(w, r)
				return
			}
			withAuth.ServeHTTP(w, r)
		})
	}
}

// websocketTransport is gqlgen's WebSocket transport with docsapi's
// authentication and bounds.
func (s *Server) websocketTransport() transport.Websocket {
	limit := int64(liveMessageBytes)
	keepAlive := s.Config.GraphQLKeepAlive
	if keepAlive <= 0 {
		keepAlive = DefaultLiveKeepAlive
	}
	return transport.Websocket{
		Implementation:        boundedWebsocket{inner: transport.CoderWebsocketImplementation{AcceptOptions: coderws.AcceptOptions{OriginPatterns: originPatterns(s.Config.CORSOrigins)}}},
		InitFunc:              s.initLive,
		InitTimeout:           liveInitTimeout,
		KeepAlivePingInterval: keepAlive, // graphql-ws (the older protocol): "ka" messages
		PingPongInterval:      keepAlive, // graphql-transport-ws: ping, and a pong expected
		PayloadReadLimit:      &limit,
	}
}

// initLive authenticates a WebSocket's connection_init: a Bearer token in
// its payload ({"Authorization": "Bearer …"}, or {"token": "…"}) or, when
// the payload has none, the upgrade request's Authorization header (already
// checked). The same token rules as every request.
func (s *Server) initLive(ctx context.Context, p transport.InitPayload) (context.Context, *transport.InitPayload, error) {
	authCtx, code, err := s.authenticateInit(ctx, p)
	if err != nil {
		return transport.WithWebsocketCloseCode(ctx, code), nil, err
	}
	return authCtx, nil, nil
}

// authenticateInit is initLive's decision for both WebSocket transports:
// the connection's context with its caller, or the close code (4401
// without a token, 4403 with a bad one) and why.
func (s *Server) authenticateInit(ctx context.Context, p transport.InitPayload) (context.Context, int, error) {
	conn := graph.LiveConnectionFrom(ctx)
	if conn == nil {
		return ctx, wsUnauthorized, apierr.Unauthorized("missing or invalid bearer token")
	}
	header := p.Authorization()
	if header == "" {
		if t := p.GetString("token"); t != "" {
			header = "Bearer " + t
		}
	}
	if header == "" {
		if conn.Authorization == "" {
			return ctx, wsUnauthorized, apierr.Unauthorized("missing bearer token: send it in connection_init's payload as {\"Authorization\": \"Bearer <token>\"}")
		}
		return ctx, 0, nil // the upgrade request's header, authenticated before
	}
	caller, err := s.Resolver.Auth.Authenticate(ctx, header)
	if err != nil {
		return ctx, wsForbidden, err
	}
	conn.Authorization = header
	return auth.WithCaller(ctx, caller), 0, nil
}

// originPatterns are the CORS origins as the WebSocket accept checks them
// (hosts; "*" any): a browser page elsewhere cannot open a WebSocket with
// its user's cookies (docsapi takes none, but the check costs nothing).
func originPatterns(origins []string) []string {
	var out []string
	for _, o := range origins {
		if o == "*" {
			return []string{"*"}
		}
		if u, err := url.Parse(o); err == nil && u.Host != "" {
			out = append(out, u.Host)
		}
	}
	return out
}

// boundedWebsocket is gqlgen's WebSocket implementation whose writes give
// up after liveWriteTimeout: the connection is closed under a write that
// waits longer (its client does not read), which ends the connection's
// goroutines.
type boundedWebsocket struct {
	inner transport.WebsocketImplementation
}

func (b boundedWebsocket) Accept(w http.ResponseWriter, r *http.Request, o transport.WebsocketAcceptOptions) (transport.WebsocketConn, error) {
	c, err := b.inner.Accept(w, r, o)
	if err != nil {
		return nil, err
	}
	return &boundedConn{WebsocketConn: c}, nil
}

type boundedConn struct {
	transport.WebsocketConn
	mu sync.Mutex // one write at a time has its timer
}

func (c *boundedConn) WriteJSON(v any) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := time.AfterFunc(liveWriteTimeout, func() { c.WebsocketConn.Close() })
	defer t.Stop()
	return c.WebsocketConn.WriteJSON(v)
}

func (c *boundedConn) SetReadLimit(n int64) {
	if l, ok := c.WebsocketConn.(transport.WebsocketReadLimiter); ok {
		l.SetReadLimit(n)
	}
}

func (c *boundedConn) SetReadDeadline(t time.Time) error {
	if d, ok := c.WebsocketConn.(transport.WebsocketReadDeadliner); ok {
		return d.SetReadDeadline(t)
	}
	return nil
}

// operationDeadline gives the queries and mutations a live transport
// carries (a mutation POSTed with Accept: text/event-stream, an operation
// sent over a WebSocket) the deadline requestDeadline gives every GraphQL
// POST: only subscriptions outlive it, bounded by keepalive and their
// limits instead. The deadline ends with the operation's stream.
func (s *Server) operationDeadline(ctx context.Context, next graphql.OperationHandler) graphql.ResponseHandler {
	oc := graphql.GetOperationContext(ctx)
	if graph.LiveConnectionFrom(ctx) == nil || oc.Operation == nil || oc.Operation.Operation == ast.Subscription {
		return next(ctx)
	}
	d, cause := s.graphQLTimeout()
	ctx, cancel := context.WithTimeoutCause(ctx, d, cause)
	responses := next(ctx)
	answered := false
	return func(rctx context.Context) *graphql.Response {
		r := responses(rctx)
		if r == nil && !answered && context.Cause(ctx) == error(cause) {
			// gqlgen ends a stream whose context ended without a word:
			// the client is told the limit instead, as over POST.
			r = &graphql.Response{Errors: gqlerror.List{s.presentGraphQLError(ctx, cause)}}
		}
		if r == nil {
			cancel()
		}
		answered = true
		return r
	}
}

// sharingTransport is a subscription transport whose executor lets the
// subscribers of one event with the same document, operation, variables
// and payload share one execution (graph.SharedLiveResponses).
type sharingTransport struct {
	graphql.Transport
}

func (t sharingTransport) Do(w http.ResponseWriter, r *http.Request, exec graphql.GraphExecutor) {
	t.Transport.Do(w, r, sharingExecutor{exec})
}

type sharingExecutor struct {
	graphql.GraphExecutor
}

func (e sharingExecutor) DispatchOperation(ctx context.Context, oc *graphql.OperationContext) (graphql.ResponseHandler, context.Context) {
	if oc == nil || oc.Operation == nil || oc.Operation.Operation != ast.Subscription {
		return e.GraphExecutor.DispatchOperation(ctx, oc)
	}
	vars, err := json.Marshal(oc.Variables) // keys sorted: one text for equal variables
	if err != nil {
		return e.GraphExecutor.DispatchOperation(ctx, oc)
	}
	ctx, tap := graph.WithLiveTap(ctx)
	responses, ctx := e.GraphExecutor.DispatchOperation(ctx, oc)
	return graph.SharedLiveResponses(tap, oc.RawQuery+"\x00"+oc.OperationName+"\x00"+string(vars), responses), ctx
}
