package graph

import (
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"docsapi/graph/model"
	"docsapi/storage"
	"docsapi/storage/storagetest"
)

// TestVisibleSpacesMatchEffectiveRole checks that the SQL selection of
// visibleSpaces lists exactly the spaces effectiveRole lets a member see, in
// the same order and with the same total (from the stored class counts),
// over random trees, default levels, visibilities and grants, for every
// organization role and a guest, and again after every kind of write:
// grants, team changes, moves, visibility and default levels, trash and
// restore, duplicates, role changes, transfers, collection deletion.
func TestVisibleSpacesMatchEffectiveRole(t *testing.T) {
	ctx := context.Background()
	db, err := storage.Open(storagetest.Target(t), storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rng := rand.New(rand.NewPCG(7, 11))
	levels := []*string{nil}
	for _, l := range model.DefaultLevels.Values() {
		levels = append(levels, new(string(l)))
	}
	roles := []*string{nil}
	for _, r := range model.Roles.Values() {
		roles = append(roles, new(string(r)))
	}
	visibilities := model.ContentVisibilities.Values()
	partial := false // some member sees some but not all spaces (the test is not vacuous)

	for round := range 4 {
		// Odd rounds: no space grant held in the cached access (every
		// role on a space looks them up, a list's page in one statement).
		db.SetAccessSpaceGrants(-(round % 2))
		b, err := db.CreateOrganizationWithAdmin(ctx, "Org", "admin"+storage.NewID()+"@example.com", "Admin", storage.NewID())
		if err != nil {
			t.Fatal(err)
		}
		org := b.Organization.ID
		var members []string
		for _, role := range roles {
			u, _, err := db.CreateUserWithToken(ctx, storage.NewID()+"@example.com", "M", org, role, true, storage.NewID())
			if err != nil {
				t.Fatal(err)
			}
			members = append(members, u.ID)
		}
		team, err := db.CreateTeam(ctx, org, "T", members[:len(members)/2+round%2])
		if err != nil {
			t.Fatal(err)
		}
		var cols []string
		for range 8 + round*4 {
			c := storage.Collection{OrganizationID: org, Title: "C", DefaultLevel: levels[rng.IntN(len(levels))]}
			if len(cols) > 0 && rng.IntN(4) > 0 {
				c.ParentID = &cols[rng.IntN(len(cols))]
			}
			if err := db.CreateCollection(ctx, &c); err != nil {
				t.Fatal(err)
			}
			cols = append(cols, c.ID)
		}
		var spaces []string
		for range 120 {
			s := storage.Space{OrganizationID: org, Title: "S", EditMode: "live", DefaultLevel: levels[rng.IntN(len(levels))],
				Visibility: string(visibilities[rng.IntN(len(visibilities))])}
			if rng.IntN(5) > 0 {
				s.ParentID = &cols[rng.IntN(len(cols))]
			}
			if s.Visibility == "in-collection" && s.ParentID == nil {
				s.Visibility = "private"
			}
			if err := db.CreateSpace(ctx, &s); err != nil {
				t.Fatal(err)
			}
			spaces = append(spaces, s.ID)
		}
		for range 12 {
			g := storage.ContentGrant{TargetKind: storage.KindSpace, TargetID: spaces[rng.IntN(len(spaces))], PrincipalKind: "user",
				PrincipalID: members[rng.IntN(len(members))], Role: string(model.Roles.Values()[rng.IntN(6)])}
			if rng.IntN(2) == 0 {
				g.TargetKind, g.TargetID = storage.KindCollection, cols[rng.IntN(len(cols))]
			}
			if rng.IntN(3) == 0 {
				g.PrincipalKind, g.PrincipalID = "team", team
			}
			if err := db.SetContentGrant(ctx, org, g); err != nil {
				t.Fatal(err)
			}
		}
		for _, trash := range spaces[:5] {
			if _, err := db.TrashSpace(ctx, trash); err != nil {
				t.Fatal(err)
			}
		}

		other, err := db.CreateOrganizationWithAdmin(ctx, "Other", "other"+storage.NewID()+"@example.com", "Admin", storage.NewID())
		if err != nil {
			t.Fatal(err)
		}
		users := append(members, b.User.ID)
		check := func(after string) {
			t.Helper()
			if checkVisibleSpaces(t, db, org, users, roles, []*string{nil, &cols[0], &cols[len(cols)-1]}, round, after) {
				partial = true
			}
		}
		check("setup")
		// Every kind of write that changes what a member sees, or which
		// class a space counts in; the selection and its total must follow
		// each one (cached access data included).
		pick := func() string { return spaces[5+rng.IntN(len(spaces)-5)] }
		must := func(what string, err error) {
			t.Helper()
			if err != nil && !errors.Is(err, storage.ErrNoChange) {
				t.Fatalf("%s: %v", what, err)
			}
		}
		direct := pick()
		must("grant", db.SetContentGrant(ctx, org, storage.ContentGrant{TargetKind: storage.KindSpace, TargetID: direct, PrincipalKind: "user", PrincipalID: members[1], Role: "read"}))
		check("a space grant to a member")
		must("grant", db.SetContentGrant(ctx, org, storage.ContentGrant{TargetKind: storage.KindCollection, TargetID: cols[1], PrincipalKind: "team", PrincipalID: team, Role: "edit"}))
		check("a collection grant to a team")
		granted := pick()
		must("grant", db.SetContentGrant(ctx, org, storage.ContentGrant{TargetKind: storage.KindSpace, TargetID: granted, PrincipalKind: "team", PrincipalID: team, Role: "comment"}))
		check("a space grant to a team")
		// An invitation: several grants in one transaction.
		must("invite", db.SetContentGrants(ctx, org, []storage.ContentGrant{
			{TargetKind: storage.KindSpace, TargetID: pick(), PrincipalKind: "user", PrincipalID: members[2], Role: "edit"},
			{TargetKind: storage.KindSpace, TargetID: pick(), PrincipalKind: "team", PrincipalID: team, Role: "read"},
			{TargetKind: storage.KindCollection, TargetID: cols[len(cols)-1], PrincipalKind: "user", PrincipalID: members[2], Role: "comment"},
		}))
		check("an invitation of a member and a team")
		must("team", db.ChangeTeamMembers(ctx, org, team, storage.TeamMembersChange{Add: []string{members[len(members)-1]}, Remove: []string{members[0]}}))
		check("team members added and removed")
		for _, c := range []*string{&cols[len(cols)-1], nil, &cols[1]} {
			must("move", db.MoveSpace(ctx, granted, c, storage.Placement{}))
			must("move", db.MoveSpace(ctx, direct, c, storage.Placement{}))
			check("granted spaces moved")
		}
		_, err = db.DeleteContentGrant(ctx, storage.ContentRef{Kind: storage.KindSpace, ID: granted}, "team", team)
		must("revoke", err)
		check("a grant removed")
		must("move", db.MoveSpace(ctx, pick(), nil, storage.Placement{}))
		check("a space moved to the top level")
		vis, lvl := "public", new("read")
		must("update", db.UpdateSpace(ctx, direct, storage.SpacePatch{Visibility: &vis}))
		must("update", db.UpdateSpace(ctx, pick(), storage.SpacePatch{Visibility: &vis}))
		must("update", db.UpdateSpace(ctx, pick(), storage.SpacePatch{DefaultLevel: &lvl}))
		var none *string
		must("update", db.UpdateSpace(ctx, spaces[len(spaces)-1], storage.SpacePatch{DefaultLevel: &none}))
		check("visibility and default levels changed")
		must("collection", db.UpdateCollection(ctx, cols[0], storage.CollectionPatch{DefaultLevel: &none}))
		check("a collection's default level removed")
		trashed := pick()
		_, err = db.TrashSpace(ctx, trashed)
		must("trash", err)
		check("a space trashed")
		must("restore", db.RestoreSpace(ctx, trashed, time.Time{}))
		check("a space restored")
		_, err = db.DuplicateSpace(ctx, spaces[6], "copy")
		must("duplicate", err)
		check("a space duplicated (with its grants)")
		must("role", db.UpdateMemberRole(ctx, org, members[2], new("edit")))
		check("a member's role changed")
		must("transfer", db.TransferSpace(ctx, pick(), other.Organization.ID))
		check("a space transferred to another organization")
		must("transfer", db.TransferCollection(ctx, cols[len(cols)-2], other.Organization.ID))
		check("a collection transferred to another organization")
		_, err = db.DeleteCollection(ctx, cols[2])
		must("delete collection", err)
		check("a collection deleted (its spaces trashed)")
	}
	if !partial {
		t.Error("no member saw only part of the spaces: the random content tests nothing")
	}
}

func roleOf(i int, roles []*string) string {
	if i >= len(roles) {
		return "admin (creator)"
	}
	if roles[i] == nil {
		return "guest"
	}
	return *roles[i]
}

// checkVisibleSpaces compares, for each user and parent, the SQL selection
// of visibleSpaces (paged by 7, with its total) with the spaces
// effectiveRole lets the user see; it reports whether some user saw part
// of the top level only.
func checkVisibleSpaces(t *testing.T, db *storage.DB, org string, users []string, roles []*string, parents []*string, round int, after string) (partial bool) {
	t.Helper()
	ctx := context.Background()
	all, err := db.ListSpaces(ctx, storage.SpaceFilter{OrganizationID: org}, nil, storage.PageQuery{Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	for i, user := range users {
		d, err := db.ContentAccess(ctx, org, user, nil)
		if err != nil {
			t.Fatal(err)
		}
		a := memberAccess(ctx, db, org, d)
		if err := a.primeSpaces(idsOf(all.Items, func(s storage.Space) string { return s.ID })...); err != nil {
			t.Fatal(err)
		}
		for _, parent := range parents {
			f := storage.SpaceFilter{OrganizationID: org, ParentID: parent}
			want, err := db.ListSpaces(ctx, f, func(s storage.Space) bool { return a.spaceRole(s) > 0 }, storage.PageQuery{Limit: 1000})
			if err != nil {
				t.Fatal(err)
			}
			f.Visible = a.visibleSpaces()
			var got []string
			var pq storage.PageQuery
			pq.Limit = 7
			count := -1
			for {
				p, err := db.ListSpaces(ctx, f, nil, pq)
				if err != nil {
					t.Fatal(err)
				}
				if count >= 0 && p.Count != count {
					t.Fatalf("count moved between pages: %d then %d", count, p.Count)
				}
				count = p.Count
				for _, s := range p.Items {
					got = append(got, s.ID)
				}
				if p.Next == nil {
					break
				}
				pq.After = p.Next
			}
			var ids []string
			for _, s := range want.Items {
				ids = append(ids, s.ID)
			}
			if parent == nil && count > 0 && count < all.Count {
				partial = true
			}
			if !slices.Equal(got, ids) || count != want.Count || len(ids) != want.Count {
				t.Errorf("round %d after %s, member %d (role %v), parent %v: SQL selection gives %d spaces (count %d), effectiveRole %d (count %d)",
					round, after, i, roleOf(i, roles), parent != nil, len(got), count, len(ids), want.Count)
			}
		}
	}
	return partial
}
