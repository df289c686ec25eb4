package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	coderws "github.com/coder/websocket"
)

// Hostile subscribers: what one token can do to the WebSocket
// transport of GraphQL subscriptions. Each is bounded: subscriptions per
// connection, the size of a client's message, and a client that stops
// reading is disconnected while writes and other clients go on.
func init() {
	hostileCases = append(hostileCases,
		hostileCase{name: "GraphQL subscriptions: 1,000 subscriptions on one connection", attack: func(t *testing.T, s *hostileServer) time.Duration {
			c := hostileSocket(t, s)
			defer c.CloseNow()
			start := time.Now()
			for i := range 1000 {
				hostileSend(t, c, map[string]any{"id": fmt.Sprint(i), "type": "subscribe", "payload": map[string]any{
					"query": `subscription($s: ID!) { commentUpdated(spaceId: $s) { id } }`, "variables": map[string]any{"s": s.Space}}})
			}
			refused := 0
			for refused < 900 {
				m, err := hostileRead(c, 5*time.Second)
				if err != nil {
					t.Fatalf("after %d refusals: %v", refused, err)
				}
				if m["type"] == "next" {
					if !strings.Contains(fmt.Sprint(m["payload"]), "per-connection") {
						t.Fatalf("want a refusal for the connection's limit, got %v", m)
					}
					refused++
				}
			}
			return time.Since(start)
		}},
		hostileCase{name: "GraphQL subscriptions: a 10 MB connection_init", attack: func(t *testing.T, s *hostileServer) time.Duration {
			c := hostileDial(t, s)
			defer c.CloseNow()
			start := time.Now()
			big := map[string]any{"type": "connection_init", "payload": map[string]any{"Authorization": "Bearer " + s.Admin, "pad": strings.Repeat("x", 10<<20)}}
			b, _ := json.Marshal(big)
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			c.Write(ctx, coderws.MessageText, b) // the server may close before it has read it all
			_, err := hostileRead(c, 5*time.Second)
			if coderws.CloseStatus(err) != coderws.StatusMessageTooBig {
				t.Fatalf("want the connection closed with 1009 (message too big), got %v", err)
			}
			return time.Since(start)
		}},
		hostileCase{name: "GraphQL subscriptions: a client that never reads", attack: func(t *testing.T, s *hostileServer) time.Duration {
			c := hostileSocket(t, s)
			defer c.CloseNow()
			for i := range 100 {
				hostileSend(t, c, map[string]any{"id": fmt.Sprint(i), "type": "subscribe", "payload": map[string]any{
					"query": `subscription($s: ID!) { commentUpdated(spaceId: $s) { id body { markdown } } }`, "variables": map[string]any{"s": s.Space}}})
			}
			time.Sleep(500 * time.Millisecond) // the subscriptions start
			// Each comment is 100 events of 60 KB for the client, which
			// reads none: socket buffers fill, writes to it wait.
			body := map[string]any{"body": map[string]any{"markdown": strings.Repeat("word ", 12_000)}}
			var slowest time.Duration
			for range 10 {
				start := time.Now()
				s.must(t, 200, "POST", "/v1/spaces/"+s.Space+"/comments", s.Admin, body)
				if status, _ := s.call(t, "GET", "/v1/spaces/"+s.Space, s.Admin, nil); status != 200 {
					t.Fatalf("a read answered %d while a client does not read", status)
				}
				slowest = max(slowest, time.Since(start))
			}
			// The server gives up on the client (its write timeout): reading
			// now gets what the buffers held, then the end of the connection.
			time.Sleep(12 * time.Second)
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			for {
				if _, _, err := c.Read(ctx); err != nil {
					if errors.Is(err, context.DeadlineExceeded) || ctx.Err() != nil {
						t.Fatal("the server kept the connection of a client that does not read")
					}
					break
				}
			}
			return slowest
		}},
	)
}

func hostileDial(t *testing.T, s *hostileServer) *coderws.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, _, err := coderws.Dial(ctx, "ws"+strings.TrimPrefix(s.url, "http")+"/graphql", &coderws.DialOptions{Subprotocols: []string{"graphql-transport-ws"}})
	if err != nil {
		t.Fatal(err)
	}
	c.SetReadLimit(1 << 20)
	return c
}

// hostileSocket is a connection acknowledged for the admin's token.
func hostileSocket(t *testing.T, s *hostileServer) *coderws.Conn {
	t.Helper()
	c := hostileDial(t, s)
	hostileSend(t, c, map[string]any{"type": "connection_init", "payload": map[string]any{"Authorization": "Bearer " + s.Admin}})
	if m, err := hostileRead(c, 5*time.Second); err != nil || m["type"] != "connection_ack" {
		t.Fatalf("connection_init: %v %v", m, err)
	}
	return c
}

func hostileSend(t *testing.T, c *coderws.Conn, m map[string]any) {
	t.Helper()
	b, _ := json.Marshal(m)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := c.Write(ctx, coderws.MessageText, b); err != nil {
		t.Fatal(err)
	}
}

// hostileRead is the next message other than a ping.
func hostileRead(c *coderws.Conn, timeout time.Duration) (map[string]any, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	for {
		_, b, err := c.Read(ctx)
		if err != nil {
			return nil, err
		}
		var m map[string]any
		json.Unmarshal(b, &m)
		if m["type"] != "ping" {
			return m, nil
		}
	}
}
