package storage_test

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"docsapi/storage"
	"docsapi/storage/storagetest"
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
	got, err := db.ClaimWebhookDeliveries(ctx, now.Add(time.Second), time.Minute, storage.WebhookClaim{Limit: 10})
	if err != nil || len(got) != 1 || got[0].Secret != "whsec_new" || got[0].PreviousSecret != "whsec_old" || got[0].Attempt != 1 {
		t.Fatalf("claim: %+v %v", got, err)
	}
	if again, _ := db.ClaimWebhookDeliveries(ctx, now.Add(30*time.Second), time.Minute, storage.WebhookClaim{Limit: 10}); len(again) != 0 {
		t.Fatal("claimed again within the lease")
	}
	late, _ := db.ClaimWebhookDeliveries(ctx, now.Add(2*time.Hour), time.Minute, storage.WebhookClaim{Limit: 10})
	if len(late) != 1 || late[0].Attempt != 2 || late[0].PreviousSecret != "" {
		t.Fatalf("after the lease and the grace period: %+v", late)
	}
	if err := db.RotateWebhookSecret(ctx, "another-org", w.ID, "whsec_x", now); !errors.Is(err, storage.ErrNotFound) {
		t.Fatalf("rotating another organization's webhook: %v", err)
	}
}

// The retention purge's two steps: the walk finds the webhooks holding an
// expired finished delivery (pending and recent ones do not count), and a
// purge deletes at most its limit of them, oldest first.
func TestWebhookDeliveryPurge(t *testing.T) {
	clock := &fakeClock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	db := openClocked(t, clock)
	ctx := context.Background()
	b, err := db.CreateOrganizationWithAdmin(ctx, "Acme", "a@acme.test", "A", "hash-a")
	if err != nil {
		t.Fatal(err)
	}
	hook := func() string {
		w := storage.Webhook{OrganizationID: b.Organization.ID, URL: "https://x.test", Events: []string{"space.created"}, Active: true, Secret: "whsec_k"}
		if err := db.CreateWebhook(ctx, &w); err != nil {
			t.Fatal(err)
		}
		return w.ID
	}
	full, pendingOnly, empty := hook(), hook(), hook()
	queue := func(webhook string, status string) string {
		id, err := db.QueueWebhookPing(ctx, b.Organization.ID, webhook)
		if err != nil {
			t.Fatal(err)
		}
		if status != "pending" {
			o := storage.WebhookOutcome{WebhookID: webhook, EventID: id, Status: status, At: clock.Now(), Sent: true, ResponseStatus: 200}
			if err := db.FinishWebhookDeliveries(ctx, []storage.WebhookOutcome{o}, 24*time.Hour); err != nil {
				t.Fatal(err)
			}
		}
		clock.Add(time.Millisecond)
		return id
	}
	var old []string
	for _, s := range []string{"succeeded", "failed", "succeeded"} {
		old = append(old, queue(full, s))
	}
	queue(full, "pending")
	queue(pendingOnly, "pending")
	clock.Add(time.Hour)
	recent := queue(full, "succeeded")
	before := clock.Now().Add(-time.Minute)

	// The walk, two webhooks a page, visits each webhook once in id order.
	var expired, walked []string
	after := ""
	for range 3 {
		ids, last, err := db.WebhooksWithExpiredDeliveries(ctx, after, before, 2)
		if err != nil {
			t.Fatal(err)
		}
		if last == "" {
			break
		}
		if last <= after {
			t.Fatalf("the walk went back: %q after %q", last, after)
		}
		expired, walked, after = append(expired, ids...), append(walked, last), last
	}
	all := []string{full, pendingOnly, empty}
	slices.Sort(all)
	if len(expired) != 1 || expired[0] != full || len(walked) != 2 || walked[0] != all[1] || walked[1] != all[2] {
		t.Fatalf("walk: expired %v, pages ending %v (webhooks %v, full %s)", expired, walked, all, full)
	}

	if n, err := db.PurgeWebhookDeliveries(ctx, full, before, 2); err != nil || n != 2 {
		t.Fatalf("first batch: %d, %v", n, err)
	}
	left := func(webhook string) map[string]string {
		p, err := db.ListWebhookDeliveries(ctx, webhook, storage.PageQuery{Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		m := map[string]string{}
		for _, d := range p.Items {
			m[d.EventID] = d.Status
		}
		return m
	}
	if l := left(full); len(l) != 3 || l[old[2]] != "succeeded" || l[recent] != "succeeded" {
		t.Fatalf("after the first batch (oldest first): %v", l)
	}
	if n, err := db.PurgeWebhookDeliveries(ctx, full, before, 2); err != nil || n != 1 {
		t.Fatalf("second batch: %d, %v", n, err)
	}
	if n, err := db.PurgeWebhookDeliveries(ctx, pendingOnly, clock.Now().Add(time.Hour), 10); err != nil || n != 0 {
		t.Fatalf("pending deliveries purged: %d, %v", n, err)
	}
	if l := left(full); len(l) != 2 || l[recent] != "succeeded" {
		t.Fatalf("after the purge: %v", l)
	}
}

// The webhook sink skips organizations with no endpoint subscribed to an
// event by a summary kept per organization (webhookSubs); another process
// adding, changing or re-subscribing a webhook on the same database is
// honoured by this process's next write, and a summary read in a
// transaction that rolls back is not kept.
func TestWebhookAddedByAnotherProcessIsHonoured(t *testing.T) {
	target := storagetest.Target(t)
	db := openDB(t, target)
	other := openDB(t, target) // another process on the same database
	ctx := context.Background()
	b, err := db.CreateOrganizationWithAdmin(ctx, "Acme", "a@acme.test", "A", "hash-a")
	if err != nil {
		t.Fatal(err)
	}
	org := b.Organization.ID
	create := func(c context.Context) {
		t.Helper()
		sp := storage.Space{OrganizationID: org, Title: "Guide", Visibility: "private", EditMode: "live"}
		rec := storage.RecordingChange(c, storage.Change{OrganizationID: org, Action: "space.created", TargetType: "space", Fields: map[string]any{"title": "Guide"}})
		if err := db.CreateSpace(rec, &sp); err != nil {
			t.Fatal(err)
		}
	}
	deliveries := func(w storage.Webhook) int {
		t.Helper()
		p, err := db.ListWebhookDeliveries(ctx, w.ID, storage.PageQuery{Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		return len(p.Items)
	}
	create(ctx) // no webhook: the summary says so
	create(ctx)

	w := storage.Webhook{OrganizationID: org, URL: "https://x.test", Events: []string{"space.created"}, Active: true, Secret: "whsec_k"}
	if err := other.CreateWebhook(ctx, &w); err != nil {
		t.Fatal(err)
	}
	create(ctx)
	if n := deliveries(w); n != 1 {
		t.Fatalf("after another process added a webhook: %d deliveries, want 1", n)
	}
	if err := other.UpdateWebhook(ctx, org, w.ID, storage.WebhookUpdate{Events: []string{"page.changed"}}); err != nil {
		t.Fatal(err)
	}
	create(ctx)
	if n := deliveries(w); n != 1 {
		t.Fatalf("after unsubscribing: %d deliveries, want 1", n)
	}
	// A rolled-back write that read the summary keeps nothing: a later
	// subscription by the other process is still seen.
	failed := errors.New("fail")
	rec := storage.RecordingChange(ctx, storage.Change{OrganizationID: org, Action: "space.created", TargetType: "space", TargetID: "x"})
	if err := db.Write(rec, func(*storage.Tx) error { return nil }); err != nil {
		t.Fatal(err)
	}
	restore := storage.AddChangeSinkForTest(func(*storage.Tx, storage.Actor, storage.Change) error { return failed })
	if err := db.Write(storage.RecordingChange(ctx, storage.Change{OrganizationID: org, Action: "space.created", TargetType: "space", TargetID: "y"}),
		func(*storage.Tx) error { return nil }); !errors.Is(err, failed) {
		t.Fatal(err)
	}
	restore()
	if err := other.UpdateWebhook(ctx, org, w.ID, storage.WebhookUpdate{Events: []string{"page.changed", "space.created"}}); err != nil {
		t.Fatal(err)
	}
	before := deliveries(w)
	create(ctx)
	if n := deliveries(w); n != before+1 {
		t.Fatalf("after re-subscribing: %d deliveries, want %d", n, before+1)
	}
}
