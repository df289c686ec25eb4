package server

import (
	"context"
	"time"

	"docsapi/rest"
)

func init() { RegisterWorker(purgeIdempotencyKeys) }

// purgeIdempotencyKeys deletes stored Idempotency-Key answers once they can
// no longer be replayed, hourly.
func purgeIdempotencyKeys(ctx context.Context, s *Server) {
	tick := time.NewTicker(time.Hour)
	defer tick.Stop()
	for {
		start := time.Now()
		_, err := s.DB.PurgeIdempotentResponses(ctx, s.Config.Clock().Add(-rest.IdempotencyTTL))
		s.Metrics.ObserveJob("idempotency-purge", time.Since(start), err)
		if err != nil && ctx.Err() == nil {
			s.Log.Error("purging idempotency keys", "error", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}
