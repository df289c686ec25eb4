package storage

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// TestAccessSpaceGrantsBounded: a member granted more spaces (directly and
// through a team) than a cached access holds gets an AccessData with their
// collection grants only, marked partial, read by two statements that
// stop past the bound, whatever the number of grants; SpaceGrantsAmong
// then answers, for any spaces, exactly their grants there. Under the
// bound everything is held. The statements read by index: no scan of
// content_grants, each principal's range of an index (SQLite plans). On both engines.
func TestAccessSpaceGrantsBounded(t *testing.T) {
	ctx := context.Background()
	db, sp := testSpace(t)
	org := sp.OrganizationID
	read := "read"
	u, _, err := db.CreateUserWithToken(ctx, "few@example.com", "Few", org, nil, true, "hf")
	if err != nil {
		t.Fatal(err)
	}
	other, _, err := db.CreateUserWithToken(ctx, "other@example.com", "Other", org, &read, true, "ho")
	if err != nil {
		t.Fatal(err)
	}
	team, err := db.CreateTeam(ctx, org, "T", []string{u.ID})
	if err != nil {
		t.Fatal(err)
	}
	col := &Collection{OrganizationID: org, Title: "C"}
	if err := db.CreateCollection(ctx, col); err != nil {
		t.Fatal(err)
	}
	var spaces []string
	for i := range 30 {
		s := &Space{OrganizationID: org, Title: fmt.Sprint("S", i), Visibility: "private"}
		if err := db.CreateSpace(ctx, s); err != nil {
			t.Fatal(err)
		}
		spaces = append(spaces, s.ID)
	}
	var grants []ContentGrant
	for i, id := range spaces {
		switch i % 3 {
		case 0:
			grants = append(grants, ContentGrant{TargetKind: KindSpace, TargetID: id, PrincipalKind: "user", PrincipalID: u.ID, Role: "read"})
		case 1:
			grants = append(grants, ContentGrant{TargetKind: KindSpace, TargetID: id, PrincipalKind: "team", PrincipalID: team, Role: "edit"})
		}
	}
	grants = append(grants, ContentGrant{TargetKind: KindSpace, TargetID: spaces[0], PrincipalKind: "team", PrincipalID: team, Role: "admin"},
		ContentGrant{TargetKind: KindSpace, TargetID: spaces[2], PrincipalKind: "user", PrincipalID: other.ID, Role: "edit"},
		ContentGrant{TargetKind: KindCollection, TargetID: col.ID, PrincipalKind: "team", PrincipalID: team, Role: "comment"})
	if err := db.SetContentGrants(ctx, org, grants); err != nil {
		t.Fatal(err)
	}
	// 21 space grants to u (10 direct, 11 through the team), one on a collection.
	for _, bound := range []int{5, 21, 0} {
		db.SetAccessSpaceGrants(bound)
		a, err := db.AccessRead(ctx, org, u.ID)
		if err != nil {
			t.Fatal(err)
		}
		wantPartial := bound == 5
		held := 1
		if !wantPartial {
			held = 22
		}
		if a.SpaceGrantsPartial != wantPartial || len(a.Grants) != held {
			t.Errorf("bound %d: partial %v with %d grants, want %v with %d", bound, a.SpaceGrantsPartial, len(a.Grants), wantPartial, held)
		}
	}
	got, err := db.SpaceGrantsAmong(ctx, org, u.ID, []string{team}, []string{spaces[0], spaces[1], spaces[2], spaces[3]})
	if err != nil {
		t.Fatal(err)
	}
	var text []string
	for _, g := range got {
		text = append(text, fmt.Sprint(slices.Index(spaces, g.TargetID), g.PrincipalKind, g.Role))
	}
	slices.Sort(text)
	if want := []string{"0teamadmin", "0userread", "1teamedit", "3userread"}; !slices.Equal(text, want) {
		t.Errorf("grants among four spaces: %v, want %v", text, want)
	}
	if _, err := db.SpaceGrantsAmong(ctx, org, u.ID, nil, make([]string, MaxTargetLookup+1)); err == nil {
		t.Error("more ids than MaxTargetLookup were looked up")
	}
	if db.dialect.name() == "sqlite" {
		for _, c := range []struct {
			q     string
			args  []any
			index string
		}{
			{accessCollectionGrantsSQL, []any{org, u.ID, org, u.ID}, "content_grants_collections_by_principal"},
			{accessSpaceGrantsSQL, []any{org, u.ID, org, u.ID, 6}, "content_grants_by_space_"}, // _order or _created: both hold the space grants alone
		} {
			plan := explain(t, db, c.q, c.args)
			if strings.Contains(plan+"\n", "SCAN g\n") || !strings.Contains(plan, c.index) || strings.Count(plan, "principal_id=?)") != 2 {
				t.Errorf("plan of %.60q... does not read %s alone:\n%s", c.q, c.index, plan)
			}
		}
	}
}
