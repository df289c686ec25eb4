package graph

import (
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
// once per request from storage.AccessData so that a list computes the role
// of each row without a query per row.
type contentAccess struct {
	member  bool
	orgRank int // 0: guest
	nodes   storage.CollectionTree // shared: never written
	grants  map[storage.ContentRef]int
	memo    map[string]int // effective role on collections already computed
}

func newContentAccess(d storage.AccessData) *contentAccess {
	a := &contentAccess{
		member: d.Membership != nil, nodes: d.Tree,
		grants: map[storage.ContentRef]int{}, memo: map[string]int{},
	}
	if a.member {
		a.orgRank = rank(d.Membership.Role)
	}
	if a.nodes == nil {
		a.nodes = make(storage.CollectionTree, len(d.Collections))
		for _, n := range d.Collections {
			a.nodes[n.ID] = n
		}
	}
	for _, g := range d.Grants {
		ref := storage.ContentRef{Kind: g.TargetKind, ID: g.TargetID}
		a.grants[ref] = max(a.grants[ref], roleRank[model.Role(g.Role)])
	}
	return a
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

// effectiveRole is the rank of the user's role on an item (0: none).
func (a *contentAccess) effectiveRole(it contentItem) int {
	if !a.member {
		return 0
	}
	if a.orgRank == roleRank["admin"] {
		return roleRank["admin"]
	}
	role := min(a.defaultRank(it.DefaultLevel, it.Parent), a.orgRank)
	role = max(role, a.grants[it.Ref])
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
