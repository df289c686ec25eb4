package graph

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"time"

	"github.com/99designs/gqlgen/graphql/handler/transport"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"docsapi/apierr"
	"docsapi/auth"
	"docsapi/graph/model"
	"docsapi/storage"
)

// Live updates (GraphQL subscriptions). The storage announces
// each committed change of interest once (storage.LiveEvent, from the same
// change record as the audit log and webhooks; from other processes
// through PostgreSQL's NOTIFY); LiveFeed hands it to the subscriptions
// watching its topic, each through a bounded buffer; each subscription
// then reads the object again with its caller's token and rights as they
// are at that moment (subscribe), so a revoked token or a lost access ends
// it at its next event.

// LiveLimits bound live updates.
type LiveLimits struct {
	// PerConnection is the most subscriptions one WebSocket connection
	// runs at once, PerToken the most one token runs at once over all its
	// connections (SSE requests included).
	PerConnection int
	PerToken      int
	// Buffer is how many events a subscription may have waiting; one more
	// and it is ended (a client that does not read its socket).
	Buffer int
}

// DefaultLiveLimits: 100 subscriptions a connection, 500 a token, 64
// events waiting.
var DefaultLiveLimits = LiveLimits{PerConnection: 100, PerToken: 500, Buffer: 64}

// LiveFeed fans live events out to subscriptions, by topic.
type LiveFeed struct {
	Limits LiveLimits

	mu     sync.Mutex
	topics map[string]map[*liveSub]struct{}
	tokens map[string]int // subscriptions running, by token id
}

// NewLiveFeed is a feed with limits (zero fields: DefaultLiveLimits').
func NewLiveFeed(l LiveLimits) *LiveFeed {
	if l.PerConnection <= 0 {
		l.PerConnection = DefaultLiveLimits.PerConnection
	}
	if l.PerToken <= 0 {
		l.PerToken = DefaultLiveLimits.PerToken
	}
	if l.Buffer <= 0 {
		l.Buffer = DefaultLiveLimits.Buffer
	}
	return &LiveFeed{Limits: l, topics: map[string]map[*liveSub]struct{}{}, tokens: map[string]int{}}
}

// liveSub is one subscription's place in the feed.
type liveSub struct {
	topic  string
	token  string
	user   string // the caller's user when it subscribed (PrimeAccess)
	events chan *liveDelivery
	ended  chan struct{} // closed once the feed ends it, why says why
	why    error
	once   sync.Once
}

// end ends s with why (once: the first reason stands).
func (s *liveSub) end(why error) {
	s.once.Do(func() {
		s.why = why
		close(s.ended)
	})
}

func (s *liveSub) fellBehind() { s.end(errFellBehind) }

// Topics of live events: what a subscription watches.
func commentsTopic(spaceID, crID string) string {
	if crID != "" {
		return "comments/cr/" + crID
	}
	return "comments/space/" + spaceID
}
func changeRequestTopic(crID string) string { return "cr/" + crID }
func contentTopic(spaceID, crID string) string {
	if crID != "" {
		return "content/cr/" + crID
	}
	return "content/space/" + spaceID
}
func siteTopic(siteID string) string { return "site/" + siteID }

// topicOf is the topic an event is announced on ("" for none).
func topicOf(ev storage.LiveEvent) string {
	switch {
	case ev.TargetType == "comment":
		return commentsTopic(ev.Space, ev.ChangeRequest)
	case ev.Action == "page.changed":
		return contentTopic(ev.Space, "")
	case ev.Action == "change_request.edited":
		return contentTopic(ev.Space, ev.ChangeRequest)
	case ev.TargetType == "change_request":
		return changeRequestTopic(ev.ChangeRequest)
	case ev.TargetType == "site":
		return siteTopic(ev.Target)
	}
	return ""
}

// Publish hands ev to every subscription of its topic without waiting: a
// subscription whose buffer is full falls behind and is ended. It is the
// storage's OnLiveChange.
func (f *LiveFeed) Publish(ev storage.LiveEvent) {
	topic := topicOf(ev)
	if topic == "" {
		return
	}
	if ev.TargetType == "change_request" && ev.Action == "change_request.edited" {
		// Content edits of a change request also concern its watchers.
		f.publish(changeRequestTopic(ev.ChangeRequest), ev)
	}
	f.publish(topic, ev)
}

