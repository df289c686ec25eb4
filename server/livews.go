package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/errcode"
	"github.com/99designs/gqlgen/graphql/handler/transport"
	coderws "github.com/coder/websocket"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"docsapi/graph"
)

// docsapi's own graphql-transport-ws transport. gqlgen's encodes each
// response for each subscriber twice (the payload, then the message
// around it) and its write path is private; this one writes a `next`
// message as one frame built from the payload's bytes, and the payload of
// a response that subscribers share (graph.SharedLiveResponses) is encoded
// once for all of them (graph.LiveStream.Payload): each subscriber's
// frame is its subscription id spliced before those bytes. The protocol
// (https://github.com/enisdenjo/graphql-ws/blob/master/PROTOCOL.md) is
// connection_init/connection_ack, ping/pong, subscribe, next, error,
// complete. Connections offering only the older graphql-ws protocol (or
// none) still go to gqlgen's transport (websocketTransport).

const graphqlTransportWS = "graphql-transport-ws"

// gqlgenWebsocketOnly leaves graphql-transport-ws to gqlgen's transport too
// (set by the fan-out benchmark, to compare both in one run).
var gqlgenWebsocketOnly bool

// Close codes of graphql-transport-ws.
const (
	wsBadMessage     = 4400
	wsUnauthorized   = 4401
	wsForbidden      = 4403
	wsInitTimeout    = 4408
	wsDuplicateID    = 4409
	wsTooManyInits   = 4429
	wsNoPong         = coderws.StatusPolicyViolation
	maxWSCloseReason = 123 // bytes a close frame's reason may have
)

// liveWebsocket is the transport (a graphql.Transport).
type liveWebsocket struct {
	s         *Server
	keepAlive time.Duration
	origins   []string
}

func (s *Server) liveWebsocketTransport() liveWebsocket {
	return liveWebsocket{s: s, keepAlive: cmp0(s.Config.GraphQLKeepAlive, DefaultLiveKeepAlive), origins: originPatterns(s.Config.CORSOrigins)}
}

func cmp0(d, def time.Duration) time.Duration {
	if d <= 0 {
		return def
	}
	return d
}

// Supports takes the WebSocket upgrades that offer graphql-transport-ws.
func (t liveWebsocket) Supports(r *http.Request) bool {
	if !isWebSocket(r) {
		return false
	}
	for _, p := range strings.Split(r.Header.Get("Sec-WebSocket-Protocol"), ",") {
		if strings.TrimSpace(p) == graphqlTransportWS {
			return true
		}
	}
	return false
}

// wsMessage is a message of either side (its fields in the order of
// gqlgen's encoding).
type wsMessage struct {
	Payload json.RawMessage `json:"payload,omitempty"`
	ID      string          `json:"id,omitempty"`
	Type    string          `json:"type"`
}

// liveWS is one connection.
type liveWS struct {
	t       liveWebsocket
	conn    *coderws.Conn
	exec    graphql.GraphExecutor
	headers http.Header
	ctx     context.Context // the connection's, with its caller once initialised
	pong    atomic.Int64    // unix nanoseconds of the last pong (or of the ack)

	mu     sync.Mutex
	active map[string]context.CancelFunc
	closed bool
}

func (t liveWebsocket) Do(w http.ResponseWriter, r *http.Request, exec graphql.GraphExecutor) {
	conn, err := coderws.Accept(w, r, &coderws.AcceptOptions{Subprotocols: []string{graphqlTransportWS}, OriginPatterns: t.origins})
	if err != nil {
		return // Accept answered the request
	}
	conn.SetReadLimit(liveMessageBytes)
	c := &liveWS{t: t, conn: conn, exec: exec, headers: r.Header, ctx: r.Context(), active: map[string]context.CancelFunc{}}
	defer c.close(coderws.StatusNormalClosure, "")
	if !c.init() {
		return
	}
	c.run()
}

// read is the client's next message; false when the connection ended, or
// after closing it for a message that is not one.
func (c *liveWS) read() (wsMessage, bool) {
	typ, b, err := c.conn.Read(context.Background())
	if err != nil {
		c.close(coderws.StatusNormalClosure, "") // its reader is gone (a close, a read limit, no pong)
		return wsMessage{}, false
	}
	var m wsMessage
	if typ != coderws.MessageText || json.Unmarshal(b, &m) != nil || m.Type == "" {
		c.close(wsBadMessage, "Invalid message received")
		return wsMessage{}, false
	}
	return m, true
}

