package storage

import (
	"context"
	"testing"
)

// TestInstallationSpacesByCreationPlan checks that an installation token's
// spaces in creation order (alone: a member who sees everything; or seen
// through a member's view: a member's spaces asked with the token) read
// the installation's targets from their creation-ordered index (migration
// 0031d), each space by primary key: no scan of the organization's spaces,
// no sort.
func TestInstallationSpacesByCreationPlan(t *testing.T) {
	ctx := context.Background()
	db, sp := testSpace(t)
	org := sp.OrganizationID
	inst := &SpaceVisibility{Installation: "inst1"}
	member := &SpaceVisibility{Grantee: &SpaceGrantee{UserID: NewID(), TeamIDs: []string{"t1"}}, Classes: []SpaceClass{
		{TopLevel: true, Kinds: []SpaceKinds{{Visibilities: []string{"public", "private"}, AnyLevel: true}}},
		{Parents: []string{"c1", "c2"}},
	}, Everywhere: []string{"public", "unlisted"}}
	for _, f := range []SpaceFilter{
		{OrganizationID: org, ByCreation: true, Desc: true, Visible: inst},
		{OrganizationID: org, ByCreation: true, Visible: member, AlsoVisible: inst},
		{OrganizationID: org, ByCreation: true, Desc: true, Visible: member, AlsoVisible: inst},
	} {
		f = installationFirst(f)
		m := visibleSpaceRanges(f)
		if m == nil || len(m.Arms) != 1 {
			t.Fatalf("not the installation's one range: %+v", m)
		}
		if parts, ok := installationCount(f); !ok || len(parts) != 1 {
			t.Fatalf("the total is not counted along the installation's targets")
		}
		spec := listSpec{SortCol: "s.created_at", IDCol: "s.id", Desc: f.Desc}
		for _, pq := range []PageQuery{{Limit: 10}, {Limit: 10, After: &Cursor{N: 5, ID: "x"}}} {
			q, args := m.query(spec, pq, db.dialect.mergesLazily())
			plan := explain(t, db, q, args)
			checkPlan(t, db, plan, []string{"SCAN s\n", "SCAN spaces", "SCAN t\n", "TEMP B-TREE"}, []string{"integration_targets_by_space_created"}, []string{"Seq Scan on spaces"})
			rows, err := db.r().QueryContext(ctx, q, args...)
			if err != nil {
				t.Fatal(err)
			}
			rows.Close()
		}
	}
}

// TestMemberSideFirstPlan: a member's spaces through an installation
// token, the member's view first (a guest who sees their granted spaces
// only, cheaperSideFirst's choice when they see fewer spaces than the
// installation covers), read the member's creation-ordered grants and
// check each against the installation's targets by primary key, page and
// total alike: no scan of the organization's spaces or targets, no sort.
// And by count: the side naming fewer spaces comes first.
func TestMemberSideFirstPlan(t *testing.T) {
	ctx := context.Background()
	db, sp := testSpace(t)
	org := sp.OrganizationID
	inst := &SpaceVisibility{Installation: "inst1"}
	guest := &SpaceVisibility{Grantee: &SpaceGrantee{UserID: NewID(), TeamIDs: []string{"t1"}}}
	f := SpaceFilter{OrganizationID: org, ByCreation: true, Desc: true, Visible: inst, AlsoVisible: guest}
	// No targets and no grants: equal counts, the installation first.
	if g, err := db.cheaperSideFirst(ctx, f); err != nil || g.Visible != inst {
		t.Fatalf("equal counts: the member first (%v)", err)
	}
	db.SetMemberSideFirst(new(true))
	defer db.SetMemberSideFirst(nil)
	g, err := db.cheaperSideFirst(ctx, f)
	if err != nil || g.Visible != guest || g.AlsoVisible != inst {
		t.Fatalf("forced: not the member first (%v)", err)
	}
	m := visibleSpaceRanges(g)
	parts, ok := memberThenInstallationCount(g)
	if m == nil || !ok || len(parts) != 1 {
		t.Fatalf("no member ranges or count along them")
	}
	spec := listSpec{SortCol: "s.created_at", IDCol: "s.id", Desc: true}
	for _, pq := range []PageQuery{{Limit: 10}, {Limit: 10, After: &Cursor{N: 5, ID: "x"}}} {
		q, args := m.query(spec, pq, db.dialect.mergesLazily())
		for _, c := range []struct {
			q    string
			args []any
		}{{q, args}, {parts[0].Query, parts[0].Args}} {
			plan := explain(t, db, c.q, c.args)
			checkPlan(t, db, plan, []string{"SCAN s\n", "SCAN spaces", "SCAN t\n", "SCAN g\n", "SCAN integration_target_installations"}, []string{"content_grants_by_space_created"}, []string{"Seq Scan on spaces"})
			rows, err := db.r().QueryContext(ctx, c.q, c.args...)
			if err != nil {
				t.Fatal(err)
			}
			rows.Close()
		}
	}
}
