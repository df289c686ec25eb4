package rest_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"docsapi/apitest"
	"docsapi/rest"
	"docsapi/storage"
)

// Two replicas (two storage handles and servers on one database file, as
// two processes would be) racing PATCHes with one If-Match: exactly one
// wins, every other gets 412, however the requests are spread over them.
// In each round a third handle holds the database's write lock while the
// PATCHes arrive, so that every one of them passes the first If-Match
// check (made before writing) and waits for the lock: only the check
// inside the write transaction can then tell them apart.
func TestIfMatchAcrossReplicas(t *testing.T) {
	a := apitest.New(t)
	b := a.Replica()
	space := newSpace(t, a, a.Org)
	path := "/v1/spaces/" + space
	const rounds, racers = 4, 6
	for round := range rounds {
		tag := b.Must(200, "GET", path, a.Admin.Token, nil).Header.Get("ETag")
		time.AfterFunc(300*time.Millisecond, holdWriteLock(t, a.DBPath))
		statuses := make([]int, racers)
		var wg sync.WaitGroup
		for i := range racers {
			env := a
			if i%2 == 1 {
				env = b
			}
			wg.Go(func() {
				body := map[string]any{"title": fmt.Sprintf("Round %d racer %d", round, i)}
				statuses[i] = env.Do("PATCH", path, a.Admin.Token, body, "If-Match", tag).Status
			})
		}
		wg.Wait()
		won := 0
		for _, s := range statuses {
			switch s {
			case 200:
				won++
			case 412:
			default:
				t.Fatalf("round %d: status %d (%v)", round, s, statuses)
			}
		}
		if won != 1 {
			t.Fatalf("round %d: %d writes passed one If-Match (%v)", round, won, statuses)
		}
	}
}

// holdWriteLock takes the database's write lock from a handle of its own
// (as another process would) until the returned release is called.
func holdWriteLock(t *testing.T, path string) (release func()) {
	t.Helper()
	db, err := storage.Open(path, storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	held, done, closed := make(chan struct{}), make(chan struct{}), make(chan struct{})
	go func() {
		db.Write(context.Background(), func(*storage.Tx) error {
			close(held)
			<-done
			return nil
		})
		db.Close()
		close(closed)
	}()
	<-held
	return func() { close(done); <-closed }
}

// Requests with one Idempotency-Key arriving on two replicas at once (all
// of them past the key lookup and waiting for the write lock): one team is
// created; every answer is that team's 201 or a 409 (the key is taken by a
// request being answered), and retries on either replica replay the 201.
func TestIdempotencyKeyAcrossReplicas(t *testing.T) {
	a := apitest.New(t)
	b := a.Replica()
	teams := "/v1/orgs/" + a.Org + "/teams"
	before := teamCount(t, a)
	release := holdWriteLock(t, a.DBPath)
	time.AfterFunc(300*time.Millisecond, release)
	const n = 6
	answers := make([]apitest.Response, n)
	var wg sync.WaitGroup
	for i := range n {
		env := a
		if i%2 == 1 {
			env = b
		}
		wg.Go(func() {
			answers[i] = env.Do("PUT", teams, a.Admin.Token, map[string]any{"title": "Racers"}, "Idempotency-Key", "replicas")
		})
	}
	wg.Wait()
	var id any
	for i, r := range answers {
		switch r.Status {
		case 201:
			if id != nil && r.JSON()["id"] != id {
				t.Fatalf("answer %d created another team: %s", i, r.Body)
			}
			id = r.JSON()["id"]
		case 409:
			apitest.ErrorShape(t, r)
		default:
			t.Fatalf("answer %d: %d %s", i, r.Status, r.Body)
		}
	}
	if got := teamCount(t, a); got != before+1 || id == nil {
		t.Fatalf("%d teams created by %d requests with one key on two replicas, want 1", got-before, n)
	}
	for _, env := range []*apitest.Env{a, b} {
		r := env.Do("PUT", teams, a.Admin.Token, map[string]any{"title": "Racers"}, "Idempotency-Key", "replicas")
		if r.Status != 201 || r.JSON()["id"] != id || r.Header.Get("Idempotent-Replayed") != "true" {
			t.Fatalf("retry: %d %v %s", r.Status, r.Header, r.Body)
		}
	}
}

// A process that committed a create and stopped before storing its answer
// leaves the key recorded without one: a retry is refused with 409 and
// creates nothing, instead of creating twice.
func TestIdempotencyKeyCommittedWithoutAnswer(t *testing.T) {
	env := apitest.New(t)
	teams := "/v1/orgs/" + env.Org + "/teams"
	tokens := env.Must(200, "GET", "/v1/user/tokens", env.Admin.Token, nil).JSON()["items"].([]any)
	tokenID := tokens[0].(map[string]any)["id"].(string)
	body := `{"title":"Crashed"}`
	req := httptest.NewRequest("PUT", teams, strings.NewReader(body))
	fingerprint := rest.RequestFingerprint(req, []byte(body))
	// What the crashed process committed: its create and, in the same
	// transaction, the key.
	ctx := context.Background()
	err := env.DB.Write(ctx, func(tx *storage.Tx) error {
		ok, err := storage.ReserveIdempotencyKey(tx, tokenID, "crash", fingerprint, "gone", env.Clock.Now().Add(-rest.IdempotencyTTL))
		if err == nil && !ok {
			t.Error("the key was taken")
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	before := teamCount(t, env)
	r := env.Do("PUT", teams, env.Admin.Token, body, "Idempotency-Key", "crash")
	if r.Status != 409 {
		t.Fatalf("retry after a crash: %d %s", r.Status, r.Body)
	}
	apitest.ErrorShape(t, r)
	if n := teamCount(t, env); n != before {
		t.Fatalf("the retry created %d teams", n-before)
	}
	// Another request with that key is still a 422.
	if r := env.Do("PUT", teams, env.Admin.Token, `{"title":"Other"}`, "Idempotency-Key", "crash"); r.Status != 422 {
		t.Fatalf("other request with the key: %d %s", r.Status, r.Body)
	}
}

// Change requests created at once on two replicas get the numbers 1..N,
// without gaps or duplicates, and the space's counters are exact when read
// from either replica.
func TestChangeRequestNumbersAcrossReplicas(t *testing.T) {
	a := apitest.New(t)
	b := a.Replica()
	space := newSpace(t, a, a.Org)
	const n = 20
	numbers := make([]int, n)
	// The requests arrive while a third handle holds the write lock, then
	// race for it from both replicas.
	time.AfterFunc(200*time.Millisecond, holdWriteLock(t, a.DBPath))
	var wg sync.WaitGroup
	for i := range n {
		env := a
		if i%2 == 1 {
			env = b
		}
		wg.Go(func() {
			r := env.Do("POST", "/v1/spaces/"+space+"/change-requests", a.Admin.Token, map[string]any{"subject": fmt.Sprint(i)})
			if r.Status == 201 {
				numbers[i] = int(r.JSON()["number"].(float64))
			}
		})
	}
	wg.Wait()
	sort.Ints(numbers)
	for i, got := range numbers {
		if got != i+1 {
			t.Fatalf("numbers %v, want 1..%d", numbers, n)
		}
	}
	for _, env := range []*apitest.Env{a, b} {
		if s := env.Must(200, "GET", "/v1/spaces/"+space, a.Admin.Token, nil).JSON(); s["changeRequests"].(float64) != n || s["changeRequestsDraft"].(float64) != n {
			t.Fatalf("counters: %v", s)
		}
	}
}
