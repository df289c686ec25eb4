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
	s.sweepEvery(ctx, "uploads-purge", 10*time.Minute, "uploads", func(ctx context.Context) (int, error) {
		n, err := s.DB.PurgeUploads(ctx, s.Config.Clock().Add(-graph.UploadTTL))
		return int(n), err
	})
}
