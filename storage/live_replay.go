package storage

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"time"
)

// Replaying the live events a replica missed. A replica learns
// of the other replicas' changes through LISTEN; while that connection is
// down their notifications are lost. The changes themselves are not: each
// is in the change record (the audit log, written in the transaction that
// makes the change, audit.go). Once listening again, the replica reads the
// live changes recorded since it lost the connection (less Slack, for the
// transactions that began before and committed after) and announces those
// it has not announced yet, oldest first: its last-seen position is the
// set of changes it announced lately (liveSeen), matched by the record's
// ids, so none is announced twice whichever way it came. The replay is
// bounded: beyond Events changes, or after a connection lost for longer
// than Age, nothing is replayed and OnLiveGap's function tells the
// subscribers to read again what they watch.

// LiveReplay bounds the replay of a reconnection.
type LiveReplay struct {
	Events int           // most changes replayed
	Age    time.Duration // longest outage replayed
	Slack  time.Duration // read back before the loss
}

// DefaultLiveReplay: 1,000 changes, 5 minutes, 10 seconds back.
var DefaultLiveReplay = LiveReplay{Events: 1000, Age: 5 * time.Minute, Slack: 10 * time.Second}

// maxLiveSeen bounds the ids a process remembers having announced.
const maxLiveSeen = 50_000

// SetLiveReplay changes the bounds of replays (zero fields: the defaults).
// Call it before ListenLive.
func (db *DB) SetLiveReplay(r LiveReplay) { db.live.replay = r }

func (f *liveFeed) replayBounds() LiveReplay {
	r := f.replay
	if r.Events <= 0 {
		r.Events = DefaultLiveReplay.Events
	}
	if r.Age <= 0 {
		r.Age = DefaultLiveReplay.Age
	}
	if r.Slack <= 0 {
		r.Slack = DefaultLiveReplay.Slack
	}
	return r
}

// liveSeen is the ids of the changes a process announced lately, oldest
// first: those recorded within the longest replay window (Age and Slack
// before now), at most maxLiveSeen.
type liveSeen struct {
	mu    sync.Mutex
	ids   map[string]struct{}
	order []string // order[head:] are the ids kept
	head  int
}

// first records id and tells whether it is new.
func (s *liveSeen) first(id string, r LiveReplay, now time.Time) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.ids[id]; ok {
		return false
	}
	if s.ids == nil {
		s.ids = map[string]struct{}{}
	}
	s.ids[id] = struct{}{}
	s.order = append(s.order, id)
	oldest := now.Add(-r.Age - r.Slack).UnixMilli()
	for s.head < len(s.order) && (len(s.order)-s.head > maxLiveSeen || timedIDMillis(s.order[s.head]) < oldest) {
		delete(s.ids, s.order[s.head])
		s.order[s.head] = ""
		s.head++
	}
	if s.head > 1024 && s.head > len(s.order)/2 {
		s.order = append([]string(nil), s.order[s.head:]...)
		s.head = 0
	}
	return true
}

func (s *liveSeen) has(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.ids[id]
	return ok
}

func (s *liveSeen) len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.order) - s.head
}

// liveReplaySQL reads the live changes recorded since a time, oldest
// first, from both parts of the audit log (audit_recent and audit_log are
// disjoint at every moment, and one statement reads one snapshot of both).
var liveReplaySQL = func() string {
	var match []string
	for _, p := range liveActionPrefixes {
		match = append(match, "action LIKE '"+p+"%'")
	}
	match = append(match, "action IN ('"+strings.Join(liveActions, "', '")+"')")
	where := "created_at >= ? AND organization_id <> '' AND (" + strings.Join(match, " OR ") + ")"
	cols := "id, organization_id, action, target_type, target_id, fields, created_at"
	return "SELECT " + cols + " FROM audit_recent WHERE " + where +
		" UNION ALL SELECT " + cols + " FROM audit_log WHERE " + where +
		" ORDER BY 7, 1 LIMIT ?"
}()

// replayLive announces the live changes recorded since lost (less Slack)
// that this process has not announced, oldest first; too many of them, a
// loss too old or a failed read call OnLiveGap's function instead.
func (db *DB) replayLive(ctx context.Context, lost time.Time) {
	r := db.live.replayBounds()
	if db.Now().Sub(lost) > r.Age {
		db.liveGap()
		return
	}
	evs, ok := db.missedLive(ctx, lost.Add(-r.Slack), r.Events)
	if !ok {
		db.liveGap()
		return
	}
	for _, ev := range evs {
		db.publishLive(ev)
	}
}

// missedLive reads the live changes recorded since from that this process
// has not announced, oldest first; false when there are more than most
// (or the read failed). Times are the database's clock (Options.Clock), the
// one the record's are written with.
func (db *DB) missedLive(ctx context.Context, from time.Time, most int) ([]LiveEvent, bool) {
	// The changes announced already are in the window too: read past them.
	limit := most + db.live.seen.len() + 1
	rows, err := db.r().QueryContext(ctx, liveReplaySQL, from.UnixMilli(), from.UnixMilli(), limit)
	if err != nil {
		return nil, false
	}
	defer rows.Close()
	var evs []LiveEvent
	read := 0
	for rows.Next() {
		read++
		var c Change
		var id, fields string
		var at int64
		if err := rows.Scan(&id, &c.OrganizationID, &c.Action, &c.TargetType, &c.TargetID, &fields, &at); err != nil {
			return nil, false
		}
		if !isLiveAction(c.Action) || db.live.seen.has(id) {
			continue
		}
		if len(fields) > 0 && json.Unmarshal([]byte(fields), &c.Fields) != nil {
			continue // not a change this process can read back: none of the live ones
		}
		ev := liveEventOf(c)
		ev.ID = id
		if evs = append(evs, ev); len(evs) > most {
			return nil, false
		}
	}
	if rows.Err() != nil || read >= limit {
		return nil, false
	}
	return evs, true
}

// SetLiveReconnectHook sets what ListenLive runs before each reconnection
// (tests hold a replica disconnected with it). Call it before ListenLive.
func (db *DB) SetLiveReconnectHook(f func()) { db.live.reconnecting = f }