// init waits for connection_init (liveInitTimeout), authenticates it
// (initLive) and acknowledges it.
func (c *liveWS) init() bool {
	timer := time.AfterFunc(liveInitTimeout, func() { c.close(wsInitTimeout, "Connection initialisation timeout") })
	m, ok := c.read()
	if !timer.Stop() || !ok {
		return false
	}
	if m.Type != "connection_init" {
		code := wsBadMessage
		if m.Type == "subscribe" {
			code = wsUnauthorized
		}
		c.close(coderws.StatusCode(code), "Unauthorized: connection_init first")
		return false
	}
	var p transport.InitPayload
	if len(m.Payload) > 0 && !bytes.Equal(m.Payload, []byte("null")) {
		if err := json.Unmarshal(m.Payload, &p); err != nil {
			c.close(wsBadMessage, "connection_init's payload is not an object")
			return false
		}
	}
	ctx, code, err := c.t.s.authenticateInit(c.ctx, p)
	if err != nil {
		c.close(coderws.StatusCode(code), err.Error())
		return false
	}
	c.ctx = ctx
	c.pong.Store(time.Now().UnixNano())
	return c.write(c.ctx, []byte(`{"type":"connection_ack"}`))
}

// run serves the initialised connection's messages until it ends.
func (c *liveWS) run() {
	ctx, cancel := context.WithCancel(c.ctx)
	defer cancel()
	go c.ping(ctx)
	for {
		start := graphql.Now()
		m, ok := c.read()
		if !ok {
			return
		}
		switch m.Type {
		case "subscribe":
			if !c.subscribe(start, m) {
				return
			}
		case "complete":
			c.mu.Lock()
			stop := c.active[m.ID]
			c.mu.Unlock()
			if stop != nil {
				stop()
			}
		case "ping":
			pong := []byte(`{"type":"pong"}`)
			if len(m.Payload) > 0 {
				pong = append(append([]byte(`{"payload":`), m.Payload...), `,"type":"pong"}`...)
			}
			c.write(c.ctx, pong)
		case "pong":
			c.pong.Store(time.Now().UnixNano())
		case "connection_init":
			c.close(wsTooManyInits, "Too many initialisation requests")
			return
		default:
			c.close(wsBadMessage, "Invalid message received")
			return
		}
	}
}

// ping pings the client every keepAlive; a client that answered none of
// the pings of two intervals is disconnected.
func (c *liveWS) ping(ctx context.Context) {
	tick := time.NewTicker(c.t.keepAlive)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		if time.Since(time.Unix(0, c.pong.Load())) > 2*c.t.keepAlive {
			c.close(wsNoPong, "no pong to the server's pings")
			return
		}
		c.write(ctx, []byte(`{"type":"ping"}`))
	}
}

// subscribe starts the operation of a subscribe message; false when it
// closed the connection.
func (c *liveWS) subscribe(start time.Time, m wsMessage) bool {
	if m.ID == "" {
		c.close(wsBadMessage, "Invalid message received: subscribe without an id")
		return false
	}
	ctx := graphql.StartOperationTrace(c.ctx)
	ctx, cancel := context.WithCancel(ctx)
	c.mu.Lock()
	if _, dup := c.active[m.ID]; dup {
		c.mu.Unlock()
		cancel()
		c.close(wsDuplicateID, "Subscriber for "+m.ID+" already exists")
		return false
	}
	c.active[m.ID] = cancel
	c.mu.Unlock()
	go c.operate(ctx, cancel, start, m)
	return true
}