func (f *LiveFeed) publish(topic string, ev storage.LiveEvent) {
	d := &liveDelivery{ev: ev}
	f.mu.Lock()
	defer f.mu.Unlock()
	d.users = make([]string, 0, len(f.topics[topic]))
	for s := range f.topics[topic] {
		d.users = append(d.users, s.user) // all of them before any reads d
	}
	for s := range f.topics[topic] {
		select {
		case s.events <- d:
		default:
			s.fellBehind()
		}
	}
}

// Resync ends every subscription with a RESYNC error: events were lost
// (storage.OnLiveGap: a replica's LISTEN connection was down too long, or
// missed more than it replays), so its client must read again what it
// watches and subscribe again.
func (f *LiveFeed) Resync() {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, subs := range f.topics {
		for s := range subs {
			s.end(errResync)
		}
	}
}

// Subscribers is how many subscriptions the feed runs.
func (f *LiveFeed) Subscribers() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, t := range f.tokens {
		n += t
	}
	return n
}

// join adds a subscription of token to topic, or refuses it (429) when
// the token runs its limit.
func (f *LiveFeed) join(topic, token, user string) (*liveSub, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.tokens[token] >= f.Limits.PerToken {
		return nil, apierr.New(http.StatusTooManyRequests, "this token already runs %d subscriptions, its limit (--graphql-subscriptions-per-token)", f.Limits.PerToken)
	}
	f.tokens[token]++
	s := &liveSub{topic: topic, token: token, user: user, events: make(chan *liveDelivery, f.Limits.Buffer), ended: make(chan struct{})}
	if f.topics[topic] == nil {
		f.topics[topic] = map[*liveSub]struct{}{}
	}
	f.topics[topic][s] = struct{}{}
	return s, nil
}

func (f *LiveFeed) leave(s *liveSub) {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.topics[s.topic], s)
	if len(f.topics[s.topic]) == 0 {
		delete(f.topics, s.topic)
	}
	if f.tokens[s.token]--; f.tokens[s.token] <= 0 {
		delete(f.tokens, s.token)
	}
}

// LiveConnection is what a subscription needs of its connection: the
// Authorization value that authenticated it (read again at each event)
// and the connection's count of subscriptions.
type LiveConnection struct {
	Authorization string
	// WebSocket: the transport can end a subscription with an error
	// message (SSE only ends the stream).
	WebSocket bool

	mu      sync.Mutex
	running int
}

type liveConnectionKey struct{}

// WithLiveConnection returns ctx for the operations of one connection.
func WithLiveConnection(ctx context.Context, c *LiveConnection) context.Context {
	return context.WithValue(ctx, liveConnectionKey{}, c)
}

// LiveConnectionFrom is ctx's connection (WithLiveConnection), or nil.
func LiveConnectionFrom(ctx context.Context) *LiveConnection {
	c, _ := ctx.Value(liveConnectionKey{}).(*LiveConnection)
	return c
}

func (c *LiveConnection) take(limit int) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.running >= limit {
		return apierr.New(http.StatusTooManyRequests, "this connection already runs %d subscriptions, its limit (--graphql-subscriptions-per-connection)", limit)
	}
	c.running++
	return nil
}

func (c *LiveConnection) release() {
	c.mu.Lock()
	c.running--
	c.mu.Unlock()
}

// liveRead reads what an event (d.ev) announces for one subscriber, with
// ctx carrying the subscriber's caller as of now; ok false: nothing to
// send for this event (an event of the topic about something else). What
// does not depend on the caller it may share with the event's other
// subscribers through shared(d, …) (see commentEvent).
type liveRead[T any] func(ctx context.Context, d *liveDelivery) (v T, ok bool, err error)

