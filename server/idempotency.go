package server

import (
	"context"
	"time"

	"docsapi/rest"
)

func init() { RegisterWorker(purgeIdempotencyKeys) }

// purgeIdempotencyKeys deletes stored Idempotency-Key answers once they can
// no longer be replayed, hourly, on one replica at a time.
func purgeIdempotencyKeys(ctx context.Context, s *Server) {
	const every = time.Hour
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		if !s.runsSweep(ctx, "idempotency-purge", every) {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
				continue
			}
		}
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
