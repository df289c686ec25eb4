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
