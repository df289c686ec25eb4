package server

import (
	"context"
	"time"
)

// Webhook delivery retention: finished deliveries (succeeded or failed)
// are deleted once their last attempt is older than
// Config.WebhookDeliveryRetention; pending ones are never touched. The
// sweep wakes every webhookPurgeInterval on one process at a time, walks
// the endpoints webhookPurgeWalk ids at a time (one read each) and deletes
// the expired deliveries of those holding any, webhookPurgeBatch at a time (each batch one short
// write transaction, so requests' writes interleave), at most
// webhookPurgeBatches batches per wake-up; what is left waits for the next.
const (
	webhookPurgeInterval = time.Hour
	webhookPurgeWalk     = 100
	webhookPurgeBatch    = 1000
	webhookPurgeBatches  = 100
)

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
	before := s.Config.Clock().Add(-s.Config.WebhookDeliveryRetention)
	total, batches, after := 0, 0, ""
	for {
		ids, last, err := s.DB.WebhooksWithExpiredDeliveries(ctx, after, before, webhookPurgeWalk)
		if err != nil || last == "" {
			return total, err
		}
		for _, id := range ids {
			for {
				if batches == webhookPurgeBatches {
					return total, nil
				}
				batches++
				n, err := s.DB.PurgeWebhookDeliveries(ctx, id, before, webhookPurgeBatch)
				total += n
				if err != nil {
					return total, err
				}
				if n < webhookPurgeBatch {
					break
				}
			}
		}
		after = last
	}
}