// subscribe starts a subscription to topic (its resolver has checked that
// the caller may see what it watches, and refused otherwise): every event
// of the topic is read by read for the caller, with the token read again;
// once either refuses (401, 403, 404), the subscription ends with that
// error.
func subscribe[T any](r *Resolver, ctx context.Context, topic, key string, read liveRead[T]) (<-chan T, error) {
	if r.Live == nil {
		return nil, apierr.New(http.StatusNotImplemented, "this server does not run subscriptions")
	}
	caller, err := callerOf(ctx)
	if err != nil {
		return nil, err
	}
	conn, _ := ctx.Value(liveConnectionKey{}).(*LiveConnection)
	if conn == nil {
		return nil, apierr.New(http.StatusBadRequest, "subscriptions are served over WebSocket (graphql-transport-ws) or SSE (Accept: text/event-stream)")
	}
	if err := conn.take(r.Live.Limits.PerConnection); err != nil {
		return nil, err
	}
	sub, err := r.Live.join(topic, caller.TokenID, caller.UserID)
	if err != nil {
		conn.release()
		return nil, err
	}
	out := make(chan T, 1)
	// With a tap (the transport's executor, SharedLiveResponses), events go
	// to it with what they were read from, and it fills and closes out.
	tap := attachLiveTap(ctx, out)
	go func() {
		if tap != nil {
			defer close(tap.events)
		} else {
			defer close(out)
		}
		defer conn.release()
		defer r.Live.leave(sub)
		end := func(err error) {
			if st := liveStreamOf(ctx); st != nil && st.End != nil {
				st.End(liveError(err)) // docsapi's graphql-transport-ws (server/livews.go)
			} else if conn.WebSocket {
				transport.AddSubscriptionError(ctx, liveError(err))
			}
		}
		for {
			var d *liveDelivery
			select {
			case <-ctx.Done():
				return
			case <-sub.ended:
				end(sub.why)
				return
			case d = <-sub.events:
			}
			// Subscribers of one event with the same token and the same
			// subscription read it once (same caller, same rights).
			v, ok, err := shared(d, conn.Authorization+"\x00"+key, func() (T, bool, error) {
				ectx, err := r.liveContext(ctx, conn, d)
				if err != nil {
					var zero T
					return zero, false, err
				}
				return read(ectx, d)
			})
			if err != nil {
				if s := apierr.Status(err); s == http.StatusUnauthorized || s == http.StatusForbidden || s == http.StatusNotFound {
					end(err)
					return
				}
				continue // this event could not be read (the database busy): the next one may
			}
			if !ok {
				continue
			}
			send, item := out, v
			var tapped chan liveTapEvent
			if tap != nil {
				send, tapped = nil, tap.events
			}
			select {
			case send <- item:
			case tapped <- liveTapEvent{d: d, v: v}:
			case <-ctx.Done():
				return
			case <-sub.ended:
				end(sub.why)
				return
			}
		}
	}()
	return out, nil
}

var errFellBehind = apierr.New(http.StatusTooManyRequests, "subscription ended: the client did not read its events fast enough")

// errResync ends the subscriptions of a feed that lost events (Resync).
var errResync = errors.New("subscription ended: events were missed; read again what you watch, then subscribe again")

// liveContext is the context one event is read in: the subscription's,
// with the storage's counters read now (not the connection's, from when
// it opened) and the caller its token stands for now.
func (r *Resolver) liveContext(ctx context.Context, conn *LiveConnection, d *liveDelivery) (context.Context, error) {
	ctx = storage.WithoutCounters(ctx)
	if s, ok := r.Store.(interface {
		ReadCounters(context.Context) (*storage.Counters, error)
	}); ok {
		// One reading for all the event's subscribers, taken after its
		// commit: every cache they consult is valid for it.
		d.once.Do(func() { d.counters, _ = s.ReadCounters(ctx) })
		if d.counters != nil {
			ctx = context.WithValue(ctx, storage.CountersKey, d.counters)
		}
	}
	if p, ok := r.Store.(interface {
		PrimeAccess(ctx context.Context, orgID string, userIDs []string) error
	}); ok {
		// After a change of access every subscriber's access is read
		// again: for all of them at once, by the first to ask (an error
		// leaves each to read its own).
		d.primed.Do(func() { _ = p.PrimeAccess(ctx, d.ev.Organization, d.users) })
	}
	caller, err := r.Auth.Authenticate(ctx, conn.Authorization)
	if err != nil {
		return nil, err
	}
	return auth.WithCaller(ctx, caller), nil
}

// liveError is how an ended subscription says why, with the code and
// status REST would answer.
func liveError(err error) *gqlerror.Error {
	if err == errResync {
		return &gqlerror.Error{Message: err.Error(), Extensions: map[string]any{"code": "RESYNC", "status": http.StatusConflict}}
	}
	e := &gqlerror.Error{Message: err.Error(), Extensions: map[string]any{"code": "INTERNAL", "status": http.StatusInternalServerError}}
	if ae, ok := apierr.As(err); ok {
		e.Message = "subscription ended: " + ae.Message
		e.Extensions = map[string]any{"code": ae.Code(), "status": ae.Status}
	}
	return e
}

