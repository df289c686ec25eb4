package server

import (
	"context"
	"net/http"
	"time"

	"github.com/go-chi/chi/v5/middleware"

	"docsapi/auth"
	"docsapi/storage"
)

// requestContext is the context requestID gives every request: its id
// (what middleware.GetReqID reads) and the request itself, from which the
// audit log's actor takes the client address, worked out only when a write
// records a change. One context value for both: the request path allocates
// what a plain context.WithValue of the id did, nothing more.
type requestContext struct {
	context.Context
	id  any // the request id, boxed once
	req *http.Request
}

type requestKey struct{}

func (c *requestContext) Value(key any) any {
	switch key {
	case middleware.RequestIDKey:
		return c.id
	case requestKey{}:
		return c.req
	}
	return c.Context.Value(key)
}

// actorOf is the storage's actor source (storage.DB.SetActorSource): who
// made a request's changes (user and token) and from where (the client
// address under the trusted-proxy rule of clientAddress, the request id).
func (s *Server) actorOf(ctx context.Context) storage.Actor {
	var a storage.Actor
	if c, ok := auth.CallerFrom(ctx); ok {
		a.UserID, a.TokenID = c.UserID, c.TokenID
	}
	a.RequestID = middleware.GetReqID(ctx)
	if r, ok := ctx.Value(requestKey{}).(*http.Request); ok {
		a.Address = s.clientAddress(r)
	}
	return a
}

// Audit log retention: the purge worker wakes every auditPurgeInterval on
// one process at a time and purges organization by organization
// (purgeExpired).
const auditPurgeInterval = time.Hour

func init() {
	RegisterWorker(func(ctx context.Context, s *Server) {
		if s.Config.AuditRetention > 0 { // zero keeps the entries for ever
			s.sweepEvery(ctx, "audit-purge", auditPurgeInterval, "entries", s.PurgeAuditLog)
		}
	})
}

// PurgeAuditLog deletes the entries older than the retention (on the
// server clock), in bounded batches, and says how many it deleted.
func (s *Server) PurgeAuditLog(ctx context.Context) (int, error) {
	if s.Config.AuditRetention <= 0 {
		return 0, nil
	}
	return purgeExpired(ctx, s.Config.Clock().Add(-s.Config.AuditRetention), s.DB.AuditOrganizationsWithExpired, s.DB.PurgeAudit)
}
