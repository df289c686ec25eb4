package server

import (
	"context"
	"time"
)

func init() { RegisterWorker(sweepImportStages) }

// sweepImportStages drops, every ten minutes on one replica at a time, the
// stages of batched imports and translations that died between their
// batches (their lease is over) and the lists of published ones: what only
// they stored goes (storage/import_batch.go); and the search-index docs
// an import retired that its run did not sweep (it died after publishing).
func sweepImportStages(ctx context.Context, s *Server) {
	s.sweepEvery(ctx, "import-stages", 10*time.Minute, "stages", func(ctx context.Context) (int, error) {
		n, err := s.DB.DropExpiredImportStages(ctx, s.Config.Clock().UnixMilli())
		if err != nil {
			return n, err
		}
		_, err = s.DB.SweepRetiredDocs(ctx, 100)
		return n, err
	})
}
