package storage

import (
	"context"
	"testing"
)

// BenchmarkWebhookSinkWithoutWebhooks is what the webhook outbox's sink
// costs a recorded change in an organization with no webhook (its
// INSERT … SELECT finds no subscription), beside "counter-read": one read
// of the change counter, what any exact check that the organization has no
// webhook (a cache validated inside the write transaction) costs at least.
func BenchmarkWebhookSinkWithoutWebhooks(b *testing.B) {
	db, err := Open(testTarget(b), Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	c := Change{OrganizationID: "o-bench", Action: "space.created", TargetType: "space", TargetID: "s1", Fields: map[string]any{"title": "A"}}
	for _, bc := range []struct {
		name string
		op   func(tx *Tx) error
	}{
		{"sink", func(tx *Tx) error { return queueWebhookDeliveries(tx, Actor{}, c) }},
		{"probe", func(tx *Tx) error {
			var n int
			return tx.QueryRowContext(tx.ctx, `SELECT COUNT(*) FROM (SELECT 1 FROM webhook_subscriptions s JOIN webhooks w ON w.id = s.webhook_id
 WHERE s.organization_id = ? AND s.event = ? AND w.active = 1 LIMIT 1) x`, c.OrganizationID, "space.created").Scan(&n)
		}},
		{"counter-read", func(tx *Tx) error {
			var n int64
			return tx.QueryRowContext(tx.ctx, `SELECT n FROM change_counter WHERE id = 1`).Scan(&n)
		}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			err := db.Write(context.Background(), func(tx *Tx) error {
				for b.Loop() {
					if err := bc.op(tx); err != nil {
						return err
					}
				}
				return nil
			})
			if err != nil {
				b.Fatal(err)
			}
		})
	}
}

// A change no endpoint of its organization subscribes to runs no statement
// of the webhook sink once the organization's summary is known (SQLite,
// whose counter bump returns the webhook counter): with the outbox table
// gone, the write still commits. And writeSubscriptions moves the counter.
func TestWebhookSinkSkipsUnsubscribedOrganizations(t *testing.T) {
	db, err := Open(testTarget(t), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	// Both engines: SQLite reads the counter from its bump, PostgreSQL in
	// the BEGIN's round trip (webhookCounterSQL).
	ctx := context.Background()
	rec := func() context.Context {
		return RecordingChange(ctx, Change{OrganizationID: "o-1", Action: "space.created", TargetType: "space", TargetID: "s1"})
	}
	if err := db.Write(rec(), func(*Tx) error { return nil }); err != nil { // reads and keeps the summary
		t.Fatal(err)
	}
	if err := db.Write(ctx, func(tx *Tx) error { _, err := tx.exec(`DROP TABLE webhook_deliveries`); return err }); err != nil {
		t.Fatal(err)
	}
	if err := db.Write(rec(), func(*Tx) error { return nil }); err != nil {
		t.Fatalf("a change nobody subscribes to ran the sink's statement: %v", err)
	}
	counter := func() (n int64) {
		if err := db.r().QueryRowContext(ctx, `SELECT webhooks FROM change_counter WHERE id = 1`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	before := counter()
	if err := db.Write(ctx, func(tx *Tx) error {
		return writeSubscriptions(tx, Webhook{ID: "w-1", OrganizationID: "o-1"}, nil)
	}); err != nil {
		t.Fatal(err)
	}
	if after := counter(); after != before+1 {
		t.Fatalf("writeSubscriptions: webhook counter %d → %d", before, after)
	}
}
