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
	checkPlan(t, db, plan, []string{"SCAN s\n", "SCAN spaces", "SCAN ss", "SCAN search_spaces", "SCAN content_grants"}, []string{"parent_id=?", "content_grants_by_space_", "spaces_by_open_"}, []string{"Seq Scan on spaces", "Seq Scan on search_spaces"})
	if _, _, err := db.SearchableSpaces(ctx, SpaceFilter{OrganizationID: org, Visible: v}); err != nil {
		t.Fatal(err)
	}
	// The other side: the organization's indexed spaces, by their index.
	q, args = indexedSpacesSQL(SpaceFilter{OrganizationID: org, Visible: v})
	plan = explain(t, db, q, args)
	if db.dialect.name() == "sqlite" {
		if !strings.Contains(plan, "search_spaces_by_org") || strings.Contains(plan+"\n", "SCAN s\n") || strings.Contains(plan, "SCAN ss") {
			t.Errorf("indexed spaces' plan:\n%s", plan)
		}
	} else if strings.Contains(plan, "Seq Scan on spaces") {
		t.Errorf("indexed spaces' plan has a sequential scan:\n%s", plan)
	}
}

// TestMergedSpacesByCreationPlan checks that a member's spaces in creation
// order (a second view filtering every range) read each range from a
// creation-ordered index (migration 0030h): no scan, no sort of a range.
func TestMergedSpacesByCreationPlan(t *testing.T) {
	ctx := context.Background()
	db, sp := testSpace(t)
	org := sp.OrganizationID
	v := &SpaceVisibility{Grantee: &SpaceGrantee{UserID: NewID(), TeamIDs: []string{"t1"}}, Classes: []SpaceClass{
		{TopLevel: true, Kinds: []SpaceKinds{{Visibilities: []string{"public", "private"}, AnyLevel: true}}},
		{Parents: []string{"c1", "c2"}},
	}, Everywhere: []string{"public", "unlisted"}}
	also := &SpaceVisibility{Grantee: &SpaceGrantee{UserID: NewID()}, Classes: []SpaceClass{{Parents: []string{"c1"}}}}
	for _, f := range []SpaceFilter{
		{OrganizationID: org, ByCreation: true, Desc: true, Visible: v},
		{OrganizationID: org, ByCreation: true, Visible: v, AlsoVisible: also},
	} {
		m := visibleSpaceRanges(f)
		if got := len(m.Arms); got != 7 {
			t.Fatalf("%d ranges, want 7 (public, unlisted, top level, 2 collections, user, team)", got)
		}
		spec := listSpec{SortCol: "s.created_at", IDCol: "s.id", Desc: f.Desc}
		for _, pq := range []PageQuery{{Limit: 10}, {Limit: 10, After: &Cursor{N: 5, ID: "x"}}} {
			q, args := m.query(spec, pq, db.dialect.mergesLazily())
			plan := explain(t, db, q, args)
			checkPlan(t, db, plan, []string{"SCAN s\n", "SCAN spaces", "SCAN content_grants", "TEMP B-TREE"}, []string{"spaces_by_parent_created", "spaces_by_open_created", "content_grants_by_space_created"}, []string{"Seq Scan on spaces"})
			// The query runs too (its rows closed: an open one holds a reader).
			rows, err := db.r().QueryContext(ctx, q, args...)
			if err != nil {
				t.Fatal(err)
			}
			rows.Close()
		}
	}
}
