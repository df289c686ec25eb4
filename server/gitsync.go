package server

import (
	"context"
	"time"

	"docsapi/fetch"
	"docsapi/graph"
)

func init() {
	RegisterWorker(func(ctx context.Context, s *Server) {
		s.GitSyncWorker().Run(ctx, s.Wakeups(graph.QueueGitSync))
	})
}

// GitSyncWorker is the runner of the Git Sync queue over this server's
// database and fetch policy (tests run it directly): Git traffic goes
// through the guarded client, so loopback and private addresses are
// refused unless --allow-private-fetch.
func (s *Server) GitSyncWorker() *graph.GitSyncWorker {
	s.gitSyncOnce.Do(func() {
		lim := s.Config.GitSyncLimits.OrDefault()
		s.Metrics.Queue(graph.QueueGitSync, s.DB.PendingGitOperations)
		doer := fetch.New(fetch.Options{AllowPrivate: s.Config.AllowPrivateFetch, MaxBytes: lim.MaxPackBytes + 1, Timeout: lim.Timeout,
			MaxRedirects: 5, UserAgent: "docsapi-git/1"})
		s.gitSync = &graph.GitSyncWorker{R: s.Resolver, Queue: s.DB, Doer: doer, Limits: lim, Lease: s.DB.JobLease(), Log: s.Log,
			After: func(took time.Duration, err error) { s.Metrics.ObserveJob(graph.QueueGitSync, took, err) }}
	})
	return s.gitSync
}
