package server

import (
	"context"
	"sync"
)

// Worker is a background loop of a resource family (trash purge, deliveries,
// processing). It runs until ctx is cancelled.
type Worker func(ctx context.Context, s *Server)

var workers []Worker

// RegisterWorker adds a background loop started by StartWorkers.
func RegisterWorker(w Worker) { workers = append(workers, w) }

// StartWorkers starts every registered worker; Wait on the result after
// cancelling ctx to let them finish.
func (s *Server) StartWorkers(ctx context.Context) *sync.WaitGroup {
	var wg sync.WaitGroup
	for _, w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w(ctx, s)
		}()
	}
	return &wg
}
