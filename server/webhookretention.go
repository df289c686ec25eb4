package server

import (
	"context"
	"time"
)

// Webhook delivery retention: finished deliveries (succeeded or failed)
// are deleted once their last attempt is older than
// Config.WebhookDeliveryRetention; pending ones are never touched. The
// sweep wakes every webhookPurgeInterval on one process at a time and
// purges webhook by webhook (purgeExpired).
const webhookPurgeInterval = time.Hour

func init() {
	RegisterWorker(func(ctx context.Context, s *Server) {
		if s.Config.WebhookDeliveryRetention > 0 { // zero keeps them for ever
			s.sweepEvery(ctx, "webhook-delivery-purge", webhookPurgeInterval, "deliveries", s.PurgeWebhookDeliveries)
		}
	})
}

// PurgeWebhookDeliveries deletes the finished deliveries older than the
// retention (on the server clock), in bounded batches, and says how many
// it deleted.
func (s *Server) PurgeWebhookDeliveries(ctx context.Context) (int, error) {
	if s.Config.WebhookDeliveryRetention <= 0 {
		return 0, nil
	}
	return purgeExpired(ctx, s.Config.Clock().Add(-s.Config.WebhookDeliveryRetention), s.DB.WebhooksWithExpiredDeliveries, s.DB.PurgeWebhookDeliveries)
}
