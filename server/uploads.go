package server

import (
	"context"
	"time"

	"docsapi/graph"
)

func init() { RegisterWorker(purgeUploads) }

// purgeUploads deletes uploads older than their URL's hour, every ten
// minutes, on one replica at a time.
func purgeUploads(ctx context.Context, s *Server) {
	const every = 10 * time.Minute
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		if s.runsSweep(ctx, "uploads-purge", every) {
			start := time.Now()
			_, err := s.DB.PurgeUploads(ctx, s.Config.Clock().Add(-graph.UploadTTL))
			s.Metrics.ObserveJob("uploads-purge", time.Since(start), err)
			if err != nil && ctx.Err() == nil {
				s.Log.Error("purging uploads", "error", err)
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}
