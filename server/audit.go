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
//
// The middleware after requestID set the request's other values in it too
// (the storage counters, the identity, the caller) instead of a
// context.WithValue and a copy of the request each: they run one after the
// other on the request's goroutine, before any handler reads them.
type requestContext struct {
	context.Context
	id       any // the request id, boxed once
	req      *http.Request
	counters any // *storage.Counters, or nil
	identity any // identity, or nil
	caller   any // auth.Caller, or nil
}

type requestKey struct{}

func (c *requestContext) Value(key any) any {
	switch key {
	case middleware.RequestIDKey:
		return c.id
	case requestKey{}:
		return c.req
	case storage.CountersKey:
		if c.counters != nil {
			return c.counters
		}
	case identityKey{}:
		if c.identity != nil {
			return c.identity
		}
	case auth.CallerKey:
		if c.caller != nil {
			return c.caller
		}
	}
	return c.Context.Value(key)
}

// requestState is r's requestContext when its context is that struct
// itself (no layer added since requestID), else nil.
func requestState(r *http.Request) *requestContext {
	c, _ := r.Context().(*requestContext)
	return c
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

// Recent audit entries (storage.MoveRecentAudit): every auditMoveInterval
// the process holding the "audit-move" lease moves what the requests'
// writes left in audit_recent into audit_log, auditMoveBatch entries per
// write transaction (requests' writes interleave), at most auditMoveBatches
// transactions per run. Reads see both tables, so this only bounds how
// many entries wait there (a few seconds' worth).
const (
	auditMoveInterval = time.Second
	auditMoveBatch    = 500
	auditMoveBatches  = 100
)

func init() {
	RegisterWorker(func(ctx context.Context, s *Server) {
		s.Metrics.Queue("audit-recent", s.DB.RecentAuditEntries)
		// No count line: the mover runs every second and moves what the
		// requests just wrote (the queue metric shows how much waits).
		s.sweepEvery(ctx, "audit-move", auditMoveInterval, "", func(ctx context.Context) (int, error) {
			return s.MoveRecentAudit(ctx, auditMoveBatches)
		})
	})
}

// MoveRecentAudit moves recent audit entries into the indexed log, at most
// batches transactions of auditMoveBatch, until none is left; it says how
// many it moved.
func (s *Server) MoveRecentAudit(ctx context.Context, batches int) (int, error) {
	total := 0
	for range batches {
		n, err := s.DB.MoveRecentAudit(ctx, auditMoveBatch)
		total += n
		if err != nil || n < auditMoveBatch {
			return total, err
		}
	}
	return total, nil
}

// PurgeAuditLog deletes the entries older than the retention (on the
// server clock), in bounded batches, and says how many it deleted. The
// recent entries are moved first: the purge walks the indexed log.
func (s *Server) PurgeAuditLog(ctx context.Context) (int, error) {
	if s.Config.AuditRetention <= 0 {
		return 0, nil
	}
	if _, err := s.MoveRecentAudit(ctx, auditMoveBatches); err != nil {
		return 0, err
	}
	return purgeExpired(ctx, s.Config.Clock().Add(-s.Config.AuditRetention), s.DB.AuditOrganizationsWithExpired, s.DB.PurgeAudit)
}
