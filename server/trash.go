package server

import (
	"context"
	"time"
)

// trashPurgeInterval is how often the trash worker looks for spaces whose
// retention has passed; a removal is at most this late.
const trashPurgeInterval = time.Minute

func init() { RegisterWorker(purgeTrash) }

// purgeTrash removes for good the spaces deleted more than the retention
// period ago (graph.TrashRetention, measured on the server clock), once at
// start and then every trashPurgeInterval, on one replica at a time.
func purgeTrash(ctx context.Context, s *Server) {
	tick := time.NewTicker(trashPurgeInterval)
	defer tick.Stop()
	for {
		var n int
		var err error
		if s.runsSweep(ctx, "trash-purge", trashPurgeInterval) {
			n, err = s.Resolver.PurgeTrash(ctx)
		}
		switch {
		case err != nil && ctx.Err() == nil:
			s.Log.Error("trash purge failed", "error", err)
		case n > 0:
			s.Log.Info("trash purged", "spaces", n)
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}
