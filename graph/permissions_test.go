package graph

import (
	"testing"

	"docsapi/graph/model"
	"docsapi/storage"
)

// TestEffectiveRole covers how a member's role on content comes from the
// organization role, default levels inherited down the tree, grants on the
// item and above it, and space visibility.
func TestEffectiveRole(t *testing.T) {
	s := func(v string) *string { return &v }
	// The tree:
	//   A (inherit)
	//     A1 (null: no default access)
	//       A1x (inherit: from A1, so none)
	//     A2 (read)
	//   B (edit)
	tree := []storage.CollectionNode{
		{ID: "A", DefaultLevel: s("inherit")},
		{ID: "A1", ParentID: s("A")},
		{ID: "A1x", ParentID: s("A1"), DefaultLevel: s("inherit")},
		{ID: "A2", ParentID: s("A"), DefaultLevel: s("read")},
		{ID: "B", DefaultLevel: s("edit")},
	}
	grant := func(kind, id, role string) storage.ContentGrant {
		return storage.ContentGrant{TargetKind: kind, TargetID: id, PrincipalKind: "team", PrincipalID: "t", Role: role}
	}
	space := func(parent *string, level *string, visibility string) contentItem {
		return contentItem{Ref: storage.ContentRef{Kind: storage.KindSpace, ID: "S"}, Parent: parent, DefaultLevel: level, Visibility: visibility}
	}
	collection := func(id string) contentItem {
		for _, n := range tree {
			if n.ID == id {
				return contentItem{Ref: storage.ContentRef{Kind: storage.KindCollection, ID: id}, Parent: n.ParentID, DefaultLevel: n.DefaultLevel}
			}
		}
		t.Fatalf("no collection %s", id)
		return contentItem{}
	}
	inherit := s("inherit")
	cases := []struct {
		name    string
		member  bool
		orgRole *string // nil: guest
		grants  []storage.ContentGrant
		item    contentItem
		want    string // "" for no access
	}{
		{"outsider sees nothing, even public", false, nil, nil, space(nil, inherit, "public"), ""},
		{"organization admin is admin on content without default access", true, s("admin"), nil, space(s("A1"), nil, "private"), "admin"},
		{"top-level inherit is the organization role", true, s("edit"), nil, space(nil, inherit, "private"), "edit"},
		{"inherit through two levels reaches the organization role", true, s("comment"), nil, space(s("A"), inherit, "private"), "comment"},
		{"a collection level applies to what inherits from it", true, s("edit"), nil, space(s("A2"), inherit, "private"), "read"},
		{"a default never lifts above the organization role", true, s("read"), nil, space(s("B"), inherit, "private"), "read"},
		{"an explicit space level is capped too", true, s("edit"), nil, space(nil, s("admin"), "private"), "edit"},
		{"an explicit space level lowers the default", true, s("create"), nil, space(s("B"), s("comment"), "private"), "comment"},
		{"null default gives no access", true, s("edit"), nil, collection("A1"), ""},
		{"inherit from a null default gives no access", true, s("edit"), nil, collection("A1x"), ""},
		{"a grant on the collection gives access", true, s("read"), []storage.ContentGrant{grant("collection", "A1", "edit")}, collection("A1"), "edit"},
		{"grants flow down to sub-collections", true, s("read"), []storage.ContentGrant{grant("collection", "A1", "edit")}, collection("A1x"), "edit"},
		{"grants flow down to spaces", true, s("read"), []storage.ContentGrant{grant("collection", "A1", "review")}, space(s("A1x"), inherit, "private"), "review"},
		{"a grant lifts above the organization role", true, s("read"), []storage.ContentGrant{grant("collection", "B", "admin")}, space(s("B"), inherit, "private"), "admin"},
		{"the highest of default and grant wins", true, s("create"), []storage.ContentGrant{grant("space", "S", "read")}, space(s("B"), inherit, "private"), "edit"},
		{"guests get no default access", true, nil, nil, space(nil, inherit, "private"), ""},
		{"guests get what is granted", true, nil, []storage.ContentGrant{grant("space", "S", "comment")}, space(s("A"), inherit, "private"), "comment"},
		{"a private space with no default is closed", true, s("edit"), nil, space(s("A"), nil, "private"), ""},
		{"in-collection gives the parent collection's role", true, s("edit"), nil, space(s("A"), nil, "in-collection"), "edit"},
		{"in-collection follows the collection's default level", true, s("edit"), nil, space(s("A2"), nil, "in-collection"), "read"},
		{"in-collection under a closed collection stays closed", true, s("edit"), nil, space(s("A1"), nil, "in-collection"), ""},
		{"in-collection carries a guest's collection grant", true, nil, []storage.ContentGrant{grant("collection", "A2", "edit")}, space(s("A2"), nil, "in-collection"), "edit"},
		{"public content is readable by every member", true, s("edit"), nil, space(s("A1"), nil, "public"), "read"},
		{"unlisted content is readable by guests", true, nil, nil, space(nil, nil, "unlisted"), "read"},
		{"public does not lower a higher role", true, s("edit"), nil, space(nil, inherit, "public"), "edit"},
		{"share-link gives members nothing extra", true, nil, nil, space(nil, inherit, "share-link"), ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := storage.AccessData{Collections: tree, Grants: c.grants}
			if c.member {
				d.Membership = &storage.Membership{Role: c.orgRole}
			}
			got := newContentAccess(d).effectiveRole(c.item)
			want := 0
			if c.want != "" {
				want = roleRank[model.Role(c.want)]
			}
			if got != want {
				t.Errorf("role rank %d (%s), want %d (%s)", got, nameOr(got), want, c.want)
			}
		})
	}
}

func nameOr(r int) string {
	if r == 0 {
		return "none"
	}
	return string(roleName(r))
}
