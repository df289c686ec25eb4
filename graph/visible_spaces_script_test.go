package graph

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"docsapi/graph/model"
	"docsapi/storage"
	"docsapi/storage/storagetest"
)

// TestVisibleSpacesRandomScripts is a property test of a member's list of
// spaces: random scripts of writes (grant, revoke, team change,
// collection move, a collection's default level, a member's role, the
// organization's default role, space create, trash, restore, move,
// visibility) and after every write, for each reader shape (a guest with
// direct grants, who sees few spaces; a guest whose team is granted
// collections; a read member, who sees most; an editor; the admin), the
// list read as merged index ranges and the list read by the ordered scan
// must both equal, page by page and in total, the brute-force oracle: every
// space of the organization kept by effectiveRole.
func TestVisibleSpacesRandomScripts(t *testing.T) {
	partial := false
	runAccessScripts(t, func(sc *accessScript, after string) {
		t.Helper()
		defer sc.db.SetListRanges(nil)
		for _, merge := range []bool{true, false} {
			sc.db.SetListRanges(&merge)
			parents := []*string{nil, &sc.cols[0], &sc.cols[sc.rng.IntN(len(sc.cols))]}
			if checkVisibleSpaces(t, sc.db, sc.org, sc.users, sc.shapes, parents, sc.script, fmt.Sprintf("%s (merged ranges %v)", after, merge)) {
				partial = true
			}
		}
	})
	if !partial {
		t.Error("no reader saw only part of the spaces: the scripts test nothing")
	}
}

// accessScript is the state of one random script of runAccessScripts, for
// its check: the organization, its users (a guest with direct grants, a
// guest in the team, a read member, an editor, the admin, in that order),
// their organization roles (shapes; the admin's is not listed), the team,
// collections and spaces (live or not).
type accessScript struct {
	db           *storage.DB
	rng          *rand.Rand
	script       int
	org, team    string
	users        []string
	shapes       []*string
	cols, spaces []string
}

