package graph

import (
	"context"
	"encoding/json"
	"reflect"
	"sync"
	"sync/atomic"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/gqlerror"
)

// One execution per event for subscribers alike. gqlgen executes a
// subscription's selection set and encodes its answer for every
// subscriber and event; the subscribers of an event with the same
// document, operation and variables that receive the same payload object
// (commentEvent shares one per set of rights) get the same answer, so the
// first of them executes it and the others take its response. A selection
// that reaches a resolver depending on the caller (an edge such as
// Comment.replyList decides each reply's permissions for its caller) is
// not shared: every subscriber executes its own (see LiveResolverUse).

// LiveTap is where a subscription's events wait for the transport's
// executor (WithLiveTap) instead of going to gqlgen's stream at once.
type LiveTap struct {
	attached atomic.Bool
	events   chan liveTapEvent // closed when the subscription ends
	pass     func(v any)       // hands v to gqlgen's stream
	closeOut func()            // ends gqlgen's stream (once)
	// root is the subscription field's context (its arguments): gqlgen
	// marshals each event under the transport's context, without it, so
	// the edges of the payload that look up where their object was read
	// (enclosingSpace: Comment.replyList, ChangeRequest.commentList, ...)
	// would find nothing. Each event's execution gets a copy with the
	// payload as its result.
	root *graphql.FieldContext
}

type liveTapEvent struct {
	d *liveDelivery
	v any
}

type liveTapKey struct{}

// WithLiveTap gives a subscription operation's context a tap: its
// subscription resolver (subscribe) attaches to it.
func WithLiveTap(ctx context.Context) (context.Context, *LiveTap) {
	t := &LiveTap{}
	return context.WithValue(ctx, liveTapKey{}, t), t
}

// attach makes the tap the way subscribe's events go out: out is the
// stream gqlgen reads (buffered 1), which only the tap's reader fills and
// closes from now on.
func attachLiveTap[T any](ctx context.Context, out chan T) *LiveTap {
	t, _ := ctx.Value(liveTapKey{}).(*LiveTap)
	// Payloads are told apart by identity: pointers only.
	if t == nil || reflect.TypeFor[T]().Kind() != reflect.Pointer || !t.attached.CompareAndSwap(false, true) {
		return nil
	}
	t.events = make(chan liveTapEvent)
	t.root = graphql.GetFieldContext(ctx)
	t.pass = func(v any) { out <- v.(T) }
	var once sync.Once
	t.closeOut = func() { once.Do(func() { close(out) }) }
	return t
}

// SharedLiveResponses is responses (gqlgen's for one subscription
// operation, whose context had tap) answering each event from the
// response another subscriber of the same key (document, operation name,
// variables) executed for the same payload, when that execution reached no
// caller-dependent resolver. Without an attached tap it is responses.
func SharedLiveResponses(tap *LiveTap, key string, responses graphql.ResponseHandler) graphql.ResponseHandler {
	if tap == nil || !tap.attached.Load() {
		return responses
	}
	return func(ctx context.Context) *graphql.Response {
		var ev liveTapEvent
		var ok bool
		select {
		case ev, ok = <-tap.events:
		case <-ctx.Done():
			return nil
		}
		if !ok {
			tap.closeOut() // gqlgen's stream ends (nil) with the subscription
			return responses(ctx)
		}
		own := func(rec *liveResolverUse) *graphql.Response {
			tap.pass(ev.v)
			if tap.root != nil {
				fc := *tap.root
				fc.Result = ev.v
				ctx = graphql.WithFieldContext(ctx, &fc)
			}
			if rec != nil {
				ctx = context.WithValue(ctx, liveResolverUseKey{}, rec)
			}
			return responses(ctx)
		}
		resp, enc := ev.d.response(liveResponseKey{doc: key, payload: ev.v}, own)
		if st := liveStreamOf(ctx); st != nil {
			st.encoded = enc
		}
		return resp
	}
}

// LiveStream is what a subscription transport that frames its messages
// itself (server/livews.go) learns from the responses of one subscription
// operation, through its context (WithLiveStream).
type LiveStream struct {
	// End receives the error a subscription ends with (without it, gqlgen's
	// transport.AddSubscriptionError).
	End func(*gqlerror.Error)

	encoded *liveEncoding
}

