package server

import (
	"context"
	"time"
)

// usageFlushInterval is how often queued token uses are written to
// lastUsedAt (each token is queued at most once per auth.UsageInterval).
const usageFlushInterval = 10 * time.Second

func init() {
	RegisterWorker(func(ctx context.Context, s *Server) {
		s.Resolver.Auth.RunUsageWriter(ctx, usageFlushInterval, func(err error) {
			s.Log.Warn("writing tokens' last use", "error", err)
		})
	})
}