// runAccessScripts runs random scripts of writes that change what members
// see (grant, revoke, team change, collection move, a collection's default
// level, a member's role, the organization's default role, space create,
// trash, restore, move, visibility) and calls check after setup and after
// every write; a failed check stops the test.
func runAccessScripts(t *testing.T, check func(sc *accessScript, after string)) {
	t.Helper()
	ctx := context.Background()
	db, err := storage.Open(storagetest.Target(t), storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	levels := []*string{nil}
	for _, l := range model.DefaultLevels.Values() {
		levels = append(levels, new(string(l)))
	}
	roles := model.Roles.Values()
	visibilities := model.ContentVisibilities.Values()
	scripts, steps := 3, 30
	if testing.Short() {
		scripts, steps = 1, 12
	}
	for script := range scripts {
		rng := rand.New(rand.NewPCG(uint64(script), 32))
		// The member's space grants held in the cached access, none of
		// them (every role on a space looks them up), at most one.
		db.SetAccessSpaceGrants([]int{-1, 0, 1}[script%3])
		b, err := db.CreateOrganizationWithAdmin(ctx, "Org", "admin"+storage.NewID()+"@example.com", "Admin", storage.NewID())
		if err != nil {
			t.Fatal(err)
		}
		org := b.Organization.ID
		member := func(role *string) string {
			u, _, err := db.CreateUserWithToken(ctx, storage.NewID()+"@example.com", "M", org, role, true, storage.NewID())
			if err != nil {
				t.Fatal(err)
			}
			return u.ID
		}
		few, teamGuest, reader, editor := member(nil), member(nil), member(new("read")), member(new("edit"))
		users := []string{few, teamGuest, reader, editor, b.User.ID}
		shapes := []*string{nil, nil, new("read"), new("edit")} // roleOf: the last is the admin
		team, err := db.CreateTeam(ctx, org, "T", []string{teamGuest, editor})
		if err != nil {
			t.Fatal(err)
		}
		var cols, spaces []string
		parentOf := map[string]*string{} // collection -> parent
		newCollection := func() {
			c := storage.Collection{OrganizationID: org, Title: "C", DefaultLevel: levels[rng.IntN(len(levels))]}
			if len(cols) > 0 && rng.IntN(3) > 0 {
				c.ParentID = &cols[rng.IntN(len(cols))]
			}
			if err := db.CreateCollection(ctx, &c); err != nil {
				t.Fatal(err)
			}
			cols, parentOf[c.ID] = append(cols, c.ID), c.ParentID
		}
		newSpace := func() {
			s := storage.Space{OrganizationID: org, Title: "S", EditMode: "live", DefaultLevel: levels[rng.IntN(len(levels))],
				Visibility: string(visibilities[rng.IntN(len(visibilities))])}
			if rng.IntN(4) > 0 {
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
		for range 6 {
			newCollection()
		}
		for range 40 {
			newSpace()
		}
		// The few-spaces guest starts with a handful of direct grants, the
		// team with one collection.
		for range 3 {
			if err := db.SetContentGrant(ctx, org, storage.ContentGrant{TargetKind: storage.KindSpace, TargetID: spaces[rng.IntN(len(spaces))], PrincipalKind: "user", PrincipalID: few, Role: "read"}); err != nil {
				t.Fatal(err)
			}
		}
		if err := db.SetContentGrant(ctx, org, storage.ContentGrant{TargetKind: storage.KindCollection, TargetID: cols[0], PrincipalKind: "team", PrincipalID: team, Role: "comment"}); err != nil {
			t.Fatal(err)
		}
		type grantRef struct {
			target                   storage.ContentRef
			principalKind, principal string
		}
		var grants []grantRef
		under := func(c, anc string) bool { // c is anc or below it
			for p, depth := &c, 0; p != nil && depth < 100; p, depth = parentOf[*p], depth+1 {
				if *p == anc {
					return true
				}
			}
			return false
		}
		randomParent := func() *string {
			if rng.IntN(3) == 0 {
				return nil
			}
			return &cols[rng.IntN(len(cols))]
		}
		sc := &accessScript{db: db, rng: rng, script: script, org: org, team: team, users: users, shapes: shapes}
		check := func(after string) {
			t.Helper()
			sc.cols, sc.spaces = cols, spaces
			check(sc, after)
			if t.Failed() {
				t.FailNow()
			}
		}
		check("setup")
		for step := range steps {
			var what string
			var err error
			switch op := rng.IntN(13); op {
			case 0, 1, 12: // grant
				g := storage.ContentGrant{TargetKind: storage.KindSpace, TargetID: spaces[rng.IntN(len(spaces))], PrincipalKind: "user",
					PrincipalID: users[rng.IntN(len(users)-1)], Role: string(roles[rng.IntN(len(roles))])}
				if rng.IntN(3) == 0 {
					g.TargetKind, g.TargetID = storage.KindCollection, cols[rng.IntN(len(cols))]
				}
				if rng.IntN(2) == 0 {
					g.PrincipalKind, g.PrincipalID = "team", team
				}
				what, err = fmt.Sprintf("grant %s %s to %s", g.Role, g.TargetKind, g.PrincipalKind), db.SetContentGrant(ctx, org, g)
				grants = append(grants, grantRef{storage.ContentRef{Kind: g.TargetKind, ID: g.TargetID}, g.PrincipalKind, g.PrincipalID})
			case 2: // revoke
				if len(grants) == 0 {
					continue
				}
				i := rng.IntN(len(grants))
				g := grants[i]
				grants = append(grants[:i], grants[i+1:]...)
				what = "revoke a " + g.target.Kind + " grant"
				_, err = db.DeleteContentGrant(ctx, g.target, g.principalKind, g.principal)
			case 3: // team change (the team's guest stays most of the time)
				u := users[rng.IntN(len(users)-1)]
				if u == teamGuest && rng.IntN(3) > 0 {
					u = few
				}
				c := storage.TeamMembersChange{Add: []string{u}}
				if rng.IntN(2) == 0 {
					c = storage.TeamMembersChange{Remove: []string{u}}
				}
				what, err = "team members changed", db.ChangeTeamMembers(ctx, org, team, c)
			case 4: // collection move (never under itself)
				c, p := cols[rng.IntN(len(cols))], randomParent()
				if p != nil && under(*p, c) {
					continue
				}
				what, err = "collection moved", db.MoveCollection(ctx, c, p, storage.Placement{})
				if err == nil {
					parentOf[c] = p
				}
			case 5: // a collection's default level
				l := levels[rng.IntN(len(levels))]
				what, err = "collection default level", db.UpdateCollection(ctx, cols[rng.IntN(len(cols))], storage.CollectionPatch{DefaultLevel: &l})
			case 6: // a member's role, or the organization's default role
				i := 2 + rng.IntN(2)
				role := new(string(roles[rng.IntN(len(roles)-1)]))
				what, err = "member role", db.UpdateMemberRole(ctx, org, users[i], role)
				shapes[i] = role
				if rng.IntN(2) == 0 {
					what, err = "organization default role", db.UpdateOrganization(ctx, org, storage.OrganizationPatch{DefaultRole: &role})
				}
			case 7: // space create, in a collection or at the top level
				what = "space created"
				newSpace()
			case 8: // trash and maybe restore
				id := spaces[rng.IntN(len(spaces))]
				what = "space trashed"
				if _, err = db.TrashSpace(ctx, id); err == nil && rng.IntN(2) == 0 {
					check(what)
					what, err = "space restored", db.RestoreSpace(ctx, id, time.Time{})
				}
			case 9, 10: // space move
				what, err = "space moved", db.MoveSpace(ctx, spaces[rng.IntN(len(spaces))], randomParent(), storage.Placement{})
			case 11: // visibility and default level of a space
				vis, l := string(visibilities[rng.IntN(len(visibilities))]), levels[rng.IntN(len(levels))]
				p := storage.SpacePatch{DefaultLevel: &l}
				if vis != "in-collection" {
					p.Visibility = &vis
				}
				what, err = "space visibility and default level", db.UpdateSpace(ctx, spaces[rng.IntN(len(spaces))], p)
			}
			if err != nil && !errors.Is(err, storage.ErrNoChange) && !errors.Is(err, storage.ErrNotFound) {
				t.Fatalf("script %d step %d, %s: %v", script, step, what, err)
			}
			check(fmt.Sprintf("step %d, %s", step, what))
		}
	}
}
