package storage

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync/atomic"
	"time"
)

// Live updates (GraphQL subscriptions) learn of committed changes
// from the same record the audit log and the webhook outbox are written
// from (changes.go): liveSink is one more change sink. It announces a
// change only once the transaction that made it has committed: in this
// process through the function OnLiveChange set, and, on PostgreSQL, to
// the other processes on the database through NOTIFY, which PostgreSQL
// delivers at the commit and never for a rolled-back transaction
// (ListenLive receives them).

// LiveEvent is a committed change as live subscribers see it: which
// object changed and where, never what it now holds (subscribers read the
// object again, with their own rights). Its fields are ids, so it fits a
// NOTIFY payload.
type LiveEvent struct {
	Organization  string `json:"o"`
	Action        string `json:"a"` // the change's action ("comment.created")
	TargetType    string `json:"t"`
	Target        string `json:"i"`
	Space         string `json:"s,omitempty"`
	ChangeRequest string `json:"c,omitempty"`
	Parent        string `json:"p,omitempty"` // a reply's comment
	Revision      string `json:"r,omitempty"`
	Review        string `json:"v,omitempty"`
	// A deleted comment's author and posting time (comment.deleted): what
	// its subscribers are told once it can no longer be read.
	Author   string `json:"u,omitempty"`
	PostedAt int64  `json:"pa,omitempty"`
	// ID is the change's entry in the record (the audit log's id, which
	// starts with its time): what a replay after a lost connection
	// (ListenLive) and the announcements already made are matched by, so
	// that each change is announced once.
	ID string `json:"id,omitempty"`
}

// liveChannel is the PostgreSQL notification channel of live events.
const liveChannel = "docsapi_live"

// maxLivePayload bounds a notification's payload below PostgreSQL's 8,000
// bytes; an event that would not fit (it cannot, ids being short) is only
// announced in this process.
const maxLivePayload = 7000

// liveNotice is a NOTIFY payload: the event and the process that made it
// (which has announced it already, in process).
type liveNotice struct {
	Origin string    `json:"from"`
	Event  LiveEvent `json:"e"`
}

// The changes subscriptions announce: comments and replies, change
// requests (status, reviews), content, site publishing. Kept as lists so
// that the replay's query (liveReplaySQL) selects the same ones.
var (
	liveActionPrefixes = []string{"comment.", "change_request."}
	liveActions        = []string{"page.changed", "site.published", "site.unpublished"}
)

// isLiveAction tells the changes subscriptions announce.
func isLiveAction(action string) bool {
	for _, p := range liveActionPrefixes {
		if strings.HasPrefix(action, p) {
			return true
		}
	}
	return slices.Contains(liveActions, action)
}

// liveEventOf is c's live event; the ids it carries come from c's fields.
func liveEventOf(c Change) LiveEvent {
	str := func(k string) string { s, _ := c.Fields[k].(string); return s }
	ev := LiveEvent{Organization: c.OrganizationID, Action: c.Action, TargetType: c.TargetType, Target: c.TargetID,
		Space: str("space"), ChangeRequest: str("changeRequest"), Parent: str("parent"), Revision: str("revision"), Review: str("review")}
	if c.Action == "comment.deleted" {
		ev.Author = str("postedBy")
		switch at := c.Fields["postedAt"].(type) {
		case int64:
			ev.PostedAt = at
		case float64:
			ev.PostedAt = int64(at)
		}
	}
	switch c.TargetType {
	case "space":
		ev.Space = c.TargetID
	case "change_request":
		ev.ChangeRequest = c.TargetID
	}
	return ev
}

// liveFeed is a DB's side of live updates.
type liveFeed struct {
	publish atomic.Pointer[func(LiveEvent)] // OnLiveChange
	gap     atomic.Pointer[func()]          // OnLiveGap
	target  string                          // the database Open was given (ListenLive connects to it)
	// listening: ListenLive receives other processes' events (PostgreSQL).
	listening atomic.Bool
	// seen is this process's last-seen position in the change record:
	// the changes it has announced lately, by id.
	seen liveSeen
	// replay bounds what a reconnection replays (DefaultLiveReplay when
	// zero).
	replay LiveReplay
	// reconnecting, when set (SetLiveReconnectHook), runs before each
	// reconnection.
	reconnecting func()
}

