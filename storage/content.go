package storage

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"
	"time"
)

// The content tree of an organization: collections hold collections and
// spaces. This file keeps the stored order (positions and sort keys) and
// loads what permission checks need; collections.go and spaces.go hold the
// reads and writes of each kind.

// Content is collections, spaces, their revisions and content grants.
type Content interface {
	Collection(ctx context.Context, id string) (Collection, error)
	CollectionsByIDs(ctx context.Context, ids []string) (map[string]Collection, error)
	ListCollections(ctx context.Context, f CollectionFilter, keep func(Collection) bool, pq PageQuery) (Page[Collection], error)
	CreateCollection(ctx context.Context, c *Collection) error
	UpdateCollection(ctx context.Context, id string, p CollectionPatch) error
	DeleteCollection(ctx context.Context, id string) (bool, error)
	MoveCollection(ctx context.Context, id string, parent *string, at Placement) error
	TransferCollection(ctx context.Context, id, to string) error
	Space(ctx context.Context, id string) (Space, error)
	SpacesByIDs(ctx context.Context, ids []string) (map[string]Space, error)
	ListSpaces(ctx context.Context, f SpaceFilter, keep func(Space) bool, pq PageQuery) (Page[Space], error)
	CreateSpace(ctx context.Context, s *Space) error
	UpdateSpace(ctx context.Context, id string, p SpacePatch) error
	TrashSpace(ctx context.Context, id string) (bool, error)
	RestoreSpace(ctx context.Context, id string, since time.Time) error
	PurgeSpaces(ctx context.Context, cutoff time.Time) (int, error)
	DuplicateSpace(ctx context.Context, id, title string) (string, error)
	MoveSpace(ctx context.Context, id string, parent *string, at Placement) error
	TransferSpace(ctx context.Context, id, to string) error
	Revisions(ctx context.Context, spaceID string) ([]Revision, error)
	ContentAccess(ctx context.Context, orgID, userID string, chainFrom *string) (AccessData, error)
	SpaceAccess(ctx context.Context, spaceID, userID string) (Space, AccessData, error)
	SetContentGrant(ctx context.Context, orgID string, g ContentGrant) error
	DeleteContentGrant(ctx context.Context, target ContentRef, principalKind, principalID string) (bool, error)
	ListContentGrants(ctx context.Context, target ContentRef, pq PageQuery) (Page[ContentGrant], error)
	SetContentGrants(ctx context.Context, orgID string, grants []ContentGrant) error
	ListUserGrants(ctx context.Context, target ContentRef, pq PageQuery) (Page[UserGrant], error)
	ListTeamGrants(ctx context.Context, target ContentRef, pq PageQuery) (Page[TeamGrant], error)
	ContentGrantReach(ctx context.Context, orgID string, item ContentRef, parent *string) (GrantReach, error)
	ListContentReaders(ctx context.Context, orgID string, q ReaderQuery, pq PageQuery) (Page[ContentReader], error)
}

var (
	// ErrNoChange: a move or transfer that would leave everything as it is.
	ErrNoChange = errors.New("storage: the operation would change nothing")
	// ErrBadPosition: a position pointer that is not a sibling at the destination.
	ErrBadPosition = errors.New("storage: the position does not point at a sibling in the destination")
)

// ContentKind names the two kinds of items of the content tree.
const (
	KindSpace      = "space"
	KindCollection = "collection"
)

// ContentRef points at a space or a collection.
type ContentRef struct {
	Kind string // KindSpace | KindCollection
	ID   string
}

// Placement says where a moved or new item goes among its new siblings:
// before or after a sibling, or at the end when both are nil.
type Placement struct {
	Before *ContentRef
	After  *ContentRef
}

type sibling struct {
	ContentRef
	Pos string
}

// siblingSide selects a neighbour: the first sibling before (or after) a
// position, skipping one item (the one being placed), live spaces only or
// trashed ones too.
type siblingSide struct {
	before   bool
	liveOnly bool
}

