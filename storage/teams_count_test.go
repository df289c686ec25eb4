package storage_test

import (
	"context"
	"testing"

	"docsapi/storage"
)

// TestMemberTeamCountStaysExact walks every team write and checks after each
// that the stored per-member team count equals the member's live team list.
func TestMemberTeamCountStaysExact(t *testing.T) {
	ctx := context.Background()
	db, b := orgWithAdmin(t)
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
	// b is also in another organization, with a team there: counts are per organization.
	if err := db.AddMember(ctx, other.Organization.ID, users[1], &read); err != nil {
		t.Fatal(err)
	}
	if _, err := db.CreateTeam(ctx, other.Organization.ID, "Elsewhere", []string{users[1]}); err != nil {
		t.Fatal(err)
	}

	check := func(step string) {
		t.Helper()
		p, err := db.ListMembers(ctx, org, storage.MemberFilter{}, storage.PageQuery{Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range p.Items {
			teams, err := db.ListTeamsOfMember(ctx, org, m.User.ID, "", storage.PageQuery{Limit: 0})
			if err != nil {
				t.Fatal(err)
			}
			if m.Teams != teams.Count {
				t.Fatalf("%s: member %s shows %d teams, belongs to %d", step, m.User.Email, m.Teams, teams.Count)
			}
			one, err := db.Member(ctx, org, m.User.ID)
			if err != nil || one.Teams != teams.Count {
				t.Fatalf("%s: Member(%s).Teams = %d, want %d (%v)", step, m.User.Email, one.Teams, teams.Count, err)
			}
		}
	}
	check("start")
	t1, err := db.CreateTeam(ctx, org, "One", users[:2])
	if err != nil {
		t.Fatal(err)
	}
	check("create with members")
	t2, err := db.CreateTeam(ctx, org, "Two", nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.ChangeTeamMembers(ctx, org, t2, storage.TeamMembersChange{Add: users, Roles: map[string]string{users[0]: "owner"}, Remove: []string{users[2]}}); err != nil {
		t.Fatal(err)
	}
	check("change: add, roles, remove")
	if err := db.ChangeTeamMembers(ctx, org, t2, storage.TeamMembersChange{Add: users[:1]}); err != nil {
		t.Fatal(err)
	}
	check("re-adding an existing member")
	if err := db.SetTeamMember(ctx, org, t1, users[2], "owner"); err != nil {
		t.Fatal(err)
	}
	if err := db.SetTeamMember(ctx, org, t1, users[2], "member"); err != nil {
		t.Fatal(err)
	}
	check("set member, then change role")
	if _, err := db.RemoveTeamMember(ctx, t1, users[0]); err != nil {
		t.Fatal(err)
	}
	if removed, err := db.RemoveTeamMember(ctx, t1, users[0]); err != nil || removed {
		t.Fatalf("second removal: %v %v", removed, err)
	}
	check("remove member")
	if _, err := db.DeleteTeam(ctx, org, t2); err != nil {
		t.Fatal(err)
	}
	check("delete team")
	if _, err := db.RemoveMember(ctx, org, users[1]); err != nil {
		t.Fatal(err)
	}
	check("remove from organization")
	if err := db.AddMember(ctx, org, users[1], &read); err != nil {
		t.Fatal(err)
	}
	check("rejoin")
	m, err := db.Member(ctx, other.Organization.ID, users[1])
	if err != nil || m.Teams != 1 {
		t.Fatalf("other organization: %d teams (%v), want 1", m.Teams, err)
	}
}

// NewTeam answers the team as a read of it finds it (the create resolver
// answers from it without reading the team back): members counted once
// each, no spaces, the stored creation time.
func TestNewTeamIsTheStoredTeam(t *testing.T) {
	ctx := context.Background()
	db, b := orgWithAdmin(t)
	org := b.Organization.ID
	read := "read"
	u, _, err := db.CreateUserWithToken(ctx, "a@example.com", "A", org, &read, true, "h1")
	if err != nil {
		t.Fatal(err)
	}
	for _, members := range [][]string{nil, {u.ID}, {u.ID, b.User.ID, u.ID}} {
		made, err := db.NewTeam(ctx, org, "Team", members)
		if err != nil {
			t.Fatal(err)
		}
		stored, err := db.Team(ctx, org, made.ID)
		if err != nil {
			t.Fatal(err)
		}
		if made != stored {
			t.Fatalf("members %v: NewTeam answered %+v, the stored team is %+v", members, made, stored)
		}
	}
}
