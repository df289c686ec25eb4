package storage

import (
	"context"
	"sync/atomic"
	"testing"
	"time"
)

// TestLiveReplayAfterLostConnectionOnPostgres: a replica's LISTEN
// connection is killed (pg_terminate_backend); the changes another
// process commits while it is down reach the replica once it listens
// again, in their order, each once (its own change of the meantime
// included, announced at once and not again); changes that do not fit the
// replay's bounds are not replayed, OnLiveGap is called instead.
func TestLiveReplayAfterLostConnectionOnPostgres(t *testing.T) {
	postgresServer(t)
	target := testTarget(t)
	writer, err := Open(target, Options{Readers: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer writer.Close()
	replica, err := Open(target, Options{Readers: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer replica.Close()

	got := make(chan LiveEvent, 100)
	replica.OnLiveChange(func(ev LiveEvent) { got <- ev })
	gaps := make(chan struct{}, 10)
	replica.OnLiveGap(func() { gaps <- struct{}{} })
	// While gate is set, the replica does not reconnect.
	var gate atomic.Pointer[chan struct{}]
	replica.SetLiveReconnectHook(func() {
		if g := gate.Load(); g != nil {
			<-*g
		}
	})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { replica.ListenLive(ctx); close(done) }()
	defer func() { cancel(); <-done }()

	waitListening := func(want bool) {
		t.Helper()
		for deadline := time.Now().Add(10 * time.Second); replica.LiveListening() != want; time.Sleep(5 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("listening is not %v", want)
			}
		}
	}
	commit := func(db *DB, target string) {
		t.Helper()
		ctx := RecordingChange(context.Background(), Change{OrganizationID: "o1", Action: "comment.created", TargetType: "comment",
			TargetID: target, Fields: map[string]any{"space": "sp1"}})
		if err := db.Write(ctx, func(*Tx) error { return nil }); err != nil {
			t.Fatal(err)
		}
	}
	expect := func(targets ...string) {
		t.Helper()
		for _, want := range targets {
			select {
			case ev := <-got:
				if ev.Target != want || ev.Space != "sp1" || ev.Action != "comment.created" || ev.ID == "" {
					t.Fatalf("got %+v, want the change of %s", ev, want)
				}
			case <-time.After(10 * time.Second):
				t.Fatalf("no event for %s", want)
			}
		}
	}
	quiet := func() {
		t.Helper()
		select {
		case ev := <-got:
			t.Fatalf("a second announcement: %+v", ev)
		case <-gaps:
			t.Fatal("a gap where there was none")
		case <-time.After(300 * time.Millisecond):
		}
	}
	lose := func() {
		t.Helper()
		g := make(chan struct{})
		gate.Store(&g)
		var n int
		if err := writer.read.QueryRow(`SELECT COUNT(pg_terminate_backend(pid)) FROM pg_stat_activity
			WHERE datname = current_database() AND query = 'LISTEN ` + liveChannel + `' AND pid <> pg_backend_pid()`).Scan(&n); err != nil || n != 1 {
			t.Fatalf("terminated %d listening connections: %v", n, err)
		}
		waitListening(false)
	}
	reconnect := func() {
		t.Helper()
		g := gate.Swap(nil)
		close(*g)
		waitListening(true)
	}

	waitListening(true)
	commit(writer, "before")
	expect("before")

	lose()
	commit(writer, "missed1")
	commit(writer, "missed2")
	commit(replica, "own") // announced in process at its commit
	expect("own")
	commit(writer, "missed3")
	quiet()
	reconnect()
	expect("missed1", "missed2", "missed3")
	commit(writer, "after")
	expect("after")
	quiet()

	// More than the replay takes: none replayed, a gap instead.
	replica.SetLiveReplay(LiveReplay{Events: 2})
	lose()
	for _, id := range []string{"x1", "x2", "x3"} {
		commit(writer, id)
	}
	reconnect()
	select {
	case <-gaps:
	case ev := <-got:
		t.Fatalf("replayed %+v beyond the bound", ev)
	case <-time.After(10 * time.Second):
		t.Fatal("no gap announced")
	}
	commit(writer, "live again")
	expect("live again")
	quiet()
}

// TestLiveSeenBounded: the ids a process remembers are those of the replay
// window, at most maxLiveSeen; an id is new once.
func TestLiveSeenBounded(t *testing.T) {
	var s liveSeen
	r := LiveReplay{Events: 10, Age: time.Minute, Slack: time.Second}
	old := timedID(time.Now().Add(-2 * time.Minute).UnixMilli())
	if !s.first(old, r, time.Now()) || s.len() != 0 {
		t.Fatalf("an id older than the window is kept (%d)", s.len())
	}
	for i := range maxLiveSeen + 10 {
		id := NewTimedID()
		if !s.first(id, r, time.Now()) {
			t.Fatalf("id %d not new", i)
		}
		if s.first(id, r, time.Now()) {
			t.Fatalf("id %d new twice", i)
		}
	}
	if s.len() != maxLiveSeen || len(s.ids) != maxLiveSeen || len(s.order)-s.head != maxLiveSeen {
		t.Fatalf("%d ids kept, want %d", s.len(), maxLiveSeen)
	}
}