// neighbour is the sibling of an item under parent (nil: the top level of
// orgID) nearest to (pos, id) on one side; ok is false when there is none.
// pos "" with side after starts from the beginning, with side before from
// the end. Collections and spaces share one order, so it asks both tables,
// each through its (organization_id, parent_id, position, id) index: two
// index seeks, whatever the number of siblings.
func neighbour(tx *Tx, orgID string, parent *string, pos, id string, side siblingSide, skip ContentRef) (sibling, bool, error) {
	var best sibling
	found := false
	for _, kind := range []string{KindCollection, KindSpace} {
		q := `SELECT id, position FROM ` + tableOf(kind) + ` WHERE organization_id = ? AND `
		args := []any{orgID}
		if parent == nil {
			q += `parent_id IS NULL`
		} else {
			q += `parent_id = ?`
			args = append(args, *parent)
		}
		if side.liveOnly && kind == KindSpace {
			q += ` AND deleted_at IS NULL`
		}
		dir := "ASC"
		if side.before {
			dir = "DESC"
		}
		if pos != "" {
			cmp := ">"
			if side.before {
				cmp = "<"
			}
			q += ` AND (position, id) ` + cmp + ` (?, ?)`
			args = append(args, pos, id)
		}
		if skip.Kind == kind {
			q += ` AND id <> ?`
			args = append(args, skip.ID)
		}
		// One row, read with QueryRow: the writer's prepared statements
		// serve it (Tx.QueryRowContext), so no SQL is parsed per create.
		q += ` ORDER BY position ` + dir + `, id ` + dir + ` LIMIT 1`
		s := sibling{ContentRef: ContentRef{Kind: kind}}
		err := tx.QueryRowContext(tx.ctx, q, args...).Scan(&s.ID, &s.Pos)
		if err == sql.ErrNoRows {
			continue
		}
		if err != nil {
			return best, false, err
		}
		if !found || (side.before && siblingLess(best, s)) || (!side.before && siblingLess(s, best)) {
			best, found = s, true
		}
	}
	return best, found, nil
}

// siblingLess is the stored order of siblings: position, then id.
func siblingLess(a, b sibling) bool {
	if a.Pos != b.Pos {
		return a.Pos < b.Pos
	}
	return a.ID < b.ID
}

// siblingAt reads ref as a sibling under parent in orgID (live, for a
// space) of item; ErrBadPosition when it is not one.
func siblingAt(tx *Tx, orgID string, parent *string, ref, item ContentRef) (sibling, error) {
	s := sibling{ContentRef: ref}
	if ref == item || (ref.Kind != KindSpace && ref.Kind != KindCollection) {
		return s, ErrBadPosition
	}
	q := `SELECT position FROM ` + tableOf(ref.Kind) + ` WHERE id = ? AND organization_id = ? AND `
	args := []any{ref.ID, orgID}
	if parent == nil {
		q += `parent_id IS NULL`
	} else {
		q += `parent_id = ?`
		args = append(args, *parent)
	}
	if ref.Kind == KindSpace {
		q += ` AND deleted_at IS NULL`
	}
	err := tx.QueryRowContext(tx.ctx, q, args...).Scan(&s.Pos)
	if err == sql.ErrNoRows {
		return s, ErrBadPosition
	}
	return s, err
}

func tableOf(kind string) string {
	if kind == KindCollection {
		return "collections"
	}
	return "spaces"
}

// lastPosition is the highest position under parent (nil: the top level of
// orgID), trashed spaces included, skipping skip; "" when there is none.
func lastPosition(tx *Tx, orgID string, parent *string, skip ContentRef) (string, error) {
	if skip == (ContentRef{}) {
		last, _, err := endPosition(tx, orgID, parent)
		return last, err
	}
	s, ok, err := neighbour(tx, orgID, parent, "", "", siblingSide{before: true}, skip)
	if !ok {
		return "", err
	}
	return s.Pos, err
}

// endPosition is lastPosition with nothing skipped, in one statement (every
// create asks it on the single writer): the greater of the two tables' last
// positions, each one seek at the end of its (organization_id, parent_id,
// position, id) index, and in the same statement the parent collection's
// sort key (parentSortKey; "" at the top level, ErrNotFound when parent
// does not exist).
func endPosition(tx *Tx, orgID string, parent *string) (last, parentKey string, err error) {
	if parent == nil {
		err = tx.QueryRowContext(tx.ctx, topLevelEndSQL, orgID, orgID).Scan(&last)
		return last, "", err
	}
	var key sql.NullString
	err = tx.QueryRowContext(tx.ctx, collectionEndSQL, *parent, orgID, *parent, orgID, *parent).Scan(&last, &key)
	if err == nil && !key.Valid {
		err = ErrNotFound
	}
	return last, key.String, err
}

