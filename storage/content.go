package storage

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sort"
	"strconv"
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
	ListCollections(ctx context.Context, orgID string, nested bool, keep func(Collection) bool, pq PageQuery) (Page[Collection], error)
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

// posGap spaces new positions so that most insertions between two siblings
// need no renumbering.
const posGap = 1 << 16

// posKey is the stored, fixed-width text of a position: text order equals
// numeric order, and sort keys of siblings line up character by character.
func posKey(n int64) string { return fmt.Sprintf("%012d", n) }

func posValue(s string) int64 { n, _ := strconv.ParseInt(s, 10, 64); return n }

// sortKeyUnder is the sort key of an item at position pos under a parent
// whose sort key is parentKey ("" at the top level).
func sortKeyUnder(parentKey, pos string) string {
	if parentKey == "" {
		return pos
	}
	return parentKey + "/" + pos
}

type sibling struct {
	ContentRef
	Pos string
}

// siblingsOf lists the live children of parent (nil: the top level of
// orgID) in their stored order.
func siblingsOf(tx *Tx, orgID string, parent *string) ([]sibling, error) {
	var q string
	var args []any
	if parent == nil {
		q = `SELECT 'collection', id, position FROM collections WHERE organization_id = ? AND parent_id IS NULL
 UNION ALL SELECT 'space', id, position FROM spaces WHERE organization_id = ? AND parent_id IS NULL AND deleted_at IS NULL`
		args = []any{orgID, orgID}
	} else {
		q = `SELECT 'collection', id, position FROM collections WHERE parent_id = ?
 UNION ALL SELECT 'space', id, position FROM spaces WHERE parent_id = ? AND deleted_at IS NULL`
		args = []any{*parent, *parent}
	}
	rows, err := tx.QueryContext(tx.ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []sibling
	for rows.Next() {
		var s sibling
		if err := rows.Scan(&s.Kind, &s.ID, &s.Pos); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Pos != out[j].Pos {
			return out[i].Pos < out[j].Pos
		}
		return out[i].ID < out[j].ID
	})
	return out, rows.Err()
}

func tableOf(kind string) string {
	if kind == KindCollection {
		return "collections"
	}
	return "spaces"
}

