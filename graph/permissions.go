package graph

import (
	"sort"
	"strings"
	"sync"

	"docsapi/graph/model"
	"docsapi/storage"
)

// The permission model of content (collections and spaces). A member's
// effective role on an item is the highest of:
//
//   - the default level: the item's defaultLevel, where "inherit" takes the
//     parent collection's (the member's organization role at the top level)
//     and null gives nothing; it never lifts a member above their
//     organization role, and guests get no default access;
//   - grants: roles given to the member or to a team they belong to, on the
//     item or on any collection above it;
//   - for a space with in-collection visibility, the member's role on its
//     parent collection;
//   - for a public or unlisted space, read (any member, guests included).
//
// Organization admins are admin on everything; people outside the
// organization get nothing. "No role" (rank 0) means the item is invisible:
// operations answer 404, exactly as for an unknown id. Every resolver asks
// contentAccess.effectiveRole; nothing else computes a content role.

// contentAccess is one user's view of one organization's content, built
// from storage.AccessData so that a list computes the role of each row
// without a query per row. Its base (role, tree, grants) is shared by the
// requests that see the same cached AccessData; memo is per request.
type contentAccess struct {
	*accessBase
	memo   map[string]int // effective role on collections already computed
	shared *storage.Memo  // values derived once per cached AccessData
	// spaceGrants holds, when the base does not (partialGrants), the rank
	// of the grants on each space this request asked about (primeSpaces):
	// looked up by lookupGrants, one statement per page.
	spaceGrants  map[string]int
	lookupGrants func(ids []string) ([]storage.ContentGrant, error)
	grantsErr    error // the first failed lookup (its spaces count as ungranted)
}

type accessBase struct {
	member  bool
	orgRank int                    // 0: guest
	nodes   storage.CollectionTree // shared: never written
	grants  map[storage.ContentRef]int
	// grantee is the member and their teams, whose grants on spaces the
	// visible-space selection looks up in SQL.
	grantee storage.SpaceGrantee
	// installation is set for an installation token: its scopes and its
	// installation's space selection decide instead of roles and grants.
	installation *installationReach
	// partialGrants: grants holds the grants on collections only, the
	// member having more on spaces than a cached access holds
	// (storage.AccessData.SpaceGrantsPartial); known keeps the ranks
	// looked up since, for every request sharing this base (bounded).
	partialGrants bool
	known         boundedRanks
}

// boundedRanks is a concurrent map of space ranks that empties when it
// holds knownRanksMax of them.
type boundedRanks struct {
	mu sync.Mutex
	m  map[string]int
}

const knownRanksMax = 4096

func (b *boundedRanks) get(id string) (int, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	r, ok := b.m[id]
	return r, ok
}

func (b *boundedRanks) put(ranks map[string]int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.m == nil || len(b.m)+len(ranks) > knownRanksMax {
		b.m = map[string]int{}
	}
	for id, r := range ranks {
		if len(b.m) < knownRanksMax {
			b.m[id] = r
		}
	}
}

func newContentAccess(d storage.AccessData) *contentAccess {
	base := d.Memo.Get("base", func() any {
		b := &accessBase{member: d.Membership != nil, nodes: d.Tree, grants: map[storage.ContentRef]int{},
			grantee: storage.SpaceGrantee{UserID: d.UserID, TeamIDs: d.Teams}, partialGrants: d.SpaceGrantsPartial}
		if b.member {
			b.orgRank = rank(d.Membership.Role)
		}
		if b.nodes == nil {
			b.nodes = make(storage.CollectionTree, len(d.Collections))
			for _, n := range d.Collections {
				b.nodes[n.ID] = n
			}
		}
		for _, g := range d.Grants {
			ref := storage.ContentRef{Kind: g.TargetKind, ID: g.TargetID}
			b.grants[ref] = max(b.grants[ref], roleRank[model.Role(g.Role)])
		}
		return b
	}).(*accessBase)
	return &contentAccess{accessBase: base, memo: map[string]int{}, shared: d.Memo, spaceGrants: map[string]int{}}
}

// contentItem is a collection or a space as the role computation sees it.
type contentItem struct {
	Ref          storage.ContentRef
	Parent       *string
	DefaultLevel *string
	Visibility   string // spaces only
}

func spaceItem(s storage.Space) contentItem {
	return contentItem{Ref: storage.ContentRef{Kind: storage.KindSpace, ID: s.ID}, Parent: s.ParentID, DefaultLevel: s.DefaultLevel, Visibility: s.Visibility}
}

