package storage_test

import (
	"bytes"
	"context"
	"errors"
	"testing"
	"time"

	"docsapi/storage"
	"docsapi/storage/storagetest"
)

// fairOrg is an organization with n webhooks subscribed to space.created.
func fairOrg(t *testing.T, db *storage.DB, name string, n int) (string, []string) {
	t.Helper()
	ctx := context.Background()
	b, err := db.CreateOrganizationWithAdmin(ctx, name, name+"@x.test", name, "hash-"+name)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for range n {
		w := storage.Webhook{OrganizationID: b.Organization.ID, URL: "https://" + name + ".test", Events: []string{"space.created"}, Active: true, Secret: "whsec_k"}
		if err := db.CreateWebhook(ctx, &w); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, w.ID)
	}
	return b.Organization.ID, ids
}

// The per-organization caps: a webhook over --webhook-max-endpoints and a
// ping or replay over --webhook-max-pending are refused naming the cap; an
// event that finds the queue full is recorded failed (listed, not sent),
// and the write that made it succeeds.
func TestWebhookCapsPerOrganization(t *testing.T) {
	db := openDBWith(t, storagetest.Target(t), storage.Options{})
	db.SetWebhookLimits(storage.WebhookLimits{Endpoints: 2, Pending: 3})
	ctx := context.Background()
	org, hooks := fairOrg(t, db, "acme", 2)
	var le *storage.WebhookLimitError
	w := storage.Webhook{OrganizationID: org, URL: "https://x.test", Events: []string{"space.created"}, Active: true, Secret: "whsec_k"}
	if err := db.CreateWebhook(ctx, &w); !errors.As(err, &le) || le.Queue || le.Limit != 2 {
		t.Fatalf("third webhook over a cap of 2: %v", err)
	}
	other, _ := fairOrg(t, db, "other", 2) // the cap is per organization
	if _, err := db.QueueWebhookPing(ctx, org, hooks[0]); err != nil {
		t.Fatal(err)
	}
	// One event to two endpoints: 3 queued, the cap.
	sp := storage.Space{OrganizationID: org, Title: "Guide", Visibility: "private", EditMode: "live"}
	created := storage.Recording(ctx, func() []storage.Change {
		return []storage.Change{{OrganizationID: org, Action: "space.created", TargetType: "space", TargetID: sp.ID}}
	})
	if err := db.CreateSpace(created, &sp); err != nil {
		t.Fatal(err)
	}
	if _, err := db.QueueWebhookPing(ctx, org, hooks[0]); !errors.As(err, &le) || !le.Queue || le.Limit != 3 {
		t.Fatalf("ping over a queue cap of 3: %v", err)
	}
	sp2 := storage.Space{OrganizationID: org, Title: "Guide 2", Visibility: "private", EditMode: "live"}
	created2 := storage.Recording(ctx, func() []storage.Change {
		return []storage.Change{{OrganizationID: org, Action: "space.created", TargetType: "space", TargetID: sp2.ID}}
	})
	if err := db.CreateSpace(created2, &sp2); err != nil {
		t.Fatalf("a write whose event finds the queue full: %v", err)
	}
	p, err := db.ListWebhookDeliveries(ctx, hooks[1], storage.PageQuery{Limit: 10})
	if err != nil || len(p.Items) != 2 {
		t.Fatalf("deliveries of the second endpoint: %+v %v", p.Items, err)
	}
	// Both events may share a millisecond, so the list's order between
	// them is not theirs: each delivery is found by its space.
	over, under := p.Items[0], p.Items[1]
	if !bytes.Contains(over.Payload, []byte(sp2.ID)) {
		over, under = under, over
	}
	if !bytes.Contains(over.Payload, []byte(sp2.ID)) || !bytes.Contains(under.Payload, []byte(sp.ID)) {
		t.Fatalf("deliveries not of the two spaces' events: %s, %s", p.Items[0].Payload, p.Items[1].Payload)
	}
	if over.Status != "failed" || over.LastError == nil || over.Attempts != 0 {
		t.Fatalf("the event over the cap: %+v", over)
	}
	if under.Status != "pending" {
		t.Fatalf("the event under the cap: %+v", under)
	}
	if _, err := db.QueueWebhookPing(ctx, other, mustFirstWebhook(t, db, other)); err != nil {
		t.Fatalf("another organization's ping: %v", err)
	}
}

func mustFirstWebhook(t *testing.T, db *storage.DB, org string) string {
	t.Helper()
	p, err := db.ListWebhooks(context.Background(), org, storage.PageQuery{Limit: 1})
	if err != nil || len(p.Items) == 0 {
		t.Fatal(err)
	}
	return p.Items[0].ID
}

// The claim holds each organization to its share and leaves the
// organizations at it out: with one organization's 40 deliveries due
// first, another's single delivery is in the first claim beside the
// first's share of 4, and an organization with its share in flight gets
// nothing more.
func TestWebhookClaimSharesByOrganization(t *testing.T) {
	db := openDBWith(t, storagetest.Target(t), storage.Options{})
	ctx := context.Background()
	flood, floodHooks := fairOrg(t, db, "flood", 10)
	for range 4 {
		for _, h := range floodHooks {
			if _, err := db.QueueWebhookPing(ctx, flood, h); err != nil {
				t.Fatal(err)
			}
		}
	}
	quiet, quietHooks := fairOrg(t, db, "quiet", 1)
	if _, err := db.QueueWebhookPing(ctx, quiet, quietHooks[0]); err != nil {
		t.Fatal(err)
	}
	now := time.Now().Add(time.Second)
	got, err := db.ClaimWebhookDeliveries(ctx, now, time.Minute, storage.WebhookClaim{Limit: 16, PerOrganization: 4, InFlight: map[string]int{}})
	if err != nil {
		t.Fatal(err)
	}
	byOrg := map[string]int{}
	for _, a := range got {
		byOrg[a.OrganizationID]++
	}
	if len(got) != 5 || byOrg[quiet] != 1 || byOrg[flood] != 4 {
		t.Fatalf("first claim: %v", byOrg)
	}
	got, err = db.ClaimWebhookDeliveries(ctx, now, time.Minute, storage.WebhookClaim{Limit: 16, PerOrganization: 4, InFlight: map[string]int{flood: 2, quiet: 1}})
	if err != nil || len(got) != 2 {
		t.Fatalf("the flood's share is 4, 2 in flight: claimed %d, %v", len(got), err)
	}
	got, _ = db.ClaimWebhookDeliveries(ctx, now, time.Minute, storage.WebhookClaim{Limit: 16, PerOrganization: 4, InFlight: map[string]int{flood: 4}})
	if len(got) != 0 {
		t.Fatalf("claimed %d for an organization at its share", len(got))
	}
	// Without a share (a drain) everything due is taken, each delivery once.
	seen := map[string]bool{}
	for {
		got, err := db.ClaimWebhookDeliveries(ctx, now, time.Minute, storage.WebhookClaim{Limit: 16})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) == 0 {
			break
		}
		for _, a := range got {
			if seen[a.EventID+a.WebhookID] {
				t.Fatalf("claimed twice: %s", a.EventID)
			}
			seen[a.EventID+a.WebhookID] = true
		}
	}
	if len(seen) != 40-6 {
		t.Fatalf("drained %d, want 34", len(seen))
	}
}