// place gives item a position among the children of parent according to
// at, writing it (and renumbering the siblings when no gap is left) and
// refreshing the sort keys of everything that moved. When the item keeps
// its parent and its rank, place returns ErrNoChange and writes nothing.
func place(tx *Tx, orgID string, item ContentRef, parent *string, samePar bool, at Placement) error {
	all, err := siblingsOf(tx, orgID, parent)
	if err != nil {
		return err
	}
	sibs := make([]sibling, 0, len(all))
	current := -1
	for _, s := range all {
		if s.ContentRef == item {
			current = len(sibs)
			continue
		}
		sibs = append(sibs, s)
	}
	index := func(ref *ContentRef) (int, error) {
		if ref == nil {
			return -1, nil
		}
		for i, s := range sibs {
			if s.ContentRef == *ref {
				return i, nil
			}
		}
		return -1, ErrBadPosition
	}
	bi, err := index(at.Before)
	if err != nil {
		return err
	}
	ai, err := index(at.After)
	if err != nil {
		return err
	}
	target := len(sibs)
	switch {
	case at.Before != nil && at.After != nil:
		if ai+1 != bi {
			return ErrBadPosition
		}
		target = bi
	case at.Before != nil:
		target = bi
	case at.After != nil:
		target = ai + 1
	}
	if samePar && current == target {
		return ErrNoChange
	}

	var prev, next int64 = 0, -1
	if target > 0 {
		prev = posValue(sibs[target-1].Pos)
	}
	if target < len(sibs) {
		next = posValue(sibs[target].Pos)
	}
	var pos int64
	switch {
	case next < 0:
		pos = prev + posGap
	case next-prev > 1:
		pos = prev + (next-prev)/2
	default:
		// No room left between the neighbours: renumber the whole level.
		ordered := append(append(append([]sibling{}, sibs[:target]...), sibling{ContentRef: item}), sibs[target:]...)
		for i, s := range ordered {
			if _, err := tx.exec(`UPDATE `+tableOf(s.Kind)+` SET position = ? WHERE id = ?`, posKey(int64(i+1)*posGap), s.ID); err != nil {
				return err
			}
		}
		if _, err := tx.exec(`UPDATE `+tableOf(item.Kind)+` SET parent_id = ? WHERE id = ?`, strOrNil(parent), item.ID); err != nil {
			return err
		}
		return refreshLevel(tx, orgID, parent)
	}
	if _, err := tx.exec(`UPDATE `+tableOf(item.Kind)+` SET parent_id = ?, position = ? WHERE id = ?`, strOrNil(parent), posKey(pos), item.ID); err != nil {
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
	Membership *Membership
	// Tree is the organization's whole collection tree by id. It is shared
	// between requests (cached until the next write): read it, never change it.
	Tree        CollectionTree
	Collections []CollectionNode // a tree given as a list (tests); Tree wins when set
	Grants      []ContentGrant
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
	accessGrantsSQL = grantSelect + ` WHERE g.organization_id = ? AND (
 (g.principal_kind = 'user' AND g.principal_id = ?) OR
 (g.principal_kind = 'team' AND g.principal_id IN (SELECT tm.team_id FROM team_members tm WHERE tm.organization_id = ? AND tm.user_id = ?)))`
	treeSQL = `SELECT id, parent_id, default_level FROM collections WHERE organization_id = ?`
)

// ContentAccess loads the AccessData of userID in orgID. It is cached per
// organization and user until the next write (see versioned): a request
// then costs one read of the change counter. The collection tree is cached
// per organization the same way (treeCache). chainFrom is a hint kept for
// the interface: the whole tree is always returned, which answers
// single-item checks too. The result is shared between requests: read it,
// never change it.
func (db *DB) ContentAccess(ctx context.Context, orgID, userID string, chainFrom *string) (AccessData, error) {
	var a AccessData
	if err := db.prepare(ctx, changeCounterSQL, accessMemberSQL, accessGrantsSQL, treeSQL); err != nil {
		return a, err
	}
	version, err := changeVersion(ctx, db.r())
	if err != nil {
		return a, err
	}
	if d, ok := db.access.get(accessKey(orgID, userID), version); ok {
		return d, nil
	}
	err = db.ReadTx(ctx, func(q queryer) error {
		// The snapshot may be newer than the counter read above.
		if version, err = changeVersion(ctx, q); err != nil {
			return err
		}
		a, err = db.accessAt(ctx, q, orgID, userID, version)
		return err
	})
	return a, err
}

// SpaceAccess reads a space (of any organization, trashed or not) and the
// AccessData of userID in the space's organization, both as of one change
// counter reading: between writes a request costs that one read. The
// results are shared between requests: read them, never change them.
func (db *DB) SpaceAccess(ctx context.Context, spaceID, userID string) (Space, AccessData, error) {
	var sp Space
	var a AccessData
	if err := db.prepare(ctx, changeCounterSQL, spaceByIDSQL, accessMemberSQL, accessGrantsSQL, treeSQL); err != nil {
		return sp, a, err
	}
	version, err := changeVersion(ctx, db.r())
	if err != nil {
		return sp, a, err
	}
	if sp, ok := db.spaces.get(spaceID, version); ok {
		if a, ok := db.access.get(accessKey(sp.OrganizationID, userID), version); ok {
			return sp, a, nil
		}
	}
	err = db.ReadTx(ctx, func(q queryer) error {
		if version, err = changeVersion(ctx, q); err != nil {
			return err
		}
		if sp, err = db.spaceAt(ctx, q, spaceID, version); err != nil {
			return err
		}
		a, err = db.accessAt(ctx, q, sp.OrganizationID, userID, version)
		return err
	})
	return sp, a, err
}

func accessKey(orgID, userID string) string { return orgID + "\x00" + userID }

// accessAt is the AccessData of userID in orgID in q's snapshot, whose
// change counter reads version: from the cache, or read and cached.
func (db *DB) accessAt(ctx context.Context, q queryer, orgID, userID string, version int64) (AccessData, error) {
	key := accessKey(orgID, userID)
	if d, ok := db.access.get(key, version); ok {
		return d, nil
	}
	var a AccessData
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
		if a.Grants, err = scanGrants(q.QueryContext(ctx, accessGrantsSQL, orgID, userID, orgID, userID)); err != nil {
			return a, err
		}
	}
	a.Memo = &Memo{}
	db.access.put(key, version, a)
	return a, nil
}

// spaceAt is the space with that id in q's snapshot, whose change counter
// reads version: from the cache, or read and cached.
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

// changeVersion reads the change counter (a prepared primary-key read) in
// q: db.r() for a snapshot of its own, or a read transaction.
func changeVersion(ctx context.Context, q queryer) (int64, error) {
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
}

type versionedEntry[T any] struct {
	version int64
	v       T
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

func (c *versioned[T]) put(key string, version int64, v T) {
	c.mu.Lock()
	if c.m == nil || len(c.m) >= c.max {
		c.m = map[string]versionedEntry[T]{}
	}
	if old, ok := c.m[key]; !ok || old.version < version {
		c.m[key] = versionedEntry[T]{version: version, v: v}
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
