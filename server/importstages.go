package server

import (
	"context"
	"time"
)

func init() { RegisterWorker(sweepImportStages) }

// sweepImportStages drops, every ten minutes on one replica at a time, the
// stages of batched imports and translations that died between their
// batches (their lease is over) and the lists of published ones: what only
// they stored goes (storage/import_batch.go).
func sweepImportStages(ctx context.Context, s *Server) {
	const every = 10 * time.Minute
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		if s.runsSweep(ctx, "import-stages", every) {
			start := time.Now()
			_, err := s.DB.DropExpiredImportStages(ctx, s.Config.Clock().UnixMilli())
			s.Metrics.ObserveJob("import-stages", time.Since(start), err)
			if err != nil && ctx.Err() == nil {
				s.Log.Error("dropping import stages", "error", err)
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}
