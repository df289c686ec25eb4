package storage

import (
	"context"
	"testing"
)

// TestMemberSpaceCountStaysExact walks every write that can change a
// member's spaces count (grants on spaces and collections, team
// memberships, team deletion, trash, restore, duplicate, collection
// deletion, transfers, purge) and checks after each that the stored count
// equals its definition: the live spaces granted to the member, directly
// or through a team, counted from the rows.
func TestMemberSpaceCountStaysExact(t *testing.T) {
	ctx := context.Background()
	path := testTarget(t)
	db, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	b, err := db.CreateOrganizationWithAdmin(ctx, "Org", "admin@example.com", "Admin", "h0")
	if err != nil {
		t.Fatal(err)
	}
	org := b.Organization.ID
	other, err := db.CreateOrganizationWithAdmin(ctx, "Other", "other@example.com", "Other", "h9")
	if err != nil {
		t.Fatal(err)
	}
	read := "read"
	var users []string
	for i, email := range []string{"a@example.com", "b@example.com", "c@example.com"} {
		u, _, err := db.CreateUserWithToken(ctx, email, email, org, &read, true, "h"+string(rune('1'+i)))
		if err != nil {
			t.Fatal(err)
		}
		users = append(users, u.ID)
	}
	if err := db.AddMember(ctx, other.Organization.ID, users[0], &read); err != nil {
		t.Fatal(err)
	}
	team, err := db.CreateTeam(ctx, org, "T", users[:2])
	if err != nil {
		t.Fatal(err)
	}
	col := Collection{OrganizationID: org, Title: "C"}
	if err := db.CreateCollection(ctx, &col); err != nil {
		t.Fatal(err)
	}
	var spaces []string
	for i := range 4 {
		s := Space{OrganizationID: org, Title: "S", EditMode: "live", Visibility: "private"}
		if i%2 == 0 {
			s.ParentID = &col.ID
		}
		if err := db.CreateSpace(ctx, &s); err != nil {
			t.Fatal(err)
		}
		spaces = append(spaces, s.ID)
	}
	check := func(step string) {
		t.Helper()
		for _, o := range []string{org, other.Organization.ID} {
			p, err := db.ListMembers(ctx, o, MemberFilter{}, PageQuery{Limit: 100})
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range p.Items {
				var want int
				// The definition of the count, from the rows.
				err := db.r().QueryRowContext(ctx, `SELECT COUNT(DISTINCT g.target_id) FROM content_grants g JOIN spaces s ON s.id = g.target_id
 WHERE g.target_kind = 'space' AND s.deleted_at IS NULL AND g.organization_id = ? AND (
 (g.principal_kind = 'user' AND g.principal_id = ?) OR
 (g.principal_kind = 'team' AND g.principal_id IN (SELECT x.team_id FROM team_members x WHERE x.organization_id = ? AND x.user_id = ?)))`,
					o, m.User.ID, o, m.User.ID).Scan(&want)
				if err != nil {
					t.Fatal(err)
				}
				if m.Spaces != want {
					t.Fatalf("%s: member %s shows %d spaces, is granted %d", step, m.User.Email, m.Spaces, want)
				}
			}
		}
	}
	grant := func(kind, target, pkind, principal string) {
		t.Helper()
		if err := db.SetContentGrant(ctx, org, ContentGrant{TargetKind: kind, TargetID: target, PrincipalKind: pkind, PrincipalID: principal, Role: "edit"}); err != nil {
			t.Fatal(err)
		}
	}
	check("start")
	grant(KindSpace, spaces[0], "user", users[0])
	grant(KindSpace, spaces[0], "team", team)
	grant(KindSpace, spaces[1], "team", team)
	grant(KindSpace, spaces[2], "user", users[2])
	grant(KindCollection, col.ID, "user", users[2])
	check("grants to a member and to a team")
	if _, err := db.DeleteContentGrant(ctx, ContentRef{Kind: KindSpace, ID: spaces[0]}, "user", users[0]); err != nil {
		t.Fatal(err)
	}
	check("revoke a direct grant the team also gives")
	if err := db.ChangeTeamMembers(ctx, org, team, TeamMembersChange{Add: users[2:], Remove: users[:1]}); err != nil {
		t.Fatal(err)
	}
	check("team members change")
	if _, err := db.TrashSpace(ctx, spaces[1]); err != nil {
		t.Fatal(err)
	}
	check("trash")
	if err := db.RestoreSpace(ctx, spaces[1], db.Now().AddDate(0, 0, -1)); err != nil {
		t.Fatal(err)
	}
	check("restore")
	dup, err := db.DuplicateSpace(ctx, spaces[1], "copy")
	if err != nil {
		t.Fatal(err)
	}
	check("duplicate copies the grants")
	if err := db.TransferSpace(ctx, dup, other.Organization.ID); err != nil {
		t.Fatal(err)
	}
	check("transfer a space")
	if _, err := db.DeleteCollection(ctx, col.ID); err != nil {
		t.Fatal(err)
	}
	check("delete a collection: its spaces go to the trash")
	if _, err := db.PurgeSpaces(ctx, db.Now().AddDate(0, 0, 1)); err != nil {
		t.Fatal(err)
	}
	check("purge")
	col2 := Collection{OrganizationID: org, Title: "D"}
	if err := db.CreateCollection(ctx, &col2); err != nil {
		t.Fatal(err)
	}
	if err := db.MoveSpace(ctx, spaces[3], &col2.ID, Placement{}); err != nil {
		t.Fatal(err)
	}
	grant(KindSpace, spaces[3], "team", team)
	check("grant in a collection")
	if err := db.TransferCollection(ctx, col2.ID, other.Organization.ID); err != nil {
		t.Fatal(err)
	}
	check("transfer a collection")
	grant(KindSpace, spaces[1], "user", users[1])
	if _, err := db.DeleteTeam(ctx, org, team); err != nil {
		t.Fatal(err)
	}
	check("delete the team")
	if _, err := db.RemoveMember(ctx, org, users[1]); err != nil {
		t.Fatal(err)
	}
	if err := db.AddMember(ctx, org, users[1], &read); err != nil {
		t.Fatal(err)
	}
	check("leave and rejoin")
}