// LiveListening tells whether ListenLive receives the events of other
// processes now (always false on SQLite).
func (db *DB) LiveListening() bool { return db.live.listening.Load() }

// OnLiveChange sets what is called, once per change, after the commit of
// every change subscriptions announce (made by this process, or on
// PostgreSQL by another one while ListenLive runs). fn must not block.
func (db *DB) OnLiveChange(fn func(LiveEvent)) { db.live.publish.Store(&fn) }

// OnLiveGap sets what is called when ListenLive has lost changes it
// cannot replay (more than LiveReplay.Events, or a connection lost for
// longer than LiveReplay.Age): subscribers must read again what they
// watch. fn must not block.
func (db *DB) OnLiveGap(fn func()) { db.live.gap.Store(&fn) }

// publishLive announces ev once: a change is announced by the process that
// made it (after its commit), by the notification of another process, or
// by a replay; whichever comes first, the others are dropped.
func (db *DB) publishLive(ev LiveEvent) {
	if ev.ID != "" && !db.live.seen.first(ev.ID, db.live.replayBounds(), db.Now()) {
		return
	}
	if f := db.live.publish.Load(); f != nil {
		(*f)(ev)
	}
}

func (db *DB) liveGap() {
	if f := db.live.gap.Load(); f != nil {
		(*f)()
	}
}

// liveSink is the change sink of live updates (see above).
func liveSink(tx *Tx, _ Actor, c Change) error {
	if !isLiveAction(c.Action) || c.OrganizationID == "" {
		return nil
	}
	ev := liveEventOf(c)
	ev.ID = tx.auditID // auditSink ran first, for the same change
	db := tx.db
	tx.afterCommit(func() { db.publishLive(ev) })
	b, err := json.Marshal(liveNotice{Origin: db.process, Event: ev})
	if err != nil || len(b) > maxLivePayload {
		return nil
	}
	return db.dialect.notifyLive(tx, string(b))
}

// ListenLive announces, through OnLiveChange, the changes other processes
// on the same PostgreSQL database commit, until ctx ends (on SQLite, where
// every writer of a file is expected to be this process, it returns at
// once). A lost connection is opened again after a pause; once it listens
// again, the changes committed meanwhile are replayed from the change
// record (replayLive), in their order, each once, or, when there are too
// many or the connection was lost too long ago, OnLiveGap's function is
// called instead.
func (db *DB) ListenLive(ctx context.Context) {
	pause := 100 * time.Millisecond
	var lost time.Time // when the last connection was lost (zero: none was)
	for ctx.Err() == nil {
		started := time.Now()
		err := db.dialect.listenLive(ctx, db.live.target, func() {
			if !lost.IsZero() {
				// Listening again before the replay's read: what commits
				// from now on is notified, and waits for the replay.
				db.replayLive(ctx, lost)
			}
			lost = time.Time{}
			db.live.listening.Store(true)
		}, func(payload string) {
			if ev, ok := decodeLiveNotice(payload, db.process); ok {
				db.publishLive(ev)
			}
		})
		if db.live.listening.Swap(false) {
			lost = db.Now()
		}
		if err == nil || ctx.Err() != nil {
			return
		}
		if time.Since(started) > time.Minute {
			pause = 100 * time.Millisecond
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(pause):
		}
		pause = min(2*pause, 30*time.Second)
		if db.live.reconnecting != nil {
			db.live.reconnecting()
		}
	}
}

// WithoutCounters returns ctx without a counters snapshot (WithCounters):
// its reads read the counters themselves. For contexts that outlive a
// request's moment, such as a subscription's.
func WithoutCounters(ctx context.Context) context.Context {
	return context.WithValue(ctx, countersKey{}, (*countersSnapshot)(nil))
}

// decodeLiveNotice reads a notification's payload (anyone who can connect
// to the database can NOTIFY on the channel): one of another process's
// events, or false for its own, a payload over maxLivePayload, or one
// that is not a notice.
func decodeLiveNotice(payload, self string) (LiveEvent, bool) {
	if len(payload) > maxLivePayload {
		return LiveEvent{}, false
	}
	var n liveNotice
	if json.Unmarshal([]byte(payload), &n) != nil || n.Origin == self || n.Origin == "" || n.Event.Action == "" {
		return LiveEvent{}, false
	}
	return n.Event, true
}
