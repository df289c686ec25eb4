package server_test

import (
	"context"
	"database/sql"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"docsapi/apitest"
	"docsapi/storage"
)

// TestSubscriptionReplayAfterLostListenOnPostgres: a replica whose LISTEN
// connection is killed (pg_terminate_backend) while comments are posted
// through the other instance delivers them to its WebSocket subscriber
// once it listens again, in order, once each; when more were missed than
// it replays, its subscriptions end with RESYNC. Runs with DOCSAPI_TEST_DB
// set to a PostgreSQL cluster (test/pg/cluster.sh).
func TestSubscriptionReplayAfterLostListenOnPostgres(t *testing.T) {
	env := apitest.New(t)
	if !strings.HasPrefix(env.DBPath, "postgres") {
		t.Skip("needs PostgreSQL (DOCSAPI_TEST_DB, test/pg/cluster.sh)")
	}
	replica := env.Replica()
	var gate atomic.Pointer[chan struct{}]
	replica.DB.SetLiveReconnectHook(func() {
		if g := gate.Load(); g != nil {
			<-*g
		}
	})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { replica.Server.ListenLive(ctx); close(done) }()
	defer func() { cancel(); <-done }()
	waitListening := func(want bool) {
		t.Helper()
		for deadline := time.Now().Add(10 * time.Second); replica.DB.LiveListening() != want; time.Sleep(5 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("the replica's listening is not %v", want)
			}
		}
	}
	admin, err := sql.Open("pgx", env.DBPath)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	lose := func() {
		t.Helper()
		g := make(chan struct{})
		gate.Store(&g)
		var n int
		if err := admin.QueryRow(`SELECT COUNT(pg_terminate_backend(pid)) FROM pg_stat_activity
			WHERE datname = current_database() AND query = 'LISTEN docsapi_live' AND pid <> pg_backend_pid()`).Scan(&n); err != nil || n != 1 {
			t.Fatalf("terminated %d listening connections: %v", n, err)
		}
		waitListening(false)
	}
	reconnect := func() {
		t.Helper()
		close(*gate.Swap(nil))
		waitListening(true)
	}
	waitListening(true)

	space := newSpace(env, env.Admin.Token)
	c := dialLive(t, replica, nil, bearer(env.Admin.Token))
	defer c.close()
	c.subscribe("s", commentSub, map[string]any{"s": space})
	waitSubscribed(t, replica, 1)
	expect := func(ids ...string) {
		t.Helper()
		for _, id := range ids {
			if got := c.next("s")["commentUpdated"].(map[string]any)["id"]; got != id {
				t.Fatalf("event %v, want %v", got, id)
			}
		}
	}

	lose()
	var missed []string
	for _, text := range []string{"one", "two", "three"} {
		missed = append(missed, postComment(env, env.Admin.Token, space, text))
	}
	reconnect()
	expect(missed...)
	after := postComment(env, env.Admin.Token, space, "after")
	expect(after) // and no second copy of the missed ones before it

	replica.DB.SetLiveReplay(storage.LiveReplay{Events: 2})
	lose()
	for _, text := range []string{"four", "five", "six"} {
		postComment(env, env.Admin.Token, space, text)
	}
	reconnect()
	c.ended("s", "RESYNC")
}
