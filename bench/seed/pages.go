package seed

import (
	"context"
	"fmt"

	"docsapi/graph"
	"docsapi/storage"
)

func init() {
	register("pages", "document pages in one new space, in folders of 100, indexed for search (search_space; words: every page has \"common subject\" and \"lorem\", topic<i%1000> is on 0.1% of them, item<i> on one)", Pages)
}

// pagesPerRevision bounds one write transaction of the pages seeder: the
// pages go in as successive revisions of this many new pages each, so the
// index is built the way the API builds it (one revision re-indexes only
// its new pages) without one transaction holding 100,000 pages in memory.
const pagesPerRevision = 10000

// Pages creates a space holding n document pages, in group pages of 100
// ("Part N", slug part-N), each page with three sections: an introduction
// with the words every page shares, "Details" naming the page's item, and
// "More" (filler text). They are written through storage.CreateRevision
// with the API's own analyzer, so the search index holds what an import
// of the same Markdown would. "search_space" is the space.
func Pages(ctx context.Context, e *Env, n int) error {
	s := &storage.Space{OrganizationID: e.Org, Title: "Search bench", Visibility: "private", EditMode: "live"}
	if err := e.DB.CreateSpace(ctx, s); err != nil {
		return err
	}
	an := (&graph.Resolver{}).ContentAnalyzer()
	var group *storage.TreePage
	for start := 0; start < n; start += pagesPerRevision {
		_, err := e.DB.CreateRevision(ctx, storage.RevisionChange{SpaceID: s.ID, Type: "edits", Activate: true, Analyzer: an,
			Edit: func(t *storage.Tree) error {
				if len(t.Pages) > 0 {
					group = t.Pages[len(t.Pages)-1]
				}
				for i := start; i < min(n, start+pagesPerRevision); i++ {
					if i%100 == 0 {
						group = &storage.TreePage{ContentPage: storage.ContentPage{ID: storage.NewID(), Type: "group",
							Title: fmt.Sprintf("Part %d", i/100), Slug: fmt.Sprintf("part-%d", i/100)}, Dirty: true}
						t.Pages = append(t.Pages, group)
					}
					p := &storage.TreePage{ContentPage: storage.ContentPage{ID: storage.NewID(), Type: "document",
						Title: fmt.Sprintf("Page %d", i), Slug: fmt.Sprintf("page-%d", i)}}
					p.SetBody(pageBody(i))
					group.Children = append(group.Children, p)
					group.Dirty = true
				}
				return nil
			}})
		if err != nil {
			return err
		}
	}
	e.Out["search_space"], e.Out["pages"] = s.ID, n
	return nil
}

func pageBody(i int) string {
	return fmt.Sprintf("Introduction of page %d about topic%d and the common subject.\n\n## Details\n\nDetails of item%d, with what it is for and how to use it.\n\n## More\n\nlorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor incididunt ut labore et dolore magna aliqua\n",
		i, i%1000, i)
}
