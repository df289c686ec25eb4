package storage

import (
	"context"
	"errors"
	"sync"
)

// Request-scoped steps of a write transaction. The REST layer puts them in
// the request's context; the first write transaction run with that context
// (Write, not the bookkeeping writes that leave the change counter alone)
// runs them inside itself, so that what they check or record commits or
// rolls back with the write:
//
//   - a precondition (If-Match) runs once the transaction holds the write
//     lock (SQLite BEGIN IMMEDIATE; PostgreSQL's advisory lock, taken first),
//     before the write itself. No other write can commit meanwhile, in this
//     process or another, so what it reads is what the write changes: a
//     compare-and-swap across replicas. Its error rolls the write back.
//     With group commit (groupcommit.go) such a write only ever runs first
//     in its batch: what the check reads through the reader pool is then
//     everything written before it.
//   - a commit hook (the Idempotency-Key row) runs after the write, just
//     before the commit, in the same transaction.
//
// Each runs in one write that commits: when the write rolls back (its
// transaction, or its savepoint in a batch), the next write transaction of
// the request runs it again.

// ErrWriteInPrecondition is returned by a write attempted from inside a
// precondition (it would wait for the write lock its own transaction holds).
var ErrWriteInPrecondition = errors.New("storage: write attempted inside a write transaction's precondition")

type (
	preconditionKey struct{}
	commitHookKey   struct{}
	inPrecondition  struct{}
)

// txStep is one request-scoped step; done once a transaction running it
// committed.
type txStep[F any] struct {
	mu   sync.Mutex
	fn   F
	done bool
}

// WithPrecondition returns ctx whose next write transaction runs check
// after taking the write lock and before writing; an error from check
// rolls the transaction back and is Write's error. check may read (through
// the reader pool, which then sees every committed write) but not write.
func WithPrecondition(ctx context.Context, check func(ctx context.Context) error) context.Context {
	return context.WithValue(ctx, preconditionKey{}, &txStep[func(context.Context) error]{fn: check})
}

// WithCommitHook returns ctx whose next write transaction runs hook in
// itself, after the write and before the commit; an error from hook rolls
// the transaction back and is Write's error.
func WithCommitHook(ctx context.Context, hook func(tx *Tx) error) context.Context {
	return context.WithValue(ctx, commitHookKey{}, &txStep[func(*Tx) error]{fn: hook})
}

// pending returns the step of ctx under key that no committed transaction
// has run yet, locked (the caller unlocks it), or nil.
func pending[F any](ctx context.Context, key any) *txStep[F] {
	s, _ := ctx.Value(key).(*txStep[F])
	if s == nil {
		return nil
	}
	s.mu.Lock()
	if s.done {
		s.mu.Unlock()
		return nil
	}
	return s
}
