package graph

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"docsapi/graph/model"
	"docsapi/storage"
	"docsapi/storage/storagetest"
)

// TestPartialGrantsPageStatements: a guest granted more spaces than a
// cached access holds (bound 2 here) reads a page of their organization's
// spaces, each with its permissions, in as many statements with 12 grants
// as with 48, and for 3 rows as for 10 (the page's grants looked up in
// one statement, never all of them, nor one per row); each row's
// permission is the grant's
// role; a GET of one granted space answers with it too (one lookup of its
// own) and an ungranted one is 404. On both engines.
func TestPartialGrantsPageStatements(t *testing.T) {
	ctx := context.Background()
	var n atomic.Int64
	db, err := storage.Open(storagetest.Target(t), storage.Options{Statements: &n, AccessSpaceGrants: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	r := &Resolver{Store: db, Now: time.Now}
	cost := map[int]int64{}
	for _, granted := range []int{12, 48} {
		b, err := db.CreateOrganizationWithAdmin(ctx, "Org", fmt.Sprintf("admin%d@example.com", granted), "Admin", storage.NewID())
		if err != nil {
			t.Fatal(err)
		}
		org := b.Organization.ID
		guest, _, err := db.CreateUserWithToken(ctx, fmt.Sprintf("g%d@example.com", granted), "G", org, nil, true, storage.NewID())
		if err != nil {
			t.Fatal(err)
		}
		var grants []storage.ContentGrant
		var hidden string
		for i := range granted + 1 {
			s := storage.Space{OrganizationID: org, Title: fmt.Sprint("S", i), EditMode: "live", Visibility: "private"}
			if err := db.CreateSpace(ctx, &s); err != nil {
				t.Fatal(err)
			}
			if i == granted {
				hidden = s.ID
				break
			}
			role := []string{"read", "edit", "comment"}[i%3]
			grants = append(grants, storage.ContentGrant{TargetKind: storage.KindSpace, TargetID: s.ID, PrincipalKind: "user", PrincipalID: guest.ID, Role: role})
		}
		if err := db.SetContentGrants(ctx, org, grants); err != nil {
			t.Fatal(err)
		}
		roleOf := map[string]string{}
		for _, g := range grants {
			roleOf[g.TargetID] = g.Role
		}
		gctx := callerCtx(guest.ID)
		// page reads the first page of limit after a write that leaves
		// access alone (the page is read again, the cached access stays,
		// with the ranks it looked up: the first limit 1 page's row).
		page := func(limit int) (*model.SpaceList, int64) {
			t.Helper()
			if err := db.CreateSpace(ctx, &storage.Space{OrganizationID: org, Title: "other", EditMode: "live", Visibility: "private"}); err != nil {
				t.Fatal(err)
			}
			before := n.Load()
			l, err := r.Query().Spaces(gctx, org, nil, &limit)
			if err != nil {
				t.Fatal(err)
			}
			return l, n.Load() - before
		}
		page(1) // warm: access data, prepared statements
		_, three := page(3)
		l, ten := page(10)
		if three != ten {
			t.Errorf("%d granted: %d statements for 3 spaces (2 to look up), %d for 10 (7)", granted, three, ten)
		}
		cost[granted] = ten
		if len(l.Items) != 10 || l.Count != granted {
			t.Fatalf("%d granted: page of %d, count %d", granted, len(l.Items), l.Count)
		}
		for _, s := range l.Items {
			want := roleOf[s.ID]
			if !s.Permissions.View || s.Permissions.Edit != (want == "edit") || s.Permissions.Comment != (want != "read") {
				t.Errorf("%d granted: space %s permissions %+v, grant %s", granted, s.ID, s.Permissions, want)
			}
		}
		last := grants[granted-1]
		sp, err := r.Query().Space(gctx, last.TargetID, nil)
		if err != nil || sp.Permissions.Edit != (last.Role == "edit") {
			t.Errorf("%d granted: GET of a granted space: %v %+v", granted, err, sp)
		}
		if _, err := r.Query().Space(gctx, hidden, nil); err == nil {
			t.Errorf("%d granted: an ungranted private space answered", granted)
		}
		a, err := db.ContentAccess(ctx, org, guest.ID, nil)
		if err != nil || !a.SpaceGrantsPartial || len(a.Grants) != 0 {
			t.Errorf("%d granted: the cached access holds %d grants, partial %v (%v)", granted, len(a.Grants), a.SpaceGrantsPartial, err)
		}
	}
	if cost[12] != cost[48] || cost[12] == 0 {
		t.Errorf("statements for a 10-space page: %d with 12 grants, %d with 48", cost[12], cost[48])
	}
}
