package storage_test

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"docsapi/storage"
)

// The webhook outbox is written by the change's own transaction: a write
// that fails after describing its change (its own error, a later sink's
// error) queues nothing; a committed one queues one delivery per active
// subscribed endpoint of its organization, and wakes the worker.
func TestWebhookOutboxFollowsTheTransaction(t *testing.T) {
	db := openDB(t, filepath.Join(t.TempDir(), "w.db"))
	ctx := context.Background()
	b, err := db.CreateOrganizationWithAdmin(ctx, "Acme", "a@acme.test", "A", "hash-a")
	if err != nil {
		t.Fatal(err)
	}
	org := b.Organization.ID
	hook := func(events []string, active bool) storage.Webhook {
		w := storage.Webhook{OrganizationID: org, URL: "https://x.test", Events: events, Active: active, Secret: "whsec_k"}
		if err := db.CreateWebhook(ctx, &w); err != nil {
			t.Fatal(err)
		}
		return w
	}
	subscribed := hook([]string{"space.created", "page.changed"}, true)
	other := hook([]string{"page.changed"}, true)
	inactive := hook([]string{"space.created"}, false)
	woken := 0
	db.OnWebhooksQueued(func() { woken++ })
	queued := func() int {
		n := 0
		for _, w := range []storage.Webhook{subscribed, other, inactive} {
			p, err := db.ListWebhookDeliveries(ctx, w.ID, storage.PageQuery{Limit: 100})
			if err != nil {
				t.Fatal(err)
			}
			n += len(p.Items)
		}
		return n
	}

	sp := storage.Space{OrganizationID: org, Title: "Guide", Visibility: "private", EditMode: "live"}
	created := func(ctx context.Context) context.Context {
		return storage.Recording(ctx, func() []storage.Change {
			return []storage.Change{{OrganizationID: org, Action: "space.created", TargetType: "space", TargetID: sp.ID, Fields: map[string]any{"title": sp.Title}}}
		})
	}

	// The write's own failure after the change was described.
	failed := errors.New("constraint")
	if err := db.Write(created(ctx), func(tx *storage.Tx) error { return failed }); !errors.Is(err, failed) {
		t.Fatal(err)
	}
	// A sink after the outbox's fails: the outbox's insert rolls back with the space.
	restore := storage.AddChangeSinkForTest(func(*storage.Tx, storage.Actor, storage.Change) error { return failed })
	if err := db.CreateSpace(created(ctx), &sp); !errors.Is(err, failed) {
		t.Fatalf("create with a failing sink: %v", err)
	}
	restore()
	if _, err := db.Space(ctx, sp.ID); !errors.Is(err, storage.ErrNotFound) {
		t.Fatalf("the space was written: %v", err)
	}
	if n := queued(); n != 0 || woken != 0 {
		t.Fatalf("rolled-back writes queued %d deliveries, woke the worker %d times", n, woken)
	}
	if _, ok, _ := db.NextWebhookDeliveryAt(ctx); ok {
		t.Fatal("the outbox is not empty")
	}

	// Committed: one delivery, to the subscribed active endpoint only.
	if err := db.CreateSpace(created(ctx), &sp); err != nil {
		t.Fatal(err)
	}
	if n := queued(); n != 1 || woken != 1 {
		t.Fatalf("queued %d deliveries, woke %d times; want 1 and 1", n, woken)
	}
	p, _ := db.ListWebhookDeliveries(ctx, subscribed.ID, storage.PageQuery{Limit: 10})
	d := p.Items[0]
	var body map[string]any
	json.Unmarshal(d.Payload, &body)
	data, _ := body["data"].(map[string]any)
	if d.Status != "pending" || d.Type != "space.created" || body["id"] != d.EventID || body["organization"] != org || data["id"] != sp.ID || data["title"] != "Guide" {
		t.Fatalf("delivery %+v body %v", d, body)
	}
	// Changes of no documented event (or of no organization) queue nothing.
	for _, c := range []storage.Change{{OrganizationID: org, Action: "token.created"}, {Action: "space.created"}} {
		if err := db.Write(storage.RecordingChange(ctx, c), func(*storage.Tx) error { return nil }); err != nil {
			t.Fatal(err)
		}
	}
	if n := queued(); n != 1 {
		t.Fatalf("undocumented events queued deliveries: %d", n)
	}
}

// The claim leases a delivery (not claimed again until the lease runs
// out) and carries the previous secret only during its grace period.
func TestWebhookClaimLeaseAndGrace(t *testing.T) {
	db := openDB(t, filepath.Join(t.TempDir(), "w.db"))
	ctx := context.Background()
	b, err := db.CreateOrganizationWithAdmin(ctx, "Acme", "a@acme.test", "A", "hash-a")
	if err != nil {
		t.Fatal(err)
	}
	w := storage.Webhook{OrganizationID: b.Organization.ID, URL: "https://x.test", Events: []string{"space.created"}, Active: true, Secret: "whsec_old"}
	if err := db.CreateWebhook(ctx, &w); err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	if err := db.RotateWebhookSecret(ctx, w.OrganizationID, w.ID, "whsec_new", now.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if _, err := db.QueueWebhookPing(ctx, w.OrganizationID, w.ID); err != nil {
		t.Fatal(err)
	}
	got, err := db.ClaimWebhookDeliveries(ctx, now.Add(time.Second), time.Minute, 10)
	if err != nil || len(got) != 1 || got[0].Secret != "whsec_new" || got[0].PreviousSecret != "whsec_old" || got[0].Attempt != 1 {
		t.Fatalf("claim: %+v %v", got, err)
	}
	if again, _ := db.ClaimWebhookDeliveries(ctx, now.Add(30*time.Second), time.Minute, 10); len(again) != 0 {
		t.Fatal("claimed again within the lease")
	}
	late, _ := db.ClaimWebhookDeliveries(ctx, now.Add(2*time.Hour), time.Minute, 10)
	if len(late) != 1 || late[0].Attempt != 2 || late[0].PreviousSecret != "" {
		t.Fatalf("after the lease and the grace period: %+v", late)
	}
	if err := db.RotateWebhookSecret(ctx, "another-org", w.ID, "whsec_x", now); !errors.Is(err, storage.ErrNotFound) {
		t.Fatalf("rotating another organization's webhook: %v", err)
	}
}
