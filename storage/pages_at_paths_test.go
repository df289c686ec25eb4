package storage

import (
	"context"
	"fmt"
	"testing"
)

// PagesAtPaths finds the pages of a revision by path, in the active
// revision and in a change request's (an overlay that moved a page away
// and added one), ignoring paths that name nothing; on SQLite through the
// path indexes (no scan of the space's pages).
func TestPagesAtPaths(t *testing.T) {
	ctx := context.Background()
	ls := backlinksSpace(t, 1_000)
	db := ls.db
	cr, err := db.CreateChangeRequest(ctx, "", ls.space, ls.user, "cr", nil)
	if err != nil {
		t.Fatal(err)
	}
	head, err := db.CreateRevision(ctx, RevisionChange{SpaceID: ls.space, ChangeRequest: cr.ID, Author: ls.user, Analyzer: linkSpecAnalyzer{},
		Edit: func(tr *Tree) error {
			p, _, _ := tr.Find("page-1-5")
			p.Slug = "renamed"
			n := &TreePage{ContentPage: ContentPage{ID: "new-page", Type: "document", Title: "New", Slug: "new-page"}}
			n.SetBody("")
			tr.Pages = append(tr.Pages, n)
			return nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	paths := []string{"part-1/page-1-5", "part-1/renamed", "part-3/page-3-7", "new-page", "part-3", "nowhere", "part-1/nowhere"}
	for _, c := range []struct{ rev, want string }{
		{ls.active, "map[part-1/page-1-5:page-1-5 part-3:part-3 part-3/page-3-7:page-3-7]"},
		{head, "map[new-page:new-page part-1/renamed:page-1-5 part-3:part-3 part-3/page-3-7:page-3-7]"},
		{"unknown-revision", "map[]"},
	} {
		got, err := db.PagesAtPaths(ctx, c.rev, paths)
		if err != nil {
			t.Fatal(err)
		}
		if s := fmt.Sprint(got); s != c.want {
			t.Errorf("revision %s: %s, want %s", c.rev, s, c.want)
		}
	}
	if got, err := db.PagesAtPaths(ctx, ls.active, nil); err != nil || len(got) != 0 {
		t.Errorf("no paths: %v %v", got, err)
	}
	if db.Engine() != "sqlite" {
		return
	}
	for _, rev := range []string{ls.active, head} {
		rr, err := revisionRowsOf(ctx, db.r(), rev)
		if err != nil {
			t.Fatal(err)
		}
		q, args := pagesAtPathsSQL(rr, paths)
		checkReadPlan(t, db, "pages at paths", q, args)
	}
}