// The ends of a level (endPosition). Each table's last position is read as
// the first row of its level in descending order, ordered by parent_id and
// position, which is the by-level index backwards. PostgreSQL takes it so
// whatever its statistics say; asked for MAX(position), it scanned the
// level through another index that starts with the same columns when its
// statistics were older than the organization's growth (a top level of
// 15,000 spaces read whole for each space created:
// TestEndPositionReadsOneRow).
var (
	// topLevelEndSQL: arguments organization, organization.
	topLevelEndSQL = `SELECT COALESCE(MAX(p), '') FROM (SELECT ` + levelEnd("collections", "IS NULL") + ` AS p
 UNION ALL SELECT ` + levelEnd("spaces", "IS NULL") + `) ends`
	// collectionEndSQL, with the collection's sort key: arguments
	// collection, organization, collection, organization, collection.
	collectionEndSQL = `SELECT COALESCE(MAX(p), ''), (SELECT sort_key FROM collections WHERE id = ?) FROM (SELECT ` + levelEnd("collections", "= ?") + ` AS p
 UNION ALL SELECT ` + levelEnd("spaces", "= ?") + `) ends`
)

// levelEnd is table's last position at a level of an organization
// (arguments: organization, then parent_id's if parent has one).
func levelEnd(table, parent string) string {
	return `(SELECT position FROM ` + table + ` WHERE organization_id = ? AND parent_id ` + parent + ` ORDER BY parent_id DESC, position DESC LIMIT 1)`
}

// endOf is the position and sort key of a new item at the end of parent
// (nil: the top level of orgID). ErrNotFound when parent does not exist.
func endOf(tx *Tx, orgID string, parent *string) (pos, key string, err error) {
	last, pk, err := endPosition(tx, orgID, parent)
	if err != nil {
		return "", "", err
	}
	if pos, err = keyBetween(last, ""); err != nil {
		return "", "", fmt.Errorf("position after %q: %w", last, err)
	}
	if pk == "" {
		return pos, pos, nil
	}
	return pos, pk + "/" + pos, nil
}

// place gives item a position among the children of parent according to
// at and refreshes the sort keys of what moved. The new position is a key
// between the two neighbours (order.go): one row is written, no sibling is
// renumbered, and the neighbours are found by index. Trashed spaces keep
// their place among the siblings (so that a restore finds it), so keys are
// made between neighbours trashed or not, while Before and After name live
// siblings. When the item keeps its parent and its rank, place returns
// ErrNoChange and writes nothing.
func place(tx *Tx, orgID string, item ContentRef, parent *string, samePar bool, at Placement) error {
	var cur sibling
	if samePar {
		if err := tx.QueryRowContext(tx.ctx, `SELECT position FROM `+tableOf(item.Kind)+` WHERE id = ?`, item.ID).Scan(&cur.Pos); err != nil {
			return notFound(err)
		}
		cur.ContentRef = item
	}
	live := siblingSide{liveOnly: true}
	// lo and hi bound the new key (any sibling, trashed or not); stay is
	// whether the item already sits where at points.
	var lo, hi string
	stay := false
	switch {
	case at.After != nil:
		after, err := siblingAt(tx, orgID, parent, *at.After, item)
		if err != nil {
			return err
		}
		if at.Before != nil {
			next, ok, err := neighbour(tx, orgID, parent, after.Pos, after.ID, live, item)
			if err != nil {
				return err
			}
			if !ok || next.ContentRef != *at.Before {
				return ErrBadPosition
			}
		}
		next, ok, err := neighbour(tx, orgID, parent, after.Pos, after.ID, siblingSide{}, item)
		if err != nil {
			return err
		}
		lo = after.Pos
		if ok {
			hi = next.Pos
		}
		if samePar {
			prev, ok, err := neighbour(tx, orgID, parent, cur.Pos, cur.ID, siblingSide{before: true, liveOnly: true}, item)
			if err != nil {
				return err
			}
			stay = ok && prev.ContentRef == after.ContentRef
		}
	case at.Before != nil:
		before, err := siblingAt(tx, orgID, parent, *at.Before, item)
		if err != nil {
			return err
		}
		prev, ok, err := neighbour(tx, orgID, parent, before.Pos, before.ID, siblingSide{before: true}, item)
		if err != nil {
			return err
		}
		hi = before.Pos
		if ok {
			lo = prev.Pos
		}
		if samePar {
			next, ok, err := neighbour(tx, orgID, parent, cur.Pos, cur.ID, live, item)
			if err != nil {
				return err
			}
			stay = ok && next.ContentRef == before.ContentRef
		}
	default:
		var err error
		if lo, err = lastPosition(tx, orgID, parent, item); err != nil {
			return err
		}
		if samePar {
			_, ok, err := neighbour(tx, orgID, parent, cur.Pos, cur.ID, live, item)
			if err != nil {
				return err
			}
			stay = !ok
		}
	}
	if samePar && stay {
		return ErrNoChange
	}
	pos, err := keyBetween(lo, hi)
	if err != nil {
		return fmt.Errorf("position between %q and %q: %w", lo, hi, err)
	}
	if _, err := tx.exec(`UPDATE `+tableOf(item.Kind)+` SET parent_id = ?, position = ? WHERE id = ?`, strOrNil(parent), pos, item.ID); err != nil {
		return err
	}
	return refreshItem(tx, item, parent)
}