func collectionItem(c storage.Collection) contentItem {
	return contentItem{Ref: storage.ContentRef{Kind: storage.KindCollection, ID: c.ID}, Parent: c.ParentID, DefaultLevel: c.DefaultLevel}
}

// maxDepth bounds walks up the tree (moves never create cycles; this only
// keeps a corrupted tree from looping).
const maxDepth = 1000

// effectiveRole is the rank of the user's role on an item (0: none). A
// grant on the item itself always makes it visible, and otherwise the role
// depends only on the item's parent, default level and visibility:
// visibleSpaces relies on both (TestVisibleSpacesMatchEffectiveRole).
func (a *contentAccess) effectiveRole(it contentItem) int {
	if !a.member {
		return 0
	}
	if a.installation != nil {
		return a.installation.spaceRole(it)
	}
	if a.orgRank == roleRank["admin"] {
		return roleRank["admin"]
	}
	role := min(a.defaultRank(it.DefaultLevel, it.Parent), a.orgRank)
	if a.partialGrants && it.Ref.Kind == storage.KindSpace {
		role = max(role, a.spaceGrantRank(it.Ref.ID))
	} else {
		role = max(role, a.grants[it.Ref])
	}
	for p, depth := it.Parent, 0; p != nil && depth < maxDepth; p, depth = a.nodes[*p].ParentID, depth+1 {
		role = max(role, a.grants[storage.ContentRef{Kind: storage.KindCollection, ID: *p}])
	}
	if it.Ref.Kind == storage.KindSpace {
		switch it.Visibility {
		case "in-collection":
			if it.Parent != nil {
				role = max(role, a.collectionRole(*it.Parent))
			}
		case "public", "unlisted":
			role = max(role, roleRank["read"])
		}
	}
	return role
}

// spaceGrantRank is the highest grant on space id to the member or their
// teams when the base does not hold them: from this request's lookups,
// the shared ones, or one lookup of its own (a space no list or prime
// brought; the visibility test of an item without an id asks nothing).
func (a *contentAccess) spaceGrantRank(id string) int {
	if id == "" {
		return 0
	}
	if r, ok := a.spaceGrants[id]; ok {
		return r
	}
	if r, ok := a.known.get(id); ok {
		return r
	}
	_ = a.primeGrants(id)
	return a.spaceGrants[id]
}

// primeGrants looks up, in one statement per storage.MaxTargetLookup ids,
// the grants on the spaces of ids this request does not know yet (only
// for a member whose base holds no space grants).
func (a *contentAccess) primeGrants(ids ...string) error {
	if !a.partialGrants || a.installation != nil || a.lookupGrants == nil {
		return nil
	}
	var ask []string
	seen := map[string]bool{}
	for _, id := range ids {
		if _, ok := a.spaceGrants[id]; ok || id == "" || seen[id] {
			continue
		}
		seen[id] = true
		if r, ok := a.known.get(id); ok {
			a.spaceGrants[id] = r
			continue
		}
		ask = append(ask, id)
	}
	for len(ask) > 0 {
		n := min(len(ask), storage.MaxTargetLookup)
		gs, err := a.lookupGrants(ask[:n])
		if err != nil {
			if a.grantsErr == nil {
				a.grantsErr = err
			}
			return err
		}
		got := make(map[string]int, n)
		for _, id := range ask[:n] {
			got[id] = 0
		}
		for _, g := range gs {
			got[g.TargetID] = max(got[g.TargetID], roleRank[model.Role(g.Role)])
		}
		for id, r := range got {
			a.spaceGrants[id] = r
		}
		a.known.put(got)
		ask = ask[n:]
	}
	return nil
}

// defaultRank resolves a default level through "inherit" up the tree.
func (a *contentAccess) defaultRank(level, parent *string) int {
	for depth := 0; depth < maxDepth; depth++ {
		switch {
		case level == nil:
			return 0
		case *level != "inherit":
			return roleRank[model.Role(*level)]
		case parent == nil:
			return a.orgRank
		}
		n, ok := a.nodes[*parent]
		if !ok {
			return 0
		}
		level, parent = n.DefaultLevel, n.ParentID
	}
	return 0
}

// collectionRole is effectiveRole of a collection known to the access data.
func (a *contentAccess) collectionRole(id string) int {
	if r, ok := a.memo[id]; ok {
		return r
	}
	n, ok := a.nodes[id]
	if !ok {
		return 0
	}
	r := a.effectiveRole(contentItem{Ref: storage.ContentRef{Kind: storage.KindCollection, ID: id}, Parent: n.ParentID, DefaultLevel: n.DefaultLevel})
	a.memo[id] = r
	return r
}

