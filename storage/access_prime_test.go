package storage_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"docsapi/storage"
	"docsapi/storage/storagetest"
)

// TestPrimeAccessAsAccessAt: PrimeAccess caches, for every user it is
// given that the cache lacks, the AccessData accessAt reads for that user
// alone: members with and without teams, user and team grants, a user of
// another organization (no membership), duplicates; after a change of
// access, again. On both engines.
//
// Again with a bound on the space grants a cached access holds (1: user 1
// has three through teams and their own, the others one or none; -1:
// none held): the users past it are partial both ways alike, holding
// their collection grants only.
func TestPrimeAccessAsAccessAt(t *testing.T) {
	for _, bound := range []int{0, 1, -1} {
		t.Run(fmt.Sprint("space grants held ", bound), func(t *testing.T) {
			testPrimeAccessAsAccessAt(t, storage.Options{AccessSpaceGrants: bound})
		})
	}
}

func testPrimeAccessAsAccessAt(t *testing.T, o storage.Options) {
	ctx := context.Background()
	db := openDBWith(t, storagetest.Target(t), o)
	b, err := db.CreateOrganizationWithAdmin(ctx, "Org", "admin@example.com", "Admin", "h0")
	if err != nil {
		t.Fatal(err)
	}
	org := b.Organization.ID
	other, err := db.CreateOrganizationWithAdmin(ctx, "Other", "other@example.com", "Other", "h9")
	if err != nil {
		t.Fatal(err)
	}
	users := readMembers(t, db, org, 5)
	stranger := other.User.ID
	t1, err := db.CreateTeam(ctx, org, "One", users[:2])
	if err != nil {
		t.Fatal(err)
	}
	t2, err := db.CreateTeam(ctx, org, "Two", users[1:3])
	if err != nil {
		t.Fatal(err)
	}
	var spaces []string
	col := &storage.Collection{OrganizationID: org, Title: "C"}
	if err := db.CreateCollection(ctx, col); err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		sp := &storage.Space{OrganizationID: org, Title: fmt.Sprint("S", i), Visibility: "private"}
		if err := db.CreateSpace(ctx, sp); err != nil {
			t.Fatal(err)
		}
		spaces = append(spaces, sp.ID)
	}
	for _, g := range []storage.ContentGrant{
		{TargetKind: "space", TargetID: spaces[0], PrincipalKind: "team", PrincipalID: t1, Role: "edit"},
		{TargetKind: "space", TargetID: spaces[1], PrincipalKind: "team", PrincipalID: t2, Role: "comment"},
		{TargetKind: "space", TargetID: spaces[2], PrincipalKind: "user", PrincipalID: users[1], Role: "admin"},
		{TargetKind: "space", TargetID: spaces[0], PrincipalKind: "user", PrincipalID: users[3], Role: "read"},
		{TargetKind: "collection", TargetID: col.ID, PrincipalKind: "team", PrincipalID: t1, Role: "read"},
		{TargetKind: "collection", TargetID: col.ID, PrincipalKind: "user", PrincipalID: users[4], Role: "edit"},
	} {
		if err := db.SetContentGrant(ctx, org, g); err != nil {
			t.Fatal(err)
		}
	}
	all := append(append([]string{stranger, b.User.ID}, users...), users[0])
	check := func(step string) {
		t.Helper()
		if err := db.PrimeAccess(ctx, org, all); err != nil {
			t.Fatal(err)
		}
		for _, u := range all {
			got, ok := db.CachedAccess(ctx, org, u)
			if !ok {
				t.Fatalf("%s: %s not cached", step, u)
			}
			want, err := db.AccessRead(ctx, org, u)
			if err != nil {
				t.Fatal(err)
			}
			if g, w := accessText(got), accessText(want); g != w {
				t.Errorf("%s: user %s primed\n%s\nread alone\n%s", step, u, g, w)
			}
		}
	}
	check("first")
	if o.AccessSpaceGrants == 1 {
		a1, _ := db.CachedAccess(ctx, org, users[1])
		a0, _ := db.CachedAccess(ctx, org, users[0])
		if !a1.SpaceGrantsPartial || a0.SpaceGrantsPartial || len(a1.Grants) != 1 || len(a0.Grants) != 2 {
			t.Errorf("bound 1: user 1 partial %v with %d grants (want partial, its collection grant), user 0 partial %v with %d (want held, 2)",
				a1.SpaceGrantsPartial, len(a1.Grants), a0.SpaceGrantsPartial, len(a0.Grants))
		}
	}
	// A change of access: every entry is stale, primed again.
	if _, err := db.CreateTeam(ctx, org, "Three", users[3:]); err != nil {
		t.Fatal(err)
	}
	if _, ok := db.CachedAccess(ctx, org, users[0]); ok {
		t.Fatal("an entry outlived a change of access")
	}
	check("after a change of access")
}

// accessText is what an AccessData says, its grants in one order.
func accessText(a storage.AccessData) string {
	var gs []string
	for _, g := range a.Grants {
		gs = append(gs, strings.Join([]string{g.TargetKind, g.TargetID, g.PrincipalKind, g.PrincipalID, g.Role, g.CreatedAt.String()}, " "))
	}
	slices.Sort(gs)
	m := "none"
	if a.Membership != nil {
		mb := *a.Membership
		role := "nil"
		if mb.Role != nil {
			role = *mb.Role
		}
		m = fmt.Sprintf("role %s sso %v owns %v", role, mb.SSO, mb.OwnsTeam)
	}
	return fmt.Sprintf("user %s member %s teams %v tree %d memo %v partial %v\ngrants %s", a.UserID, m, a.Teams, len(a.Tree), a.Memo != nil, a.SpaceGrantsPartial, strings.Join(gs, "\n"))
}

// TestPrimeAccessWarmOpensNoTransaction: once every subscriber's access is
// cached at the current access counter, PrimeAccess (called per live
// event) opens no read transaction; after a change of access it opens one
// and caches them all again. On both engines.
func TestPrimeAccessWarmOpensNoTransaction(t *testing.T) {
	ctx := context.Background()
	db, b := orgWithAdmin(t)
	org := b.Organization.ID
	users := append([]string{b.User.ID}, readMembers(t, db, org, 3)...)
	prime := func(want int64, step string) {
		t.Helper()
		before := db.PrimeReadTxs()
		if err := db.PrimeAccess(ctx, org, users); err != nil {
			t.Fatal(err)
		}
		if got := db.PrimeReadTxs() - before; got != want {
			t.Errorf("%s: %d read transactions, want %d", step, got, want)
		}
		for _, u := range users {
			if _, ok := db.CachedAccess(ctx, org, u); !ok {
				t.Errorf("%s: %s not cached", step, u)
			}
		}
	}
	prime(1, "cold")
	prime(0, "warm")
	prime(0, "warm again")
	// A write that leaves access alone keeps the cache warm.
	if err := db.CreateSpace(ctx, &storage.Space{OrganizationID: org, Title: "S", Visibility: "private"}); err != nil {
		t.Fatal(err)
	}
	prime(0, "after a space create")
	if _, err := db.CreateTeam(ctx, org, "T", users[1:2]); err != nil {
		t.Fatal(err)
	}
	prime(1, "after a change of access")
	prime(0, "warm after the change")
}
