package graph

import (
	"context"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"

	"docsapi/graph/model"
	"docsapi/storage"
)

// TestVisibleSpacesMatchEffectiveRole checks that the SQL selection of
// visibleSpaces lists exactly the spaces effectiveRole lets a member see, in
// the same order and with the same total, over random trees, default levels,
// visibilities and grants, for every organization role and a guest.
func TestVisibleSpacesMatchEffectiveRole(t *testing.T) {
	ctx := context.Background()
	db, err := storage.Open(filepath.Join(t.TempDir(), "v.db"), storage.Options{})
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

		for i, user := range append(members, b.User.ID) {
			d, err := db.ContentAccess(ctx, org, user, nil)
			if err != nil {
				t.Fatal(err)
			}
			a := newContentAccess(d)
			for _, parent := range []*string{nil, &cols[0], &cols[len(cols)-1]} {
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
				ids := func(p storage.Page[storage.Space]) []string {
					var out []string
					for _, s := range p.Items {
						out = append(out, s.ID)
					}
					return out
				}
				if parent == nil && count > 0 && count < len(spaces)-5 {
					partial = true
				}
				if !slices.Equal(got, ids(want)) || count != want.Count {
					t.Errorf("round %d, member %d (role %v), parent %v: SQL selection gives %d spaces (count %d), effectiveRole %d (count %d)",
						round, i, roleOf(i, roles), parent != nil, len(got), count, len(want.Items), want.Count)
				}
			}
		}
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
