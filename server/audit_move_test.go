package server_test

import (
	"context"
	"testing"
	"time"

	"docsapi/apitest"
	"docsapi/storage"
)

// TestAuditMoveWorker: a change's audit entry is listed the instant its
// write commits (from the recent entries), and the registered workers move
// it into the indexed log on their first pass; it is listed the same after.
func TestAuditMoveWorker(t *testing.T) {
	env := apitest.New(t)
	id := env.Must(201, "POST", "/v1/orgs/"+env.Org+"/spaces", env.Admin.Token, map[string]any{"title": "Audited"}).JSON()["id"].(string)
	ctx := context.Background()
	listed := func(when string) {
		t.Helper()
		p, err := env.DB.ListAudit(ctx, env.Org, storage.AuditFilter{Action: "space.created", TargetID: id}, storage.PageQuery{Limit: 10})
		if err != nil || p.Count != 1 || len(p.Items) != 1 || p.Items[0].TargetID != id {
			t.Fatalf("%s: %+v, %v", when, p, err)
		}
	}
	if n, err := env.DB.RecentAuditEntries(ctx); err != nil || n == 0 {
		t.Fatalf("recent entries after the create: %d, %v", n, err)
	}
	listed("before the move")
	wctx, cancel := context.WithCancel(ctx)
	wg := env.Server.StartWorkers(wctx)
	defer func() {
		cancel()
		wg.Wait()
	}()
	deadline := time.Now().Add(10 * time.Second)
	for {
		n, err := env.DB.RecentAuditEntries(ctx)
		if err == nil && n == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the worker did not move the recent entries: %d left, %v", n, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
	listed("after the move")
}
