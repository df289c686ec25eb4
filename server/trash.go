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
	s.sweepEvery(ctx, "trash-purge", trashPurgeInterval, "spaces", s.Resolver.PurgeTrash)
}
