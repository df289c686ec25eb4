package storage

import (
	"context"
	"fmt"
	"testing"
)

// BenchmarkBacklinks is the first page of a page's backlinks (3 pages link
// to it: a resolved link, a relative one by its path, one by its
// alternative path) in a space where every page links to two others
// (backlinksSpace), through Backlinks ("links": from the link rows that
// name the page) at 1,000, 10,000 and 100,000 pages. "scan" is the query
// before (every page of the revision tested for a link, kept as the tests'
// reference), at 1,000 pages only: SQLite ran its EXISTS through
// page_links_target by kind alone, every page link of the database for
// each page, so it grows with the square of the pages (README
// Performance). `go test ./storage -run X -bench Backlinks -benchtime 5x`.
func BenchmarkBacklinks(b *testing.B) {
	ctx := context.Background()
	for _, pages := range []int{1_000, 10_000, 100_000} {
		ls := backlinksSpace(b, pages)
		for _, way := range []string{"scan", "links"} {
			if way == "scan" && pages > 1_000 {
				continue
			}
			b.Run(fmt.Sprint(pages, "/", way), func(b *testing.B) {
				for b.Loop() {
					var p Page[string]
					var err error
					if way == "scan" {
						p, err = backlinksByScan(ctx, ls.db, ls.active, "page", "page-3-7", PageQuery{Limit: 20})
					} else {
						p, err = ls.db.Backlinks(ctx, ls.active, "page", "page-3-7", PageQuery{Limit: 20})
					}
					if err != nil || len(p.Items) != 3 {
						b.Fatalf("%v %v", p.Items, err)
					}
				}
			})
		}
	}
}