// parentSortKey is the sort key of collection parent ("" for the top level).
func parentSortKey(tx *Tx, parent *string) (string, error) {
	if parent == nil {
		return "", nil
	}
	var key string
	err := tx.QueryRowContext(tx.ctx, `SELECT sort_key FROM collections WHERE id = ?`, *parent).Scan(&key)
	return key, notFound(err)
}

// refreshItem recomputes the sort key of one item under parent, and of
// everything under it when it is a collection.
func refreshItem(tx *Tx, item ContentRef, parent *string) error {
	pk, err := parentSortKey(tx, parent)
	if err != nil {
		return err
	}
	if item.Kind == KindSpace {
		_, err := tx.exec(`UPDATE spaces SET sort_key = `+concatKey("?")+` WHERE id = ?`, pk, pk, item.ID)
		return err
	}
	if _, err := tx.exec(`UPDATE collections SET sort_key = `+concatKey("?")+` WHERE id = ?`, pk, pk, item.ID); err != nil {
		return err
	}
	return refreshLevel(tx, "", &item.ID)
}

// concatKey is the SQL of sortKeyUnder(parentKey, position) with parentKey
// bound to the placeholder twice (standard SQL: CASE and ||).
func concatKey(ph string) string {
	return `CASE WHEN ` + ph + ` = '' THEN position ELSE ` + ph + ` || '/' || position END`
}

// refreshLevel recomputes the sort keys of every item under parent (the
// top level of orgID when parent is nil), recursively. Trashed spaces are
// included so that a restore finds them in order.
func refreshLevel(tx *Tx, orgID string, parent *string) error {
	pk, err := parentSortKey(tx, parent)
	if err != nil {
		return err
	}
	var where string
	var arg any
	if parent == nil {
		where, arg = `organization_id = ? AND parent_id IS NULL`, orgID
	} else {
		where, arg = `parent_id = ?`, *parent
	}
	if _, err := tx.exec(`UPDATE spaces SET sort_key = `+concatKey("?")+` WHERE `+where, pk, pk, arg); err != nil {
		return err
	}
	if _, err := tx.exec(`UPDATE collections SET sort_key = `+concatKey("?")+` WHERE `+where, pk, pk, arg); err != nil {
		return err
	}
	ids, err := queryIDs(tx, `SELECT id FROM collections WHERE `+where, arg)
	if err != nil {
		return err
	}
	for _, id := range ids {
		if err := refreshLevel(tx, orgID, &id); err != nil {
			return err
		}
	}
	return nil
}