// operate runs one operation and ends it: complete, or error when its
// subscription ended with one (graph.LiveStream.End) or it panicked.
func (c *liveWS) operate(ctx context.Context, cancel context.CancelFunc, start time.Time, m wsMessage) {
	id := m.ID
	var mu sync.Mutex
	var ended []*gqlerror.Error
	st := &graph.LiveStream{End: func(e *gqlerror.Error) { mu.Lock(); ended = append(ended, e); mu.Unlock() }}
	ctx = graph.WithLiveStream(ctx, st)
	var rc *graphql.OperationContext
	defer func() {
		if r := recover(); r != nil {
			var err error = errors.New("internal error")
			if rc != nil {
				err = rc.Recover(ctx, r)
			}
			var gqlErr *gqlerror.Error
			if !errors.As(err, &gqlErr) {
				gqlErr = &gqlerror.Error{Message: err.Error()}
			}
			c.sendError(id, gqlErr)
		} else {
			mu.Lock()
			errs := ended
			mu.Unlock()
			if len(errs) > 0 {
				c.sendError(id, errs...)
			} else {
				c.write(c.ctx, []byte(`{"id":`+strconv.Quote(id)+`,"type":"complete"}`))
			}
		}
		c.mu.Lock()
		delete(c.active, id)
		c.mu.Unlock()
		cancel()
	}()

	params := &graphql.RawParams{}
	dec := json.NewDecoder(bytes.NewReader(m.Payload))
	dec.UseNumber()
	if err := dec.Decode(params); err != nil {
		c.sendError(id, &gqlerror.Error{Message: "invalid json"})
		return
	}
	params.ReadTime = graphql.TraceTiming{Start: start, End: graphql.Now()}
	params.Headers = c.headers
	rc, errs := c.exec.CreateOperationContext(ctx, params)
	if errs != nil {
		resp := c.exec.DispatchError(graphql.WithOperationContext(ctx, rc), errs)
		if errcode.GetErrorKind(errs) == errcode.KindProtocol {
			c.sendError(id, resp.Errors...)
			return
		}
		c.sendNext(ctx, id, &graphql.Response{Errors: errs}, nil)
		return
	}
	ctx = graphql.WithOperationContext(ctx, rc)
	responses, ctx := c.exec.DispatchOperation(ctx, rc)
	for {
		resp := responses(ctx)
		if resp == nil {
			return
		}
		c.sendNext(ctx, id, resp, st.Payload(resp))
	}
}

// sendNext writes resp as a next message of id: payload when it is
// resp's encoding already (shared by the subscribers of one execution).
func (c *liveWS) sendNext(ctx context.Context, id string, resp *graphql.Response, payload []byte) {
	if payload == nil {
		b, err := json.Marshal(resp)
		if err != nil {
			b, _ = json.Marshal(&graphql.Response{Errors: gqlerror.List{{Message: "the answer could not be encoded"}}})
		}
		payload = b
	}
	c.write(ctx, nextFrame(id, payload))
}

// nextFrame is the next message of id with payload, byte for byte as
// gqlgen's transport encodes it: {"payload":…,"id":…,"type":"next"}.
func nextFrame(id string, payload []byte) []byte {
	quoted, _ := json.Marshal(id) // json's escaping, as a message's encoding has it
	b := make([]byte, 0, len(payload)+len(quoted)+32)
	b = append(b, `{"payload":`...)
	b = append(b, payload...)
	b = append(b, `,"id":`...)
	b = append(b, quoted...)
	return append(b, `,"type":"next"}`...)
}

func (c *liveWS) sendError(id string, errs ...*gqlerror.Error) {
	b, err := json.Marshal(wsMessage{ID: id, Type: "error", Payload: mustJSON(errs)})
	if err == nil {
		c.write(c.ctx, b)
	}
}

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		return json.RawMessage(`[{"message":"the error could not be encoded"}]`)
	}
	return b
}

// write writes one message; a client that does not take it within
// liveWriteTimeout is disconnected (coder/websocket closes a connection
// whose write's context ends). false when it failed.
func (c *liveWS) write(ctx context.Context, b []byte) bool {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), liveWriteTimeout)
	defer cancel()
	return c.conn.Write(ctx, coderws.MessageText, b) == nil
}

// close closes the connection (once) with code and reason, and ends its
// operations.
func (c *liveWS) close(code coderws.StatusCode, reason string) {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return
	}
	c.closed = true
	stops := make([]context.CancelFunc, 0, len(c.active))
	for _, stop := range c.active {
		stops = append(stops, stop)
	}
	c.mu.Unlock()
	for _, stop := range stops {
		stop()
	}
	if len(reason) > maxWSCloseReason {
		reason = reason[:maxWSCloseReason]
	}
	// Close waits for the client's close frame (5 s at most): not under mu.
	go c.conn.Close(code, reason)
}
