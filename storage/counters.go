package storage

import (
	"context"
	"database/sql"
	"errors"
	"sync/atomic"
)

// A request reads the counters its caches are validated by once, at its
// start (WithCounters), instead of once per cache it consults: the token
// lookup, the organization, the space and the access data would otherwise
// each read a counter row, one SQL statement apiece on the hot path.
// Serving a request from the state at its start is what it would have seen
// had it run a moment sooner; a write committed before the request began is
// always seen. Once the request itself writes (Write with its context), the
// snapshot is dropped and later reads read the counters again, so a
// request reads its own writes.

// countersSnapshotSQL reads the change, access and token counters at once.
const countersSnapshotSQL = `SELECT c.n, c.access, t.n FROM change_counter c, token_changes t WHERE c.id = 1 AND t.id = 1`

type countersSnapshot struct {
	counters
	tokens int64
	stale  atomic.Bool // set by a write made with the request's context
	// org is the organization and membership read with the counters
	// (ReadCountersFor) under orgKey (OrganizationFor's cache key): the
	// request's own, whatever newer entry another request cached since.
	org    *orgFor
	orgKey string
}

type countersKey struct{}

// countersReader reads the counters row outside the reader pool (the
// dialect's counterReader): the request's first statement, kept as cheap
// as a prepared single-row read can be.
type countersReader interface {
	read(ctx context.Context) (change, access, tokens int64, err error)
	close()
}

// WithCounters reads the counters and returns ctx carrying them for the
// reads of one request (see above). On error ctx is returned unchanged:
// every read then reads the counters itself.
func (db *DB) WithCounters(ctx context.Context) (context.Context, error) {
	snap, err := db.ReadCounters(ctx)
	if err != nil {
		return ctx, err
	}
	return context.WithValue(ctx, CountersKey, snap), nil
}

// Counters is one request's reading of the counters.
type Counters = countersSnapshot

// CountersKey is the context key under which a request's reads find its
// Counters: WithCounters sets it, or a request context that keeps its
// per-request values in one struct answers it (server.requestContext).
var CountersKey any = countersKey{}

// ReadCounters reads the counters for one request (see WithCounters).
func (db *DB) ReadCounters(ctx context.Context) (*Counters, error) {
	snap := &countersSnapshot{}
	var err error
	if db.countersRead != nil {
		snap.n, snap.access, snap.tokens, err = db.countersRead.read(ctx)
	} else {
		err = db.r().QueryRowContext(ctx, countersSnapshotSQL).Scan(&snap.n, &snap.access, &snap.tokens)
	}
	if err != nil {
		return nil, err
	}
	return snap, nil
}

// countersOrgSQL reads the counters (countersSnapshotSQL) together with
// an organization and a user's membership in it (orgForVersionedSQL),
// from one snapshot; no row when the organization does not exist.
// Arguments: the user, the organization.
const countersOrgSQL = `SELECT ` + orgCols + `, m.role, m.user_id IS NOT NULL, m.sso, ` + ownsTeamSQL + `, c.n, c.access, t.n
 FROM change_counter c, token_changes t, organizations o LEFT JOIN members m ON m.organization_id = o.id AND m.user_id = ?
 WHERE c.id = 1 AND t.id = 1 AND o.id = ?`

// ReadCountersFor is ReadCounters for a request about organization orgID
// made by userID (as far as the caller can tell before authenticating:
// a wrong guess only leaves a cache entry no request uses). Where the
// dialect says so (countersWithOrg: PostgreSQL, where every commit moves
// the change version, so the organization's cache entry is stale under
// any write load and OrganizationFor read it again in a round trip of its
// own), the organization and the membership come in the same statement
// as the counters and are cached under the change version read with them:
// the request's OrganizationFor is then a cache hit. Elsewhere, or when
// the organization does not exist, it is ReadCounters.
func (db *DB) ReadCountersFor(ctx context.Context, orgID, userID string) (*Counters, error) {
	if !db.dialect.countersWithOrg() || orgID == "" || userID == "" || len(orgID) > maxIDLen || len(userID) > maxIDLen {
		return db.ReadCounters(ctx)
	}
	snap := &countersSnapshot{}
	var e orgFor
	var role sql.NullString
	var isMember, sso, owns sql.NullBool
	var err error
	e.org, err = scanOrg(db.r().QueryRowContext(ctx, countersOrgSQL, userID, orgID), &role, &isMember, &sso, &owns, &snap.n, &snap.access, &snap.tokens)
	if errors.Is(err, ErrNotFound) || errors.Is(err, sql.ErrNoRows) {
		return db.ReadCounters(ctx)
	}
	if err != nil {
		return nil, err
	}
	if isMember.Bool {
		e.member = &Membership{Role: nullStr(role), SSO: sso.Bool, OwnsTeam: owns.Bool}
	}
	snap.org, snap.orgKey = &e, orgID+"\x00"+userID
	db.orgs.put(snap.orgKey, snap.n, e)
	return snap, nil
}

// ReadsOrgWithCounters says whether ReadCountersFor reads the
// organization with the counters (else it is ReadCounters, and a caller
// need not work out the user to guess).
func (db *DB) ReadsOrgWithCounters() bool { return db.dialect.countersWithOrg() }

// maxIDLen bounds the ids ReadCountersFor sends (taken from a request's
// path before it is routed): longer ones are no id docsapi makes.
const maxIDLen = 64

// snapshotFor is ctx's counters snapshot when q may use it: only outside
// read transactions (q is the reader pool), since a transaction's own
// snapshot may be newer than the request's, and only until the request
// writes.
func snapshotFor(ctx context.Context, q queryer) *countersSnapshot {
	if _, pool := q.(reader); !pool {
		return nil
	}
	s, _ := ctx.Value(countersKey{}).(*countersSnapshot)
	if s == nil || s.stale.Load() {
		return nil
	}
	return s
}

// dropCounters makes a request's later reads read the counters again
// (called once a write made with ctx has committed).
func dropCounters(ctx context.Context) {
	if s, _ := ctx.Value(countersKey{}).(*countersSnapshot); s != nil {
		s.stale.Store(true)
	}
}

// Version is the change and token counters a request started with: every
// committed write, by any process, moves one of them.
type Version struct{ change, tokens int64 }

// VersionOf is ctx's counters snapshot (WithCounters) while the request has
// not written. Two requests with one Version saw the same database state
// (as far as any read of theirs went), so an answer computed from one
// serves the other when everything else it depends on is equal too.
func VersionOf(ctx context.Context) (Version, bool) {
	s, _ := ctx.Value(countersKey{}).(*countersSnapshot)
	if s == nil || s.stale.Load() {
		return Version{}, false
	}
	return Version{s.n, s.tokens}, true
}
