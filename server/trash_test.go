package server_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"docsapi/apitest"
	"docsapi/graph"
	"docsapi/storage"
)

// TestTrashWorkerPurgesExpiredSpaces runs the registered workers over a
// database whose clock is past a trashed space's retention: the worker's
// first pass removes it, without waiting for the retention itself.
func TestTrashWorkerPurgesExpiredSpaces(t *testing.T) {
	env := apitest.New(t)
	id := env.Must(201, "POST", "/v1/orgs/"+env.Org+"/spaces", env.Admin.Token, map[string]any{"title": "Old"}).JSON()["id"].(string)
	kept := env.Must(201, "POST", "/v1/orgs/"+env.Org+"/spaces", env.Admin.Token, map[string]any{"title": "Recent"}).JSON()["id"].(string)
	env.Must(205, "DELETE", "/v1/spaces/"+id, env.Admin.Token, nil)
	env.Clock.Advance(graph.TrashRetention + time.Second)
	env.Must(205, "DELETE", "/v1/spaces/"+kept, env.Admin.Token, nil)

	ctx, cancel := context.WithCancel(context.Background())
	wg := env.Server.StartWorkers(ctx)
	defer func() {
		cancel()
		wg.Wait()
	}()
	deadline := time.Now().Add(10 * time.Second)
	for {
		_, err := env.DB.Space(context.Background(), id)
		if errors.Is(err, storage.ErrNotFound) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the worker did not purge the expired space (last read: %v)", err)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if _, err := env.DB.Space(context.Background(), kept); err != nil {
		t.Errorf("a space within its retention was purged: %v", err)
	}
}