func (a *contentAccess) spaceRole(s storage.Space) int { return a.effectiveRole(spaceItem(s)) }

// checkedSpaceRole is spaceRole with the failure of its grant lookup
// (when a's base does not hold the member's space grants) returned.
func (a *contentAccess) checkedSpaceRole(s storage.Space) (int, error) {
	if err := a.primeSpaces(s.ID); err != nil {
		return 0, err
	}
	return a.spaceRole(s), nil
}

// visibleSpaces is the set of the organization's spaces the user can see,
// for storage to select in SQL; nil when they see every space. It is not
// a second statement of the rules: it asks effectiveRole about every kind
// of space (each parent, default level and visibility, with no grant of
// its own) and adds the spaces granted to the user. Built once per cached
// AccessData.
func (a *contentAccess) visibleSpaces() *storage.SpaceVisibility {
	v, _ := a.shared.Get("visibleSpaces", func() any { return a.buildVisibleSpaces() }).(*storage.SpaceVisibility)
	return v
}

func (a *contentAccess) buildVisibleSpaces() *storage.SpaceVisibility {
	if in := a.installation; in != nil {
		// An installation token sees what its installation covers: every
		// live space of the organization, or its space targets (selected in
		// SQL by primary key, or read in list order: never loaded whole).
		if in.allSpaces {
			return nil
		}
		return &storage.SpaceVisibility{Installation: in.id}
	}
	if !a.member {
		return &storage.SpaceVisibility{}
	}
	levels := []*string{nil}
	for _, l := range model.DefaultLevels.Values() {
		levels = append(levels, new(string(l)))
	}
	visibilities := model.ContentVisibilities.Values()
	// kindsAt lists, per visibility, the default levels a space directly
	// under parent is visible with.
	// partout: the visibilities seen whatever the parent and level.
	partout := map[string]bool{}
	for _, vis := range visibilities {
		partout[string(vis)] = true
	}
	kindsAt := func(parent *string) (kinds []storage.SpaceKinds, all bool) {
		all = true
		for _, vis := range visibilities {
			var seen []*string
			for _, l := range levels {
				it := contentItem{Ref: storage.ContentRef{Kind: storage.KindSpace}, Parent: parent, DefaultLevel: l, Visibility: string(vis)}
				if a.effectiveRole(it) > 0 {
					seen = append(seen, l)
				}
			}
			all = all && len(seen) == len(levels)
			partout[string(vis)] = partout[string(vis)] && len(seen) == len(levels)
			if len(seen) == 0 {
				continue
			}
			k := storage.SpaceKinds{Visibilities: []string{string(vis)}, AnyLevel: len(seen) == len(levels), Levels: seen}
			if k.AnyLevel {
				k.Levels = nil
			}
			// Visibilities with the same levels share one condition.
			merged := false
			for i := range kinds {
				if kinds[i].AnyLevel == k.AnyLevel && sameLevels(kinds[i].Levels, k.Levels) {
					kinds[i].Visibilities = append(kinds[i].Visibilities, string(vis))
					merged = true
					break
				}
			}
			if !merged {
				kinds = append(kinds, k)
			}
		}
		return kinds, all
	}
	v := &storage.SpaceVisibility{}
	everything := true
	classes := map[string]int{} // the kinds, as a key, -> index in v.Classes
	add := func(parent *string) {
		kinds, all := kindsAt(parent)
		everything = everything && all
		if len(kinds) == 0 {
			return
		}
		if all {
			kinds = nil
		}
		key := kindsKey(kinds)
		i, ok := classes[key]
		if !ok {
			i = len(v.Classes)
			classes[key] = i
			v.Classes = append(v.Classes, storage.SpaceClass{Kinds: kinds})
		}
		if parent == nil {
			v.Classes[i].TopLevel = true
		} else {
			v.Classes[i].Parents = append(v.Classes[i].Parents, *parent)
		}
	}
	add(nil)
	for id := range a.nodes {
		add(&id)
	}
	if everything {
		return nil
	}
	for _, vis := range visibilities {
		if partout[string(vis)] {
			v.Everywhere = append(v.Everywhere, string(vis))
		}
	}
	// The spaces granted to the member or their teams: looked up in SQL by
	// index, so the selection's SQL does not grow with the grants (every
	// grant gives at least read, so any grant makes its space visible).
	v.Grantee = &a.grantee
	// Stable SQL text for the same view (prepared statements, count cache).
	for i := range v.Classes {
		sort.Strings(v.Classes[i].Parents)
	}
	sort.Slice(v.Classes, func(i, j int) bool { return kindsKey(v.Classes[i].Kinds) < kindsKey(v.Classes[j].Kinds) })
	return v
}

