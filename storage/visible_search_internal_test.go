package storage

import (
	"context"
	"strings"
	"testing"
)

// TestSearchableSpacesPlan checks that a member's searchable spaces are
// read range by range from the indexes of their merged view, each space's
// index row by primary key: no scan of the organization's spaces nor of
// search_spaces, on the engine under test.
func TestSearchableSpacesPlan(t *testing.T) {
	ctx := context.Background()
	db, sp := testSpace(t)
	org := sp.OrganizationID
	c := Collection{OrganizationID: org, Title: "C"}
	if err := db.CreateCollection(ctx, &c); err != nil {
		t.Fatal(err)
	}
	v := &SpaceVisibility{Grantee: &SpaceGrantee{UserID: NewID(), TeamIDs: []string{"t1"}}, Classes: []SpaceClass{
		{TopLevel: true, Kinds: []SpaceKinds{{Visibilities: []string{"public", "private"}, AnyLevel: true}}},
		{Parents: []string{c.ID, "other"}},
	}, Everywhere: []string{"public", "unlisted"}}
	q, args := searchableSpacesSQL(SpaceFilter{OrganizationID: org, Visible: v})
	if n := strings.Count(q, "UNION ALL") + 1; n != 7 {
		t.Fatalf("%d ranges, want 7 (public, unlisted, top level, 2 collections, user, team)", n)
	}
	plan := explain(t, db, q, args)
	t.Logf("plan:\n%s", plan)
	if db.dialect.name() == "sqlite" {
		for _, bad := range []string{"SCAN s\n", "SCAN spaces", "SCAN ss", "SCAN search_spaces", "SCAN content_grants"} {
			if strings.Contains(plan+"\n", bad) {
				t.Errorf("plan has %q", strings.TrimSpace(bad))
			}
		}
		for _, want := range []string{"spaces_by_level (organization_id=? AND parent_id=?)", "content_grants_by_space_order", "spaces_by_open_visibility"} {
			if !strings.Contains(plan, want) {
				t.Errorf("plan does not use %s", want)
			}
		}
	} else if strings.Contains(plan, "Seq Scan on spaces") || strings.Contains(plan, "Seq Scan on search_spaces") {
		t.Errorf("plan has a sequential scan")
	}
	if _, _, err := db.SearchableSpaces(ctx, SpaceFilter{OrganizationID: org, Visible: v}); err != nil {
		t.Fatal(err)
	}
}
