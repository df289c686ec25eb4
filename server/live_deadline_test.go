package server_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"docsapi/apitest"
	"docsapi/server"
	"docsapi/storage"
)

// sseFirst POSTs an operation with Accept: text/event-stream and returns
// the status and the first event's data ("" when the stream has none
// within the timeout).
func sseFirst(t *testing.T, env *apitest.Env, query string, vars map[string]any, wait time.Duration) (int, string) {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"query": query, "variables": vars})
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "POST", env.HTTP.URL+"/graphql", bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+env.Admin.Token)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	lines := bufio.NewScanner(resp.Body)
	for lines.Scan() {
		if data, ok := strings.CutPrefix(lines.Text(), "data: "); ok {
			return resp.StatusCode, data
		}
	}
	return resp.StatusCode, ""
}

const createSpaceMutation = `mutation($o: ID!) { createSpace(organizationId: $o, input: {title: "Over SSE"}) { id } }`

// TestLiveMutationKeepsRequestDeadline: a mutation sent over the SSE
// transport runs under the GraphQL request deadline (here already passed)
// and is answered with it, writing nothing, while a subscription on the
// same transport still opens and waits; with the usual deadline the same
// mutation runs.
func TestLiveMutationKeepsRequestDeadline(t *testing.T) {
	env := apitest.New(t, apitest.Options{Config: func(c *server.Config) {
		c.RequestTimeout, c.ImportTimeout = time.Nanosecond, time.Nanosecond
	}})
	status, data := sseFirst(t, env, createSpaceMutation, map[string]any{"o": env.Org}, 10*time.Second)
	if status != 200 || !strings.Contains(data, "longer than the server's limit") || strings.Contains(data, `"createSpace":{`) {
		t.Fatalf("mutation over SSE past the deadline answered %d %s", status, data)
	}
	spaces, err := env.Server.DB.ListSpaces(context.Background(), storage.SpaceFilter{OrganizationID: env.Org}, nil, storage.PageQuery{Limit: 10})
	if err != nil || len(spaces.Items) != 0 {
		t.Fatalf("spaces after the refused mutation: %v %v", spaces.Items, err)
	}
	// A subscription escapes the deadline: it is still open (no event,
	// no error) after well past it.
	space := "not-a-space-yet"
	_, sub := sseFirst(t, env, commentSub, map[string]any{"s": space}, 300*time.Millisecond)
	if strings.Contains(sub, "longer than the server's limit") {
		t.Fatalf("subscription over SSE ended by the request deadline: %s", sub)
	}

	ok := apitest.New(t)
	if status, data := sseFirst(t, ok, createSpaceMutation, map[string]any{"o": ok.Org}, 10*time.Second); status != 200 || !strings.Contains(data, `"createSpace":{"id":"`) {
		t.Fatalf("mutation over SSE answered %d %s", status, data)
	}
}