// visibleCollections is the set of the organization's collections the user
// can see, for storage to select in SQL; nil when they see them all. Like
// visibleSpaces it asks effectiveRole about every kind of collection (each
// parent and default level, with no grant of its own) and adds the
// collections granted to the user. Built once per cached AccessData.
func (a *contentAccess) visibleCollections() *storage.CollectionVisibility {
	v, _ := a.shared.Get("visibleCollections", func() any { return a.buildVisibleCollections() }).(*storage.CollectionVisibility)
	return v
}

func (a *contentAccess) buildVisibleCollections() *storage.CollectionVisibility {
	if !a.member || a.installation != nil {
		return &storage.CollectionVisibility{} // none (an installation reaches spaces only)
	}
	levels := []*string{nil}
	for _, l := range model.DefaultLevels.Values() {
		levels = append(levels, new(string(l)))
	}
	v := &storage.CollectionVisibility{}
	everything := true
	classes := map[string]int{} // the levels seen, as a key -> index in v.Classes
	add := func(parent *string) {
		var seen []*string
		for _, l := range levels {
			if a.effectiveRole(contentItem{Ref: storage.ContentRef{Kind: storage.KindCollection}, Parent: parent, DefaultLevel: l}) > 0 {
				seen = append(seen, l)
			}
		}
		everything = everything && len(seen) == len(levels)
		if len(seen) == 0 {
			return
		}
		cl := storage.CollectionClass{AnyLevel: len(seen) == len(levels)}
		if !cl.AnyLevel {
			cl.Levels = seen
		}
		key := kindsKey([]storage.SpaceKinds{{AnyLevel: cl.AnyLevel, Levels: cl.Levels}})
		i, ok := classes[key]
		if !ok {
			i = len(v.Classes)
			classes[key] = i
			v.Classes = append(v.Classes, cl)
		}
		if parent == nil {
			v.Classes[i].TopLevel = true
		} else {
			v.Classes[i].Parents = append(v.Classes[i].Parents, *parent)
		}
	}
	add(nil)
	for id := range a.nodes {
		add(&id)
	}
	if everything {
		return nil
	}
	v.Grantee = &a.grantee
	for i := range v.Classes {
		sort.Strings(v.Classes[i].Parents)
	}
	sort.Slice(v.Classes, func(i, j int) bool {
		return kindsKey([]storage.SpaceKinds{{AnyLevel: v.Classes[i].AnyLevel, Levels: v.Classes[i].Levels}}) <
			kindsKey([]storage.SpaceKinds{{AnyLevel: v.Classes[j].AnyLevel, Levels: v.Classes[j].Levels}})
	})
	return v
}

func sameLevels(a, b []*string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if (a[i] == nil) != (b[i] == nil) || a[i] != nil && *a[i] != *b[i] {
			return false
		}
	}
	return true
}

func kindsKey(kinds []storage.SpaceKinds) string {
	var b strings.Builder
	for _, k := range kinds {
		b.WriteString(strings.Join(k.Visibilities, ","))
		if k.AnyLevel {
			b.WriteString(":*")
		}
		for _, l := range k.Levels {
			b.WriteString(":")
			if l == nil {
				b.WriteString("-")
			} else {
				b.WriteString(*l)
			}
		}
		b.WriteString(";")
	}
	return b.String()
}

func (a *contentAccess) canCreateAt(parent *string) bool {
	if parent == nil {
		return a.member && a.orgRank >= roleRank["create"]
	}
	return a.collectionRole(*parent) >= roleRank["create"]
}

// roleName is the Role of a rank (rank > 0).
func roleName(r int) model.Role {
	for name, v := range roleRank {
		if v == r {
			return name
		}
	}
	return "read"
}

func spacePermissions(r int, locked bool) model.SpacePermissions {
	can := func(min model.Role) bool { return r >= roleRank[min] }
	return model.SpacePermissions{
		View: can("read"), Access: can("read"), Admin: can("admin"), ViewInviteLinks: can("admin"),
		Edit: can("edit") && !locked, TriggerGitSync: can("edit") && !locked, Comment: can("comment"),
		Merge: can("review") && !locked, Review: can("review"),
	}
}

func collectionPermissions(r int) model.CollectionPermissions {
	can := func(min model.Role) bool { return r >= roleRank[min] }
	return model.CollectionPermissions{View: can("read"), Admin: can("admin"), ViewInviteLinks: can("admin"), Create: can("create")}
}