// queryIDs reads a one-column list of ids.
func queryIDs(q queryer, query string, args ...any) ([]string, error) {
	ctx := context.Background()
	if t, ok := q.(*Tx); ok {
		ctx = t.ctx
	}
	return queryIDsCtx(ctx, q, query, args...)
}

// queryIDsCtx reads a one-column list of ids.
func queryIDsCtx(ctx context.Context, q queryer, query string, args ...any) ([]string, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		out = append(out, id)
	}
	return out, rows.Err()
}

// subtreeCollections is root and every collection under it.
func subtreeCollections(tx *Tx, root string) ([]string, error) {
	out := []string{root}
	for i := 0; i < len(out); i++ {
		ids, err := queryIDs(tx, `SELECT id FROM collections WHERE parent_id = ?`, out[i])
		if err != nil {
			return nil, err
		}
		out = append(out, ids...)
	}
	return out, nil
}

// CollectionNode is a collection as permission checks see it.
type CollectionNode struct {
	ID           string
	ParentID     *string
	DefaultLevel *string
}

// ContentGrant is a role on a space or collection given to a team or user.
type ContentGrant struct {
	TargetKind    string
	TargetID      string
	PrincipalKind string // team | user
	PrincipalID   string
	Role          string
	CreatedAt     time.Time
}

// AccessData is everything that decides one user's role on an
// organization's content, read in one snapshot: the membership, the
// collection tree, and the grants made to the user or to a team they
// belong to.
type AccessData struct {
	UserID     string
	Membership *Membership
	// Teams are the member's teams in the organization.
	Teams []string
	// Tree is the organization's whole collection tree by id. It is shared
	// between requests (cached until the next write): read it, never change it.
	Tree        CollectionTree
	Collections []CollectionNode // a tree given as a list (tests); Tree wins when set
	Grants      []ContentGrant
	// SpaceGrantsPartial tells that Grants holds the grants on collections
	// only: the member and their teams have more grants on spaces than a
	// cached access holds (access_grants.go); ask SpaceGrantsAmong.
	SpaceGrantsPartial bool
	// Memo keeps what the caller derives from this data for as long as the
	// data itself is cached (nil: not cached; derive every time).
	Memo *Memo
}

// Memo holds values derived from one cached AccessData, built once by
// whichever request asks first.
type Memo struct {
	mu sync.Mutex
	m  map[string]any
}

