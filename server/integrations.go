package server

import "context"

// The integration event delivery worker drains the persistent queue of
// deliveries to development tunnels.
func init() {
	RegisterWorker(func(ctx context.Context, s *Server) { s.Resolver.Deliveries.Run(ctx) })
	// The webhook outbox (README "Webhooks").
	RegisterWorker(func(ctx context.Context, s *Server) { s.Resolver.Webhooks.Run(ctx) })
}
