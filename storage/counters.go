package storage

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
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
	return db.readCounters(ctx, "", "")
}

// readCounters is ReadCounters, or ReadCountersFor when orgID is given:
// read now where the dialect reads them in process, else shared with the
// requests queued beside this one (counters_shared.go).
func (db *DB) readCounters(ctx context.Context, orgID, userID string) (*Counters, error) {
	if db.sharedReads != nil {
		return db.sharedReads.read(ctx, orgID, userID)
	}
	var asked []orgUser
	if orgID != "" {
		asked = []orgUser{{orgID, userID}}
	}
	snap, orgs, err := db.readCountersNow(ctx, asked)
	if err == nil && len(orgs) > 0 && orgs[0] != nil {
		snap.org, snap.orgKey = orgs[0], asked[0].key()
	}
	return snap, err
}

// orgUser is an organization and a user ReadCountersFor reads with the
// counters.
type orgUser struct{ org, user string }

// key is the pair's key in OrganizationFor's cache.
func (p orgUser) key() string { return p.org + "\x00" + p.user }

// maxOrgsWithCounters bounds the organizations one counters read carries
// (countersOrgsSQL): a shared read's requests past them read their own.
const maxOrgsWithCounters = 8

const countersOrgsPrefix = `WITH q(org_id, user_id, i) AS (VALUES `

// countersOrgsSQL[k] reads the counters (countersSnapshotSQL) together
// with k organizations and a user's membership in each
// (orgForVersionedSQL), from one snapshot: a row per organization that
// exists, its place among the k last. Arguments: organization, user and
// place, k times.
var countersOrgsSQL = func() (q [maxOrgsWithCounters + 1]string) {
	for k := 1; k <= maxOrgsWithCounters; k++ {
		q[k] = countersOrgsPrefix + strings.Repeat(", (?, ?, CAST(? AS INTEGER))", k)[2:] + `)
 SELECT ` + orgCols + `, m.role, m.user_id IS NOT NULL, m.sso, ` + ownsTeamSQL + `, c.n, c.access, t.n, q.i
 FROM change_counter c CROSS JOIN token_changes t CROSS JOIN q JOIN organizations o ON o.id = q.org_id
 LEFT JOIN members m ON m.organization_id = o.id AND m.user_id = q.user_id
 WHERE c.id = 1 AND t.id = 1`
	}
	return q
}()

// readCountersNow reads the counters and, in the same statement, the
// organization and the user's membership of each pair asked (at most
// maxOrgsWithCounters): orgs[i] is asked[i]'s, nil when that
// organization does not exist. Each is cached under the change version
// read with it, so the request's OrganizationFor is a cache hit.
func (db *DB) readCountersNow(ctx context.Context, asked []orgUser) (snap *countersSnapshot, orgs []*orgFor, err error) {
	snap = &countersSnapshot{}
	if len(asked) == 0 {
		if db.countersRead != nil {
			snap.n, snap.access, snap.tokens, err = db.countersRead.read(ctx)
		} else {
			err = db.r().QueryRowContext(ctx, countersSnapshotSQL).Scan(&snap.n, &snap.access, &snap.tokens)
		}
		if err != nil {
			return nil, nil, err
		}
		return snap, nil, nil
	}
	args := make([]any, 0, 3*len(asked))
	for i, p := range asked {
		args = append(args, p.org, p.user, i)
	}
	rows, err := db.r().QueryContext(ctx, countersOrgsSQL[len(asked)], args...)
	if err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	orgs = make([]*orgFor, len(asked))
	found := false
	for rows.Next() {
		var e orgFor
		var role sql.NullString
		var isMember, sso, owns sql.NullBool
		var i int
		if e.org, err = scanOrg(rows, &role, &isMember, &sso, &owns, &snap.n, &snap.access, &snap.tokens, &i); err != nil {
			return nil, nil, err
		}
		if i < 0 || i >= len(asked) {
			return nil, nil, fmt.Errorf("storage: counters read answered for place %d of %d", i, len(asked))
		}
		if isMember.Bool {
			e.member = &Membership{Role: nullStr(role), SSO: sso.Bool, OwnsTeam: owns.Bool}
		}
		orgs[i], found = &e, true
	}
	if err := rows.Err(); err != nil {
		return nil, nil, err
	}
	if !found { // no organization asked exists: the counters alone
		snap, _, err = db.readCountersNow(ctx, nil)
		return snap, orgs, err
	}
	for i, e := range orgs {
		if e != nil {
			db.orgs.put(asked[i].key(), snap.n, *e)
		}
	}
	return snap, orgs, nil
}

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
	return db.readCounters(ctx, orgID, userID)
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
