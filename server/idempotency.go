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
	s.sweepEvery(ctx, "idempotency-purge", time.Hour, "keys", func(ctx context.Context) (int, error) {
		n, err := s.DB.PurgeIdempotentResponses(ctx, s.Config.Clock().Add(-rest.IdempotencyTTL))
		return int(n), err
	})
}