// Get returns the value under key, building it first if needed. A nil Memo
// builds every time.
func (m *Memo) Get(key string, build func() any) any {
	if m == nil {
		return build()
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if v, ok := m.m[key]; ok {
		return v
	}
	if m.m == nil {
		m.m = map[string]any{}
	}
	v := build()
	m.m[key] = v
	return v
}

// CollectionTree is an organization's collections by id.
type CollectionTree map[string]CollectionNode

const (
	accessMemberSQL = `SELECT role, sso FROM members WHERE organization_id = ? AND user_id = ?`
	treeSQL         = `SELECT id, parent_id, default_level FROM collections WHERE organization_id = ?`
	// accessTeamsSQL: the member's teams (team_members_by_user).
	accessTeamsSQL = `SELECT team_id FROM team_members WHERE organization_id = ? AND user_id = ? ORDER BY team_id`
	// countersSQL reads both counters: n moves on every write, access only
	// on writes that change access data (migration 0013's triggers).
	countersSQL = `SELECT n, access FROM change_counter WHERE id = 1`
)

// counters is one reading of the change counters.
type counters struct{ n, access int64 }

func readCounters(ctx context.Context, q queryer) (counters, error) {
	if s := snapshotFor(ctx, q); s != nil {
		return s.counters, nil
	}
	var c counters
	err := q.QueryRowContext(ctx, countersSQL).Scan(&c.n, &c.access)
	return c, err
}

// ContentAccess loads the AccessData of userID in orgID. It is cached per
// organization and user until the next write that changes access (the
// access counter: memberships, teams, the collection tree, grants; see
// migration 0013), so creating, renaming or moving spaces leaves it and
// what is derived from it (the visible-space selection) in place; a
// request then costs one read of the counters. When it must be read again,
// one request reads it and the others wanting the same key wait for that
// read (singleflight) instead of all reading it. The collection tree is
// cached per organization the same way (treeCache). chainFrom is a hint
// kept for the interface: the whole tree is always returned, which answers
// single-item checks too. The result is shared between requests: read it,
// never change it.
func (db *DB) ContentAccess(ctx context.Context, orgID, userID string, chainFrom *string) (AccessData, error) {
	var a AccessData
	if err := db.prepare(ctx, countersSQL, accessMemberSQL, accessCollectionGrantsSQL, accessSpaceGrantsSQL, accessTeamsSQL, treeSQL); err != nil {
		return a, err
	}
	c, err := readCounters(ctx, db.r())
	if err != nil {
		return a, err
	}
	if d, ok := db.access.get(accessKey(orgID, userID), c.access); ok {
		return d, nil
	}
	return db.loadAccess(ctx, orgID, userID)
}

// loadAccess reads userID's AccessData in orgID in a read snapshot of its
// own, one reader per key at a time.
func (db *DB) loadAccess(ctx context.Context, orgID, userID string) (AccessData, error) {
	key := accessKey(orgID, userID)
	ctx = context.WithoutCancel(ctx) // shared: one caller leaving must not fail the others
	v, err, _ := db.accessLoads.Do(key, func() (any, error) {
		var a AccessData
		err := db.ReadTx(ctx, func(q queryer) error {
			c, err := readCounters(ctx, q)
			if err != nil {
				return err
			}
			a, err = db.accessAt(ctx, q, orgID, userID, c.access)
			return err
		})
		return a, err
	})
	if err != nil {
		return AccessData{}, err
	}
	return v.(AccessData), nil
}

// SpaceAccess reads a space (of any organization, trashed or not) and the
// AccessData of userID in the space's organization: between writes a
// request costs one read of the counters. The space is cached until the
// next write, the access data until the next change of access. The
// results are shared between requests: read them, never change them.
func (db *DB) SpaceAccess(ctx context.Context, spaceID, userID string) (Space, AccessData, error) {
	var sp Space
	var a AccessData
	if err := db.prepare(ctx, countersSQL, spaceByIDSQL, accessMemberSQL, accessCollectionGrantsSQL, accessSpaceGrantsSQL, accessTeamsSQL, treeSQL); err != nil {
		return sp, a, err
	}
	c, err := readCounters(ctx, db.r())
	if err != nil {
		return sp, a, err
	}
	sp, ok := db.spaces.get(spaceID, c.n)
	if !ok {
		if sp, err = db.spaceAt(ctx, db.r(), spaceID, c.n); err != nil {
			return sp, a, err
		}
	}
	if a, ok := db.access.get(accessKey(sp.OrganizationID, userID), c.access); ok {
		return sp, a, nil
	}
	a, err = db.loadAccess(ctx, sp.OrganizationID, userID)
	return sp, a, err
}

func accessKey(orgID, userID string) string { return orgID + "\x00" + userID }

// accessAt is the AccessData of userID in orgID in q's snapshot, whose
// access counter reads version: from the cache, or read and cached.
func (db *DB) accessAt(ctx context.Context, q queryer, orgID, userID string, version int64) (AccessData, error) {
	key := accessKey(orgID, userID)
	if d, ok := db.access.get(key, version); ok {
		return d, nil
	}
	a := AccessData{UserID: userID}
	var role sql.NullString
	var sso bool
	err := q.QueryRowContext(ctx, accessMemberSQL, orgID, userID).Scan(&role, &sso)
	if err != nil && err != sql.ErrNoRows {
		return a, err
	}
	if err == nil {
		a.Membership = &Membership{Role: nullStr(role), SSO: sso}
		if a.Tree, err = db.trees.get(ctx, q, orgID, version); err != nil {
			return a, err
		}
		if a.Grants, a.SpaceGrantsPartial, err = readAccessGrants(ctx, q, orgID, userID, int(db.spaceGrantsMax.Load())); err != nil {
			return a, err
		}
		if a.Teams, err = queryIDsCtx(ctx, q, accessTeamsSQL, orgID, userID); err != nil {
			return a, err
		}
	}
	a.Memo = &Memo{}
	db.access.put(key, version, a, accessSize(a))
	return a, nil
}

// spaceAt is the space with that id as q reads it, cached under version
// (the change counter read before, in the same snapshot or earlier: a
// write between the two only makes the entry miss sooner).
func (db *DB) spaceAt(ctx context.Context, q queryer, id string, version int64) (Space, error) {
	if sp, ok := db.spaces.get(id, version); ok {
		return sp, nil
	}
	sp, err := scanSpace(q.QueryRowContext(ctx, spaceByIDSQL, id))
	if err == nil {
		db.spaces.put(id, version, sp)
	}
	return sp, err
}

// ChangeVersion is the change counter now. It moves with every committed
// write (on PostgreSQL with every commit of the database), so two equal
// readings mean nothing was written between them: tests use it to tell a
// cache miss a write explains from one nothing explains.
func (db *DB) ChangeVersion(ctx context.Context) (int64, error) {
	return changeVersion(ctx, db.r())
}

// changeVersion reads the change counter (a prepared primary-key read) in
// q: db.r() for a snapshot of its own, or a read transaction.
func changeVersion(ctx context.Context, q queryer) (int64, error) {
	if s := snapshotFor(ctx, q); s != nil {
		return s.n, nil
	}
	var version int64
	err := q.QueryRowContext(ctx, changeCounterSQL).Scan(&version)
	return version, err
}

// versioned is a cache of values that hold while the change counter stands
// still (every write transaction bumps it, see Write). A value is stored
// with the counter of the snapshot it was read in and served only to
// readers that read the same counter, so nobody sees a state other than
// the one their own counter reading names.
type versioned[T any] struct {
	mu  sync.RWMutex
	m   map[string]versionedEntry[T]
	max int // entries kept at most; the cache empties when it is full
	// maxBytes, when set, bounds the sum of the sizes given to put; the
	// cache empties when a put would pass it.
	maxBytes int
	bytes    int
}

type versionedEntry[T any] struct {
	version int64
	v       T
	size    int
}

func (c *versioned[T]) get(key string, version int64) (T, bool) {
	c.mu.RLock()
	e, hit := c.m[key]
	c.mu.RUnlock()
	if hit && e.version == version {
		return e.v, true
	}
	var zero T
	return zero, false
}

// put stores v under key for version; size is its weight against
// maxBytes (ignored without one).
func (c *versioned[T]) put(key string, version int64, v T, size ...int) {
	n := 0
	if len(size) > 0 && c.maxBytes > 0 {
		n = size[0]
		if n > c.maxBytes {
			return // larger than the whole cache: not kept
		}
	}
	c.mu.Lock()
	if c.m == nil || len(c.m) >= c.max || c.maxBytes > 0 && c.bytes+n > c.maxBytes {
		c.m, c.bytes = map[string]versionedEntry[T]{}, 0
	}
	if old, ok := c.m[key]; !ok || old.version < version {
		c.bytes += n - old.size
		c.m[key] = versionedEntry[T]{version: version, v: v, size: n}
	}
	c.mu.Unlock()
}

// treeCache keeps each organization's collection tree between writes.
type treeCache struct{ versioned[CollectionTree] }

// get returns orgID's tree as of the snapshot of q, whose change counter
// reads version.
func (c *treeCache) get(ctx context.Context, q queryer, orgID string, version int64) (CollectionTree, error) {
	if t, ok := c.versioned.get(orgID, version); ok {
		return t, nil
	}
	nodes, err := collectionNodes(ctx, q, orgID)
	if err != nil {
		return nil, err
	}
	tree := make(CollectionTree, len(nodes))
	for _, n := range nodes {
		tree[n.ID] = n
	}
	c.put(orgID, version, tree)
	return tree, nil
}

// collectionNodes reads orgID's whole collection tree.
func collectionNodes(ctx context.Context, q queryer, orgID string) ([]CollectionNode, error) {
	rows, err := q.QueryContext(ctx, treeSQL, orgID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []CollectionNode
	for rows.Next() {
		var n CollectionNode
		var parent, level sql.NullString
		if err := rows.Scan(&n.ID, &parent, &level); err != nil {
			return nil, err
		}
		n.ParentID, n.DefaultLevel = nullStr(parent), nullStr(level)
		out = append(out, n)
	}
	return out, rows.Err()
}
