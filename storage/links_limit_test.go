package storage

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"
)

// manyLinksSpace is a space whose one page makes n links (a third to
// pages, by id and by path, a third to URLs, a third to files).
func manyLinksSpace(tb testing.TB, n int) linkedSpace {
	tb.Helper()
	ls := backlinksSpace(tb, 100)
	var body strings.Builder
	for i := range n {
		switch i % 3 {
		case 0:
			fmt.Fprintf(&body, "R=part-1/page-%d|x ", i)
		case 1:
			fmt.Fprintf(&body, "U=https://example.com/%d ", i)
		default:
			fmt.Fprintf(&body, "N=f%d.png ", i)
		}
	}
	rev, err := ls.db.CreateRevision(context.Background(), RevisionChange{SpaceID: ls.space, Activate: true, Analyzer: linkSpecAnalyzer{}, Edit: func(t *Tree) error {
		p, _, _ := t.Find("page-2-2")
		p.SetBody(body.String())
		return nil
	}})
	if err != nil {
		tb.Fatal(err)
	}
	ls.active = rev
	return ls
}

// TestListLinksCostsTheLimit: the first link of a page with 100,000 links
// answers in well under a second; limit 0 counts without items.
func TestListLinksCostsTheLimit(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 100,000 links")
	}
	ls := manyLinksSpace(t, 100_000)
	ctx := context.Background()
	for _, page := range []string{"", "page-2-2"} {
		start := time.Now()
		p, stats, err := ls.db.ListLinks(ctx, ls.active, page, "", PageQuery{Limit: 1})
		took := time.Since(start)
		if err != nil || len(p.Items) != 1 || p.Next == nil || stats.Total < 100_000 {
			t.Fatalf("page %q: %d items, next %v, stats %+v, %v", page, len(p.Items), p.Next, stats, err)
		}
		start = time.Now()
		if _, _, err := ls.db.ListLinks(ctx, ls.active, page, "", PageQuery{Limit: 1}); err != nil {
			t.Fatal(err)
		}
		t.Logf("page %q: limit 1 in %v, again in %v (count %d, stats %+v)", page, took, time.Since(start), p.Count, stats)
		if again := time.Since(start); again > 100*time.Millisecond {
			t.Errorf("a second read took %v: the revision's targets are read again", again)
		}
		p2, _, err := ls.db.ListLinks(ctx, ls.active, page, "", PageQuery{Limit: 1, After: p.Next})
		if err != nil || len(p2.Items) != 1 || p2.Items[0].Target == p.Items[0].Target && p2.Items[0].Dest == p.Items[0].Dest {
			t.Fatalf("second page: %+v %v", p2.Items, err)
		}
		z, _, err := ls.db.ListLinks(ctx, ls.active, page, "", PageQuery{Limit: 0})
		if err != nil || len(z.Items) != 0 || z.Count != p.Count || z.Next == nil {
			t.Fatalf("limit 0: %+v %v", z, err)
		}
	}
}