// Payload is the JSON encoding of resp (as json.Marshal gives it) when
// resp is the last response handed out and another subscriber's execution
// shared it: encoded once for all of them. nil otherwise: the transport
// encodes resp itself.
func (st *LiveStream) Payload(resp *graphql.Response) []byte {
	e := st.encoded
	st.encoded = nil
	if e == nil || e.resp != resp {
		return nil
	}
	return e.bytes()
}

type liveStreamKey struct{}

// WithLiveStream gives a subscription operation's context st.
func WithLiveStream(ctx context.Context, st *LiveStream) context.Context {
	return context.WithValue(ctx, liveStreamKey{}, st)
}

func liveStreamOf(ctx context.Context) *LiveStream {
	st, _ := ctx.Value(liveStreamKey{}).(*LiveStream)
	return st
}

// liveEncoding is a shared response's payload, encoded by the first
// subscriber's transport that asks.
type liveEncoding struct {
	resp *graphql.Response
	once sync.Once
	b    []byte
}

func (e *liveEncoding) bytes() []byte {
	e.once.Do(func() {
		b, err := json.Marshal(e.resp)
		if err == nil {
			e.b = b
		}
	})
	return e.b
}

// liveResponseKey names the responses of one event alike: one document,
// operation and variables, one payload object.
type liveResponseKey struct {
	doc     string
	payload any
}

type liveResponse struct {
	once      sync.Once
	enc       *liveEncoding // the shared response, when shareable
	shareable bool
}

// response is the response of key for d: executed by the first subscriber
// asking (execute), taken by the others when it can be shared, executed by
// each of them otherwise. A shared response (the same pointer for every
// subscriber, the first included) comes with its encoding, done once.
func (d *liveDelivery) response(key liveResponseKey, execute func(*liveResolverUse) *graphql.Response) (*graphql.Response, *liveEncoding) {
	d.mu.Lock()
	if d.responses == nil {
		d.responses = map[liveResponseKey]*liveResponse{}
	}
	e := d.responses[key]
	if e == nil {
		e = &liveResponse{}
		d.responses[key] = e
	}
	d.mu.Unlock()
	var mine *graphql.Response
	ran := false
	e.once.Do(func() {
		ran = true
		rec := &liveResolverUse{}
		mine = execute(rec)
		if mine == nil || rec.callerDependent.Load() {
			return
		}
		// gqlgen reuses the subscription's buffer for its next event.
		shared := *mine
		shared.Data = append([]byte(nil), mine.Data...)
		e.enc, e.shareable = &liveEncoding{resp: &shared}, true
	})
	if e.shareable {
		if !ran {
			liveResponsesShared.Add(1)
		}
		return e.enc.resp, e.enc
	}
	if ran {
		return mine, nil
	}
	return execute(nil), nil
}

// liveResponsesShared counts the responses taken from another
// subscriber's execution.
var liveResponsesShared atomic.Int64

// LiveResponsesShared is how many subscription responses were taken from
// another subscriber's execution since the process started.
func LiveResponsesShared() int64 { return liveResponsesShared.Load() }

// liveResolverUse records whether an execution reached a resolver whose
// answer may depend on its caller.
type liveResolverUse struct{ callerDependent atomic.Bool }

type liveResolverUseKey struct{}

// callerFreeResolvers are resolvers whose answer depends on their object
// only (every nodeId field: the type and the object's id).
var callerFreeResolvers = map[string]bool{"nodeId": true}

// LiveResolverUse is the field middleware (gqlgen's AroundFields) that
// marks a shared subscription execution (SharedLiveResponses) as its
// subscriber's own when it reaches a resolver that may depend on the
// caller. Other executions pass through after one look at the field.
func LiveResolverUse(ctx context.Context, next graphql.Resolver) (any, error) {
	fc := graphql.GetFieldContext(ctx)
	if fc == nil || !fc.IsResolver || callerFreeResolvers[fc.Field.Name] {
		return next(ctx)
	}
	if rec, _ := ctx.Value(liveResolverUseKey{}).(*liveResolverUse); rec != nil {
		rec.callerDependent.Store(true)
	}
	return next(ctx)
}
