package storage

import (
	"context"
	"strconv"
	"strings"
	"testing"
)

// TestMergedSpacesPlan checks that each range of a member's merged view is
// read from its index in list order (no scan of the organization's spaces,
// no sort of a range), on the engine under test.
func TestMergedSpacesPlan(t *testing.T) {
	ctx := context.Background()
	db, sp := testSpace(t)
	org := sp.OrganizationID
	c := Collection{OrganizationID: org, Title: "C"}
	if err := db.CreateCollection(ctx, &c); err != nil {
		t.Fatal(err)
	}
	user := NewID()
	v := &SpaceVisibility{Grantee: &SpaceGrantee{UserID: user, TeamIDs: []string{"t1", "t2"}}, Classes: []SpaceClass{
		{TopLevel: true, Kinds: []SpaceKinds{{Visibilities: []string{"public", "private"}, AnyLevel: true}}},
		{Parents: []string{c.ID, "other"}},
		{Parents: []string{"third"}, Kinds: []SpaceKinds{{Visibilities: []string{"unlisted"}, AnyLevel: true}}},
	}, Everywhere: []string{"public", "unlisted"}}
	m := visibleSpaceRanges(SpaceFilter{OrganizationID: org, Visible: v})
	if got := len(m.Arms); got != 8 {
		t.Fatalf("%d ranges, want 8 (public, unlisted, top level, 2 collections (not the third: unlisted only), user, 2 teams)", got)
	}
	if m.MaxDup != 4 {
		t.Fatalf("MaxDup %d, want 4", m.MaxDup)
	}
	spec := listSpec{SortCol: "s.sort_key", IDCol: "s.id", Text: true}
	// One collection's list: its class's range, the open and granted
	// ranges cut to the collection's keys.
	inC := visibleSpaceRanges(SpaceFilter{OrganizationID: org, ParentID: &c.ID, Visible: v})
	if got := len(inC.Arms); got != 6 {
		t.Fatalf("%d ranges in one collection, want 6 (public, unlisted, the collection, user, 2 teams)", got)
	}
	for i, pq := range []PageQuery{{Limit: 10}, {Limit: 10, After: &Cursor{S: "a0", ID: "x"}}, {Limit: 10}} {
		q, args := m.query(spec, pq, db.dialect.mergesLazily())
		if i == 2 {
			q, args = inC.query(spec, pq, db.dialect.mergesLazily())
		}
		plan := explain(t, db, q, args)
		t.Logf("plan:\n%s", plan)
		// SQLite merges the ranges lazily: no range is sorted.
		wants := []string{"spaces_by_parent", "spaces_by_level", "content_grants_by_space_order", "spaces_by_open_visibility"}
		if i == 2 {
			wants = append(wants[:1], wants[2:]...)
		}
		checkPlan(t, db, plan, []string{"SCAN s", "SCAN g", "SCAN spaces", "SCAN content_grants", "TEMP B-TREE"}, wants, []string{"Seq Scan"})
		// The query runs too (its rows closed: an open one holds a reader).
		rows, err := db.r().QueryContext(ctx, q, args...)
		if err != nil {
			t.Fatal(err)
		}
		rows.Close()
	}
}

// checkPlan checks a plan from explain: on SQLite it has none of avoid (an
// entry ending in a newline names a whole last word: "SCAN s\n") and every
// one of use; on PostgreSQL none of pgAvoid.
func checkPlan(t *testing.T, db *DB, plan string, avoid, use, pgAvoid []string) {
	t.Helper()
	if db.dialect.name() == "sqlite" {
		for _, bad := range avoid {
			if strings.Contains(plan+"\n", bad) {
				t.Errorf("plan has %q:\n%s", strings.TrimSpace(bad), plan)
			}
		}
		for _, want := range use {
			if !strings.Contains(plan, want) {
				t.Errorf("plan does not use %s:\n%s", want, plan)
			}
		}
		return
	}
	for _, bad := range pgAvoid {
		if strings.Contains(plan, bad) {
			t.Errorf("plan has %q:\n%s", bad, plan)
		}
	}
}

func explain(t *testing.T, db *DB, q string, args []any) string {
	t.Helper()
	prefix := "EXPLAIN QUERY PLAN "
	if db.dialect.name() != "sqlite" {
		prefix = "EXPLAIN "
	}
	rows, err := db.r().QueryContext(context.Background(), prefix+q, args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	var b strings.Builder
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		b.WriteString(strings.TrimSpace(strings.Trim(strings.Repeat(" ", 0)+toText(vals[len(vals)-1]), " ")) + "\n")
	}
	return b.String()
}

func toText(v any) string {
	switch x := v.(type) {
	case []byte:
		return string(x)
	case string:
		return x
	}
	return ""
}

// TestMergedSpacesManyRanges: a view of more ranges than one statement may
// merge is read by the scan, with the same answer.
func TestMergedSpacesManyRanges(t *testing.T) {
	ctx := context.Background()
	db, sp := testSpace(t)
	org := sp.OrganizationID
	c := Collection{OrganizationID: org, Title: "C"}
	if err := db.CreateCollection(ctx, &c); err != nil {
		t.Fatal(err)
	}
	var want []string
	for range 3 {
		s := Space{OrganizationID: org, ParentID: &c.ID, Title: "S", Visibility: "private", EditMode: "live"}
		if err := db.CreateSpace(ctx, &s); err != nil {
			t.Fatal(err)
		}
		want = append(want, s.ID)
	}
	parents := []string{c.ID}
	for i := range maxMergedArms + 300 { // past SQLite's 500 parts
		parents = append(parents, "none"+strconv.Itoa(i))
	}
	f := SpaceFilter{OrganizationID: org, Visible: &SpaceVisibility{Grantee: &SpaceGrantee{UserID: NewID()}, Classes: []SpaceClass{{Parents: parents}}}}
	if n := len(visibleSpaceRanges(f).Arms); n <= maxMergedArms {
		t.Fatalf("%d ranges: the test needs more than %d", n, maxMergedArms)
	}
	for _, merge := range []bool{true, false} {
		db.SetListRanges(&merge)
		p, err := db.ListSpaces(ctx, f, nil, PageQuery{Limit: 2})
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Items) != 2 || p.Items[0].ID != want[0] || p.Items[1].ID != want[1] || p.Next == nil {
			t.Errorf("merge %v: got %d items, next %v", merge, len(p.Items), p.Next)
		}
	}
}
