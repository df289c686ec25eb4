package storage

// Write scopes. A write confined to one organization (a scoped write)
// waits only for the writes of the same organization and for unscoped
// writes; every other write is unscoped and waits for all of them. On
// PostgreSQL that is one advisory lock per organization beside the global
// one (dialect_postgres.go) and a group-commit queue per scope
// (groupcommit.go), so the writes of different organizations run and
// commit side by side, from one process or several replicas. SQLite keeps
// its single writer: every write is unscoped there (dialect.scopes).
//
// A write may be scoped only when everything it reads to decide and
// everything it writes belongs to its organization: rows whose
// organization_id is the scope, and the rows of the organization's spaces
// (their revisions, change requests and counters). Installation-wide
// state it may touch is limited to increments of the access counter row
// made by the migrations' triggers, which wait for each other's row lock
// and commute (one shared row: no two scoped writes can wait for each other
// in a cycle). Anything else, and every write that moves a space or a
// collection from one organization to another, stays unscoped: a request's
// commit hook (idempotency keys) makes its write unscoped (writeScoped).
//
// The scoped writes: creating a team (NewTeam), creating and updating a
// space (CreateSpace, UpdateSpace), creating and updating a change request
// (CreateChangeRequest, UpdateChangeRequest). Their invariants (end
// positions, class counts, change-request numbers, space counters, an
// If-Match precondition) are per organization, and the organization's lock
// serializes them exactly as the single writer did
// (TestPostgresScopedWritesKeepInvariants).

import (
	"context"
	"database/sql"
	"errors"
)

// writeOrg is Write confined to orgID (scope.go's rules).
func (db *DB) writeOrg(ctx context.Context, orgID string, fn func(tx *Tx) error) error {
	return db.writeScoped(ctx, orgID, true, fn)
}

// errScopeMoved: the space left the organization its write was scoped to
// (or was deleted) between the reading of its organization and the lock.
var errScopeMoved = errors.New("storage: the space changed organization before its write")

// writeSpace is Write confined to the organization of spaceID, read before
// the write and checked again under the organization's lock (a space
// changes organization only in an unscoped write). A space that is not
// found, or has moved meanwhile, is written unscoped: fn then answers as
// it always did.
func (db *DB) writeSpace(ctx context.Context, spaceID string, fn func(tx *Tx) error) error {
	if !db.dialect.scopes() {
		return db.Write(ctx, fn)
	}
	var org string
	if err := db.r().QueryRowContext(ctx, `SELECT organization_id FROM spaces WHERE id = ?`, spaceID).Scan(&org); err != nil {
		if errors.Is(notFound(err), ErrNotFound) {
			return db.Write(ctx, fn)
		}
		return err
	}
	err := db.writeOrg(ctx, org, func(tx *Tx) error {
		var now string
		err := tx.QueryRowContext(ctx, `SELECT organization_id FROM spaces WHERE id = ?`, spaceID).Scan(&now)
		if errors.Is(err, sql.ErrNoRows) {
			return errScopeMoved
		}
		if err != nil {
			return err
		}
		if now != org {
			return errScopeMoved
		}
		return fn(tx)
	})
	if errors.Is(err, errScopeMoved) {
		// Gone or moved since it was read: the whole lock decides.
		return db.Write(ctx, fn)
	}
	return err
}
