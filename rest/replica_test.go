package rest_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"docsapi/apitest"
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
	blocker, err := storage.Open(a.DBPath, storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer blocker.Close()
	space := newSpace(t, a, a.Org)
	path := "/v1/spaces/" + space
	const rounds, racers = 4, 6
	for round := range rounds {
		tag := b.Must(200, "GET", path, a.Admin.Token, nil).Header.Get("ETag")
		held, release := make(chan struct{}), make(chan struct{})
		go blocker.Write(context.Background(), func(*storage.Tx) error {
			close(held)
			<-release
			return nil
		})
		<-held
		time.AfterFunc(300*time.Millisecond, func() { close(release) })
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
