package storage_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"docsapi/storage"
)

// BenchmarkChangeRequestBehindEdit times the page edits the resolvers make
// (createPage appended or at an index, updatePage, movePage, deletePage) in
// a change request whose base is behind the main content, at 1,000 and
// 100,000 pages (editSpace), beside the same edits of the main content
// ("main-*"). The change request is opened first; then the main content is
// edited as bench/scale-extra.sh edits it (pages created under part-3,
// where the change request creates too, a page moved between part-5 and
// part-6, a body rewritten), so main@base_seq holds closed rows under the
// parents the change request reads. Each timed edit is followed by the
// page read the mutation answers with (RevisionPage). p50-ms is the
// median of the timed edits. Goal: each "cr-*" at 100,000 pages within
// 1.5x of itself at 1,000 and of its "main-*" twin. The change request's
// overlay grows by each edit (copied by the next): compare figures at one
// fixed count, e.g.
//
//	go test -run '^$' -bench ChangeRequestBehindEdit -benchtime 40x -count 3 ./storage
func BenchmarkChangeRequestBehindEdit(b *testing.B) {
	ctx := context.Background()
	three := 3
	for _, pages := range []int{1_000, 100_000} {
		db, space, cr := editSpace(b, pages)
		// The main content moves on after the change request opened.
		for i := range 9 {
			var at *int
			if i%2 == 0 {
				at = &three
			}
			steps := []storage.RevisionChange{
				{Pages: func(t storage.PageTree) error {
					return t.Insert(benchPage(fmt.Sprint("main-before-", i)), "part-3", at)
				}},
				{Pages: func(t storage.PageTree) error { return t.Move("page-5-2", []string{"part-6", "part-5"}[i%2], &three) }},
				{Page: "page-4-2", Edit: func(t *storage.Tree) error {
					p, _, _ := t.Find("page-4-2")
					p.SetBody(fmt.Sprint("main edit ", i))
					return nil
				}},
			}
			for _, c := range steps {
				c.SpaceID, c.Activate = space, true
				if _, err := db.CreateRevision(ctx, c); err != nil {
					b.Fatal(err)
				}
			}
		}
		// Each way's edits are numbered on across -count rounds (new page
		// ids, other pages deleted).
		rounds := map[string]int{}
		for _, way := range []string{"main-create", "cr-create", "main-update", "cr-update", "main-move", "cr-move", "main-delete", "cr-delete"} {
			b.Run(fmt.Sprint(pages, "/", way), func(b *testing.B) {
				var took []time.Duration
				for b.Loop() {
					rounds[way]++
					n := rounds[way]
					// Appended, or at index n+3: each insert in a gap of
					// its own (many at one index use the gap up, and the
					// window of siblings spread again is then in the
					// change request's overlay: BenchmarkOnePageEdit).
					var at *int
					if n%2 == 0 {
						i := n + 3
						at = &i
					}
					var touched string
					c := storage.RevisionChange{SpaceID: space, Activate: true}
					_, op, _ := strings.Cut(way, "-")
					switch op {
					case "create":
						touched = fmt.Sprint(way, "-", n)
						c.Pages = func(t storage.PageTree) error { return t.Insert(benchPage(touched), "part-3", at) }
					case "update":
						touched = "page-7-3"
						c.Pages = func(t storage.PageTree) error {
							p, err := t.Page(touched)
							if err != nil {
								return err
							}
							p.SetBody(fmt.Sprint(way, n))
							p.Dirty = true
							return nil
						}
					case "move":
						touched = "page-6-3"
						c.Pages = func(t storage.PageTree) error { return t.Move(touched, []string{"part-5", "part-6"}[n%2], &three) }
					case "delete":
						c.Pages = func(t storage.PageTree) error { return t.Delete(fmt.Sprintf("page-8-%d", n+10)) }
					}
					if strings.HasPrefix(way, "cr-") {
						c.Activate, c.ChangeRequest = false, cr
					}
					start := time.Now()
					rev, err := db.CreateRevision(ctx, c)
					if err != nil {
						b.Fatal(err)
					}
					if touched != "" {
						if _, err := db.RevisionPage(ctx, rev, touched, false); err != nil {
							b.Fatal(err)
						}
					}
					took = append(took, time.Since(start))
				}
				slices.Sort(took)
				b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "p50-ms")
			})
		}
	}
}
