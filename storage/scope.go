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
// The scoped writes, each under the lock of the organization its rows
// belong to (writeOrg with the organization the caller names and every
// statement filters on, or writeOwned: the owner of a space, collection,
// site, team or change request, read again under the lock):
//
//   - spaces: create, update, move, trash, restore, duplicate; page and
//     revision edits (CreateRevision: page edits, files, imports' publish),
//     change requests (create, update, merge and update from main, reviews);
//   - comments and replies (post, edit, resolve, react, delete);
//   - collections (create, update, move, delete);
//   - members (add, role, remove, SSO mark, last seen) and teams (create,
//     rename, delete, memberships);
//   - sites (create and update without a custom hostname, delete), their
//     share links, redirects, customizations and structure.
//
// Unscoped still: writes that move a space or a collection to another
// organization; writes that create users (an e-mail is the installation's);
// a site's custom hostname (unique across the installation); a revision
// with Also (Git Sync, translations: their job queues are installation
// wide); organizations, tokens, integrations, installations, webhooks, job
// queues and leases. Their invariants (end positions, class counts,
// change-request numbers, space, comment, reply and team counters, an
// If-Match precondition) are per organization, and the organization's lock
// serializes them exactly as the single writer did
// (TestScopedWritesKeepInvariants, on two replicas).

import (
	"context"
	"database/sql"
	"errors"
	"strings"
)

// writeOrg is Write confined to orgID (scope.go's rules). The rows shared
// between organizations that a scoped write may still wait for (a file's
// bytes stored once by their hash, a custom hostname's unique key, the
// access counter) can, rarely, make two organizations' transactions wait
// for each other in a cycle: PostgreSQL then ends one of them
// (deadlock_detected), and that write runs again unscoped, under the whole
// lock, where nothing else is in flight to wait for (nothing of it was
// committed: the error rolled its savepoint or transaction back).
func (db *DB) writeOrg(ctx context.Context, orgID string, fn func(tx *Tx) error) error {
	err := db.writeScoped(ctx, orgID, true, fn)
	if err != nil && db.dialect.deadlock(err) {
		return db.Write(ctx, fn)
	}
	return err
}

// errScopeMoved: the row left the organization its write was scoped to
// (or was deleted) between the reading of its organization and the lock.
var errScopeMoved = errors.New("storage: the space changed organization before its write")

// commutingScope prefixes the scope of a commuting write (writeCommuting).
const commutingScope = "\x00commuting:"

func commuting(scope string) bool { return strings.HasPrefix(scope, commutingScope) }

// writeCommuting is writeOrg for a write that commutes with every other
// write of its organization: it inserts a new row that no rule orders (no
// position, number or count of the organization's depends on it), so any
// order of two such writes, or of one and an ordered write, gives the same
// state. It takes the organization's lock shared (PostgreSQL: beside the
// global one, shared) and queues apart from the organization's ordered
// writes, in parallel with them for the process's part: an ordered write
// of the organization (which takes the lock exclusive) still waits for
// them and they for it. The commuting writes that queue meanwhile run as
// one batch, without savepoints, several batches in flight at once
// (runCommuting, commutingLeaders in groupcommit.go). A precondition makes
// it an ordered write (writeScoped); so does
// SQLite, where every write is unscoped. What it shares with the
// organization's other writes: the count of pending webhook deliveries,
// whose bound (WebhookLimits) concurrent commuting writes may pass by the
// few in flight at once.
func (db *DB) writeCommuting(ctx context.Context, orgID string, fn func(tx *Tx) error) error {
	err := db.writeScoped(ctx, commutingScope+orgID, true, fn)
	if err != nil && db.dialect.deadlock(err) {
		return db.Write(ctx, fn)
	}
	return err
}

// The organization a row belongs to, by its id: what writeOwned reads
// before a write and again under the organization's lock.
const (
	spaceOrgSQL         = `SELECT organization_id FROM spaces WHERE id = ?`
	collectionOrgSQL    = `SELECT organization_id FROM collections WHERE id = ?`
	siteOrgSQL          = `SELECT organization_id FROM sites WHERE id = ?`
	teamOrgSQL          = `SELECT organization_id FROM teams WHERE id = ?`
	changeRequestOrgSQL = `SELECT s.organization_id FROM change_requests c JOIN spaces s ON s.id = c.space_id WHERE c.id = ?`
)

// writeSpace is Write confined to the organization of spaceID (writeOwned).
func (db *DB) writeSpace(ctx context.Context, spaceID string, fn func(tx *Tx) error) error {
	return db.writeOwned(ctx, spaceOrgSQL, spaceID, fn)
}

// writeOwned is Write confined to the organization owning id, as ownerSQL
// reads it: read before the write and checked again under the
// organization's lock (a space or a collection changes organization only
// in an unscoped write). A row that is not found, or has moved meanwhile,
// is written unscoped: fn then answers as it always did.
func (db *DB) writeOwned(ctx context.Context, ownerSQL, id string, fn func(tx *Tx) error) error {
	if !db.dialect.scopes() {
		return db.Write(ctx, fn)
	}
	var org string
	if err := db.r().QueryRowContext(ctx, ownerSQL, id).Scan(&org); err != nil {
		if errors.Is(notFound(err), ErrNotFound) {
			return db.Write(ctx, fn)
		}
		return err
	}
	err := db.writeOrg(ctx, org, func(tx *Tx) error {
		var now string
		err := tx.QueryRowContext(ctx, ownerSQL, id).Scan(&now)
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
