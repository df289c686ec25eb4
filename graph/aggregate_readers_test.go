package graph

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"

	"docsapi/graph/model"
	"docsapi/storage"
	"docsapi/storage/storagetest"
)

// TestAggregateMatchesEffectiveRole holds the SQL of the aggregate
// permissions list (readerQuery, storage.ListContentReaders) to
// effectiveRole: over random trees, default levels, visibilities and
// grants to members and teams, every space and collection lists exactly
// the members effectiveRole gives a role, with that role, paged by 3 with
// a steady total and no repeats; and each role filter lists its share.
func TestAggregateMatchesEffectiveRole(t *testing.T) {
	ctx := context.Background()
	db, err := storage.Open(storagetest.Target(t), storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rng := rand.New(rand.NewPCG(3, 29))
	levels := []*string{nil}
	for _, l := range model.DefaultLevels.Values() {
		levels = append(levels, new(string(l)))
	}
	roles := []*string{nil}
	for _, r := range model.Roles.Values() {
		roles = append(roles, new(string(r)), new(string(r)))
	}
	visibilities := model.ContentVisibilities.Values()
	b, err := db.CreateOrganizationWithAdmin(ctx, "Org", "admin@example.com", "Admin", storage.NewID())
	if err != nil {
		t.Fatal(err)
	}
	org := b.Organization.ID
	users := []string{b.User.ID}
	for _, role := range roles {
		u, _, err := db.CreateUserWithToken(ctx, storage.NewID()+"@example.com", "M", org, role, true, storage.NewID())
		if err != nil {
			t.Fatal(err)
		}
		users = append(users, u.ID)
	}
	var teams []string
	for i := range 3 {
		var in []string
		for _, u := range users[1:] {
			if rng.IntN(3) == 0 || i == 0 && u == users[1] {
				in = append(in, u)
			}
		}
		team, err := db.CreateTeam(ctx, org, "T", in)
		if err != nil {
			t.Fatal(err)
		}
		teams = append(teams, team)
	}
	var cols []string
	var items []contentItem
	for range 10 {
		c := storage.Collection{OrganizationID: org, Title: "C", DefaultLevel: levels[rng.IntN(len(levels))]}
		if len(cols) > 0 && rng.IntN(4) > 0 {
			c.ParentID = &cols[rng.IntN(len(cols))]
		}
		if err := db.CreateCollection(ctx, &c); err != nil {
			t.Fatal(err)
		}
		cols = append(cols, c.ID)
		items = append(items, collectionItem(c))
	}
	for range 40 {
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
		items = append(items, spaceItem(s))
	}
	for range 40 {
		it := items[rng.IntN(len(items))]
		g := storage.ContentGrant{TargetKind: it.Ref.Kind, TargetID: it.Ref.ID, PrincipalKind: "user",
			PrincipalID: users[1+rng.IntN(len(users)-1)], Role: string(model.Roles.Values()[rng.IntN(6)])}
		if rng.IntN(2) == 0 {
			g.PrincipalKind, g.PrincipalID = "team", teams[rng.IntN(len(teams))]
		}
		if err := db.SetContentGrant(ctx, org, g); err != nil {
			t.Fatal(err)
		}
	}
	access := map[string]*contentAccess{}
	for _, u := range users {
		d, err := db.ContentAccess(ctx, org, u, nil)
		if err != nil {
			t.Fatal(err)
		}
		access[u] = memberAccess(ctx, db, org, d)
	}
	tree := access[users[0]].nodes
	partial, grantedOnly := false, false
	for _, it := range items {
		var want []string
		wantRank := map[string]int{}
		for _, u := range users {
			if r := access[u].effectiveRole(it); r > 0 {
				want = append(want, u)
				wantRank[u] = r
			}
		}
		q := readerQuery(it, tree)
		var got []string
		count := -1
		pq := storage.PageQuery{Limit: 3}
		for {
			p, err := db.ListContentReaders(ctx, org, q, pq)
			if err != nil {
				t.Fatal(err)
			}
			if count >= 0 && p.Count != count {
				t.Fatalf("count moved between pages: %d then %d", count, p.Count)
			}
			count = p.Count
			for _, m := range p.Items {
				got = append(got, m.Member.User.ID)
				if m.Rank != wantRank[m.Member.User.ID] {
					t.Errorf("%s %s: member %s has rank %d in SQL, effectiveRole %d", it.Ref.Kind, it.Ref.ID, m.Member.User.ID, m.Rank, wantRank[m.Member.User.ID])
				}
			}
			if p.Next == nil {
				break
			}
			pq.After = p.Next
		}
		if len(got) != len(want) || count != len(want) {
			t.Errorf("%s %s (visibility %q): SQL lists %d (count %d), effectiveRole %d", it.Ref.Kind, it.Ref.ID, it.Visibility, len(got), count, len(want))
			continue
		}
		// Join order ties (members joined in the same millisecond) break by
		// user id: compare the sets; pages never repeat a member.
		if slices.Sort(got); !slices.Equal(slices.Compact(slices.Clone(got)), got) {
			t.Errorf("%s %s: a member listed twice", it.Ref.Kind, it.Ref.ID)
		}
		if slices.Sort(want); !slices.Equal(got, want) {
			t.Errorf("%s %s: SQL lists %v, effectiveRole %v", it.Ref.Kind, it.Ref.ID, got, want)
		}
		if len(want) > 0 && len(want) < len(users) {
			partial = true
		}
		for _, u := range want {
			if q.Default < roleRank["admin"] && wantRank[u] > min(q.Default, access[u].orgRank) && wantRank[u] > q.Floor && access[u].orgRank < roleRank["admin"] {
				grantedOnly = true // a grant decided this one
			}
		}
		for _, role := range model.Roles.Values() {
			q.Only = roleRank[role]
			p, err := db.ListContentReaders(ctx, org, q, storage.PageQuery{Limit: 1000})
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			for _, u := range want {
				if wantRank[u] == q.Only {
					n++
				}
			}
			if p.Count != n || len(p.Items) != n {
				t.Errorf("%s %s, role %s: SQL %d, effectiveRole %d", it.Ref.Kind, it.Ref.ID, role, p.Count, n)
			}
		}
	}
	if !partial || !grantedOnly {
		t.Errorf("the random content tests too little: some item reached by part of the members %v, some role decided by a grant %v", partial, grantedOnly)
	}
}
