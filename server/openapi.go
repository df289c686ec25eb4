package server

import (
	"context"

	"docsapi/fetch"
	"docsapi/graph"
	"docsapi/openapi"
)

func init() {
	RegisterWorker(func(ctx context.Context, s *Server) {
		s.OpenAPIProcessor().Run(ctx, s.Wakeups(graph.QueueOpenAPI))
	})
}

// OpenAPIFetchLimits bound the fetch of a spec's URL.
var OpenAPIFetchLimits = fetch.Options{MaxBytes: 10 << 20, Timeout: fetch.DefaultTimeout, MaxRedirects: 5}

// OpenAPIProcessor is the processor of the OpenAPI spec queue over this
// server's database and fetch policy (tests run it directly).
func (s *Server) OpenAPIProcessor() *openapi.Processor {
	opts := OpenAPIFetchLimits
	opts.AllowPrivate = s.Config.AllowPrivateFetch
	return &openapi.Processor{Queue: s.DB, Fetch: fetch.New(opts), Log: s.Log, Lease: s.DB.JobLease(),
		Workers: s.Config.OpenAPIWorkers, JobTimeout: s.Config.OpenAPIJobTimeout}
}