// liveDelivery is one event as its subscribers receive it, with what
// they share: the storage counters read for it, and the reads of the
// subscribers that would read it alike.
type liveDelivery struct {
	ev       storage.LiveEvent
	once     sync.Once
	counters *storage.Counters
	users    []string  // the users of the event's subscribers (PrimeAccess)
	primed   sync.Once // their access read into the cache

	mu        sync.Mutex
	reads     map[string]*liveShared
	responses map[liveResponseKey]*liveResponse // livefanout.go
}

type liveShared struct {
	once sync.Once
	v    any
	ok   bool
	err  error
}

// shared runs read once per key for d and gives every caller its result.
func shared[T any](d *liveDelivery, key string, read func() (T, bool, error)) (T, bool, error) {
	d.mu.Lock()
	if d.reads == nil {
		d.reads = map[string]*liveShared{}
	}
	s := d.reads[key]
	if s == nil {
		s = &liveShared{}
		d.reads[key] = s
	}
	d.mu.Unlock()
	s.once.Do(func() { s.v, s.ok, s.err = read() })
	v, _ := s.v.(T)
	return v, s.ok, s.err
}

// liveObject is a read of the object an event names: gone since (404) is
// nothing to send, not an end (the subscriber's access was checked first).
func liveObject[T any](v T, err error) (T, bool, error) {
	if apierr.Status(err) == http.StatusNotFound {
		var zero T
		return zero, false, nil
	}
	return v, err == nil, err
}

// crIDOf is the change request id of a discussion ("" for a space's).
func crIDOf(d discussion) string {
	if d.cr == nil {
		return ""
	}
	return d.cr.ID
}

// liveKey names a subscription's reads: two subscriptions with one key
// (and one token) read an event alike.
func liveKey(field, id string, id2 *string, format *model.PageFormat) string {
	k := field + "\x00" + id
	if id2 != nil {
		k += "\x00" + *id2
	}
	if format != nil {
		k += "\x00" + string(*format)
	}
	return k
}

// liveReadTimeout bounds a read one event's subscribers share: it runs
// for all of them, so it outlives the subscriber that happens to start it.
const liveReadTimeout = 10 * time.Second

// sharedObject is read once per event for every subscriber of key, with
// the context of whichever subscriber asks first but without its end (a
// subscriber leaving does not fail the others' read). read must not
// depend on the caller: the subscriber's rights are applied afterwards,
// in memory.
func sharedObject[T any](ctx context.Context, d *liveDelivery, key string, read func(ctx context.Context) (T, bool, error)) (T, bool, error) {
	return shared(d, "object\x00"+key, func() (T, bool, error) {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), liveReadTimeout)
		defer cancel()
		return read(ctx)
	})
}

// liveComment is a comment or reply as an event's subscribers share it:
// read once, with what converting it needs.
type liveComment struct {
	c   storage.Comment
	rel related
}

// readLiveComment reads comment id of disc (a reply of replyOf when not
// "") and its related objects, whoever reads it: gone since is nothing to
// send (liveObject).
func (r *Resolver) readLiveComment(ctx context.Context, d *liveDelivery, disc discussion, replyOf, id string) (*liveComment, bool, error) {
	return sharedObject(ctx, d, "comment\x00"+disc.key.SpaceID+"\x00"+disc.key.ChangeRequestID+"\x00"+replyOf+"\x00"+id, func(ctx context.Context) (*liveComment, bool, error) {
		if replyOf != "" {
			if _, err := r.commentIn(ctx, disc, "", replyOf); err != nil {
				return liveObject[*liveComment](nil, err)
			}
		}
		c, err := r.commentIn(ctx, disc, replyOf, id)
		if err != nil {
			return liveObject[*liveComment](nil, err)
		}
		rel, err := r.relatedTo(ctx, disc, []storage.Comment{c})
		if err != nil {
			return nil, false, err
		}
		return &liveComment{c: c, rel: rel}, true, nil
	})
}

// rightsKey names a set of comment permissions: the subscribers of one
// event with the same rights on it share one payload.
func rightsKey(p model.CommentPermissions) string {
	b := []byte("-----")
	for i, v := range []bool{p.View, p.Edit, p.Reply, p.React, p.Delete} {
		if v {
			b[i] = '+'
		}
	}
	return string(b)
}

