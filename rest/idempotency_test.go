package rest_test

import (
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"docsapi/apitest"
)

func teamCount(t *testing.T, env *apitest.Env) int {
	t.Helper()
	return int(env.Must(200, "GET", "/v1/orgs/"+env.Org+"/teams", env.Admin.Token, nil).JSON()["count"].(float64))
}

func TestIdempotentReplay(t *testing.T) {
	env := apitest.New(t)
	tok := env.Admin.Token
	teams := "/v1/orgs/" + env.Org + "/teams"
	before := teamCount(t, env)

	first := env.Do("PUT", teams, tok, map[string]any{"title": "Writers"}, "Idempotency-Key", "k-1")
	if first.Status != 201 || first.Header.Get("Idempotent-Replayed") != "" {
		t.Fatalf("first: %d %s", first.Status, first.Body)
	}
	// Same key, same body (other whitespace): the first answer again, nothing created.
	again := env.Do("PUT", teams, tok, `{ "title" : "Writers" }`, "Idempotency-Key", "k-1")
	if again.Status != 201 || string(again.Body) != string(first.Body) || again.Header.Get("Idempotent-Replayed") != "true" ||
		again.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("replay: %d %v %s", again.Status, again.Header, again.Body)
	}
	if n := teamCount(t, env); n != before+1 {
		t.Fatalf("%d teams created, want 1", n-before)
	}
	// Same key, other body: 422, nothing created.
	r := env.Do("PUT", teams, tok, map[string]any{"title": "Editors"}, "Idempotency-Key", "k-1")
	if r.Status != http.StatusUnprocessableEntity {
		t.Fatalf("other body: %d %s", r.Status, r.Body)
	}
	apitest.ErrorShape(t, r)
	// Same key on another route: 422 as well.
	if r := env.Do("POST", "/v1/orgs/"+env.Org+"/link-invites", tok, map[string]any{"role": "read"}, "Idempotency-Key", "k-1"); r.Status != 422 {
		t.Errorf("key reused on another route: %d", r.Status)
	}
	// Keys are per token: another token's k-1 is a new request.
	admin2 := env.NewUser("admin2@acme.test", env.Org, "admin")
	if r := env.Do("PUT", teams, admin2.Token, map[string]any{"title": "Writers"}, "Idempotency-Key", "k-1"); r.Status != 201 || r.JSON()["id"] == first.JSON()["id"] {
		t.Errorf("another token's key: %d %s", r.Status, r.Body)
	}
	// Errors are not kept: a fixed request may reuse the key.
	if r := env.Do("POST", "/v1/orgs/"+env.Org+"/link-invites", tok, map[string]any{"role": "boss"}, "Idempotency-Key", "k-2"); r.Status != 400 {
		t.Fatalf("bad request: %d", r.Status)
	}
	if r := env.Do("POST", "/v1/orgs/"+env.Org+"/link-invites", tok, map[string]any{"role": "read"}, "Idempotency-Key", "k-2"); r.Status != 201 {
		t.Errorf("fixed request with the same key: %d %s", r.Status, r.Body)
	}
	// After 24 hours the key is forgotten.
	env.Clock.Advance(25 * time.Hour)
	if r := env.Do("PUT", teams, tok, map[string]any{"title": "Writers"}, "Idempotency-Key", "k-1"); r.Status != 201 || r.Header.Get("Idempotent-Replayed") != "" || r.JSON()["id"] == first.JSON()["id"] {
		t.Errorf("after 24 hours: %d %v", r.Status, r.Header)
	}
	// Without a key, POST and PUT behave as always.
	a := env.Must(201, "PUT", teams, tok, map[string]any{"title": "Twins"}).JSON()["id"]
	b := env.Must(201, "PUT", teams, tok, map[string]any{"title": "Twins"}).JSON()["id"]
	if a == b {
		t.Error("requests without a key were deduplicated")
	}
	if r := env.Do("PUT", teams, tok, map[string]any{"title": "X"}, "Idempotency-Key", strings.Repeat("k", 300)); r.Status != 400 {
		t.Errorf("overlong key: %d", r.Status)
	}
}

func TestIdempotentConcurrentRequests(t *testing.T) {
	env := apitest.New(t)
	tok := env.Admin.Token
	teams := "/v1/orgs/" + env.Org + "/teams"
	before := teamCount(t, env)
	const n = 8
	ids := make([]any, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			r := env.Do("PUT", teams, tok, map[string]any{"title": "Racers"}, "Idempotency-Key", "race")
			if r.Status != 201 {
				t.Errorf("request %d: %d %s", i, r.Status, r.Body)
			}
			ids[i] = r.JSON()["id"]
		})
	}
	wg.Wait()
	for i := range ids {
		if ids[i] != ids[0] || ids[i] == nil {
			t.Fatalf("concurrent requests with one key answered ids %v", ids)
		}
	}
	if got := teamCount(t, env); got != before+1 {
		t.Fatalf("%d teams created by %d concurrent requests with one key, want 1", got-before, n)
	}
}
