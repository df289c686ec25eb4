package server_test

import (
	"bytes"
	"context"
	"errors"
	"testing"
	"time"

	coderws "github.com/coder/websocket"

	"docsapi/apitest"
)

// TestLiveWebsocketProtocol: docsapi's graphql-transport-ws transport
// keeps the protocol's rules: a ping is answered with a pong (its payload
// echoed), complete stops a subscription (its feed place freed), a
// subscribe before connection_init closes 4401, a second connection_init
// 4429, a subscription id in use 4409, a message that is not one 4400.
func TestLiveWebsocketProtocol(t *testing.T) {
	env := apitest.New(t)
	space := newSpace(env, env.Admin.Token)

	c := dialLive(t, env, nil, bearer(env.Admin.Token))
	defer c.close()
	c.send(map[string]any{"type": "ping", "payload": map[string]any{"n": 1}})
	if m, err := c.readErr(5 * time.Second); err != nil || m["type"] != "pong" || !equalJSON(m["payload"], map[string]any{"n": 1}) {
		t.Fatalf("ping answered %v %v", m, err)
	}
	c.subscribe("a", commentSub, map[string]any{"s": space})
	waitSubscribed(t, env, 1)
	c.send(map[string]any{"id": "a", "type": "complete"})
	waitSubscribed(t, env, 0)
	if m, err := c.readErr(5 * time.Second); err != nil || m["type"] != "complete" || m["id"] != "a" {
		t.Fatalf("after complete: %v %v", m, err) // as gqlgen's transport: complete, then nothing
	}
	postComment(env, env.Admin.Token, space, "after complete")
	c.quiet(200 * time.Millisecond)

	closedWith := func(name string, want coderws.StatusCode, steps func(d *liveClient)) {
		t.Helper()
		d, err := dialLiveErr(env, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		d.t = t
		steps(d)
		for err == nil {
			_, err = d.readErr(5 * time.Second)
		}
		if got := coderws.CloseStatus(err); got != want {
			t.Errorf("%s: closed with %v (%v), want %d", name, got, err, want)
		}
	}
	closedWith("subscribe first", 4401, func(d *liveClient) { d.subscribe("a", commentSub, map[string]any{"s": space}) })
	init := func(d *liveClient) {
		d.send(map[string]any{"type": "connection_init", "payload": bearer(env.Admin.Token)})
		if m, err := d.readErr(5 * time.Second); err != nil || m["type"] != "connection_ack" {
			t.Fatalf("init answered %v %v", m, err)
		}
	}
	closedWith("second init", 4429, func(d *liveClient) {
		init(d)
		d.send(map[string]any{"type": "connection_init", "payload": bearer(env.Admin.Token)})
	})
	closedWith("id in use", 4409, func(d *liveClient) {
		init(d)
		d.subscribe("a", commentSub, map[string]any{"s": space})
		d.subscribe("a", commentSub, map[string]any{"s": space})
	})
	closedWith("unknown type", 4400, func(d *liveClient) {
		init(d)
		d.send(map[string]any{"type": "start", "id": "a"})
	})
	waitSubscribed(t, env, 0)
}

// FuzzLiveWebsocketMessages: whatever a client sends once its connection
// is initialised (one text frame of any bytes), the transport answers
// with the protocol's messages (pong, next, error, complete) or closes
// with one of its codes, never anything else, and the server keeps
// accepting connections after it.
func FuzzLiveWebsocketMessages(f *testing.F) {
	env := apitest.New(f)
	space := newSpace(env, env.Admin.Token)
	for _, s := range []string{
		`{"type":"ping"}`,
		`{"type":"ping","payload":{"a":[1,"2",null]}}`,
		`{"type":"pong"}`,
		`{"type":"subscribe","id":"a","payload":{"query":"subscription($s: ID!) { commentUpdated(spaceId: $s) { id } }","variables":{"s":"` + space + `"}}}`,
		`{"type":"subscribe","id":"b","payload":{"query":"{"}}`,
		`{"type":"subscribe","id":"c","payload":[]}`,
		`{"type":"subscribe","payload":{}}`,
		`{"type":"complete","id":"unknown"}`,
		`{"type":"connection_init"}`,
		`{"type":""}`,
		`not json`,
		"\xff\xfe",
	} {
		f.Add([]byte(s))
	}
	closes := map[coderws.StatusCode]bool{coderws.StatusNormalClosure: true, coderws.StatusMessageTooBig: true, 4400: true, 4401: true, 4403: true, 4408: true, 4409: true, 4429: true}
	f.Fuzz(func(t *testing.T, msg []byte) {
		c := dialLive(t, env, nil, bearer(env.Admin.Token))
		defer c.close()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := c.conn.Write(ctx, coderws.MessageText, msg); err != nil {
			t.Fatalf("write: %v", err)
		}
		for {
			_, m, err := c.readRaw(300 * time.Millisecond)
			if errors.Is(err, context.DeadlineExceeded) {
				break // quiet: a subscription waiting for events
			}
			if err != nil {
				if code := coderws.CloseStatus(err); !closes[code] {
					t.Fatalf("%q: ended with %v (%v)", msg, code, err)
				}
				break
			}
			switch m["type"] {
			case "pong", "next", "error", "complete":
			default:
				t.Fatalf("%q: answered %v", msg, m)
			}
		}
		dialLive(t, env, nil, bearer(env.Admin.Token)).close()
	})
}

// TestLiveWebsocketRefusesOversizeMessage: a message ten times the
// transport's 64 KB bound closes the connection (1009, message too big)
// within a second, without the server reading it whole, and the server
// keeps accepting connections.
func TestLiveWebsocketRefusesOversizeMessage(t *testing.T) {
	env := apitest.New(t)
	c := dialLive(t, env, nil, bearer(env.Admin.Token))
	defer c.close()
	big := append([]byte(`{"type":"ping","payload":"`), bytes.Repeat([]byte("x"), 640<<10)...)
	big = append(big, `"}`...)
	start := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c.conn.Write(ctx, coderws.MessageText, big) // may fail once the server has closed
	_, err := c.readErr(5 * time.Second)
	if code := coderws.CloseStatus(err); code != coderws.StatusMessageTooBig {
		t.Fatalf("closed with %v (%v), want 1009", code, err)
	}
	if took := time.Since(start); took > time.Second {
		t.Errorf("refused after %v", took)
	}
	dialLive(t, env, nil, bearer(env.Admin.Token)).close()
}