// formatKey is a payload's body format in a sharing key.
func formatKey(format *model.PageFormat) string {
	if format == nil {
		return ""
	}
	return string(*format)
}

// commentEvent is commentUpdated's payload for the event d: the comment
// posted, edited (body, reactions, resolution) or whose thread changed (a
// reply edited or deleted: the reply's comment, its replies count
// current); a reply posted is commentReplyPosted's. A comment deleted can
// no longer be read: its payload is a tombstone (see tombstone).
//
// One event costs one read of the comment for all its subscribers: each
// subscriber's access is decided from its caller as of now (the token and
// access caches, see discussionOf), its permissions on the comment are
// derived in memory, and the subscribers with the same permissions share
// one payload.
func (r *Resolver) commentEvent(ctx context.Context, d *liveDelivery, spaceID string, crID *string, format *model.PageFormat) (*model.Comment, bool, error) {
	ev := d.ev
	if ev.Parent != "" && ev.Action == "comment.created" {
		return nil, false, nil // a reply posted: commentReplyPosted
	}
	disc, err := r.discussionOf(ctx, spaceID, crID)
	if err != nil {
		return nil, false, err
	}
	if err := checkFormat(format); err != nil {
		return nil, false, err
	}
	id := ev.Target
	if ev.Parent != "" {
		id = ev.Parent
	} else if ev.Action == "comment.deleted" {
		return sharedObject(ctx, d, "tombstone\x00"+disc.key.SpaceID+"\x00"+disc.key.ChangeRequestID+"\x00"+formatKey(format), func(ctx context.Context) (*model.Comment, bool, error) {
			return r.tombstone(ctx, disc, ev), true, nil
		})
	}
	lc, ok, err := r.readLiveComment(ctx, d, disc, "", id)
	if !ok || err != nil {
		return nil, ok, err
	}
	perms := disc.permissions(lc.c)
	return shared(d, "comment-view\x00"+disc.key.SpaceID+"\x00"+disc.key.ChangeRequestID+"\x00"+id+"\x00"+formatKey(format)+"\x00"+rightsKey(perms), func() (*model.Comment, bool, error) {
		m := r.commentModel(disc, lc.rel, lc.c, format)
		m.Permissions = perms
		return m, true, nil
	})
}

// replyEvent is commentReplyPosted's payload for the event d: the reply
// posted, read once for all subscribers like commentEvent's comment.
func (r *Resolver) replyEvent(ctx context.Context, d *liveDelivery, spaceID string, crID *string, format *model.PageFormat) (*model.CommentReply, bool, error) {
	ev := d.ev
	if ev.Parent == "" || ev.Action != "comment.created" {
		return nil, false, nil
	}
	disc, err := r.discussionOf(ctx, spaceID, crID)
	if err != nil {
		return nil, false, err
	}
	if err := checkFormat(format); err != nil {
		return nil, false, err
	}
	lc, ok, err := r.readLiveComment(ctx, d, disc, ev.Parent, ev.Target)
	if !ok || err != nil {
		return nil, ok, err
	}
	perms := disc.permissions(lc.c)
	return shared(d, "reply-view\x00"+disc.key.SpaceID+"\x00"+disc.key.ChangeRequestID+"\x00"+ev.Target+"\x00"+formatKey(format)+"\x00"+rightsKey(perms), func() (*model.CommentReply, bool, error) {
		m := r.replyModel(disc, lc.rel, lc.c, format)
		m.Permissions = perms
		return m, true, nil
	})
}

// tombstone is the payload of a deleted comment: its id, author, posting
// time and space (target), an empty body, no reactions, no replies, status
// OPEN and every permission false. permissions.view is false on a deleted
// comment only, which is how a client tells a deletion (and drops the
// comment from its cache).
func (r *Resolver) tombstone(ctx context.Context, d discussion, ev storage.LiveEvent) *model.Comment {
	c := storage.Comment{ID: ev.Target, Scope: d.key, PostedBy: ev.Author, PostedAt: time.UnixMilli(ev.PostedAt).UTC(), Status: "open"}
	rel, err := r.relatedTo(ctx, d, []storage.Comment{c})
	if err != nil {
		rel = related{}
	}
	m := r.commentModel(d, rel, c, nil)
	m.Reactions, m.Replies, m.Permissions = []*model.EmojiReaction{}, 0, model.CommentPermissions{}
	return m
}
