package storage

import (
	"context"
	"fmt"
	"testing"
)

// Pages inserted again and again at one place use the gap there up: the
// partial edit then spreads a window of neighbours (positions.Window), as
// the whole tree does (positions.Gapped), and writes those rows, not the
// sibling list; in the main content and in a change request (whose overlay
// then holds the window, not the list). Both paths give the same
// revision (compared where an edit spread and after the last); at least
// one edit spread, and none wrote as many rows as the list has.
func TestGapUsedUpSpreadsAWindowAsTheWholeTree(t *testing.T) {
	ctx := context.Background()
	const siblings = 60
	db, spaces, crs, user := twoSpacesWithChangeRequests(t, func(tr *Tree) {
		parent := &TreePage{ContentPage: ContentPage{ID: "parent", Type: "document", Title: "parent", Slug: "parent"}}
		parent.SetBody("parent")
		for k := range siblings {
			id := fmt.Sprint("child-", k)
			c := &TreePage{ContentPage: ContentPage{ID: id, Type: "document", Title: id, Slug: id}}
			c.SetBody(id)
			parent.Children = append(parent.Children, c)
		}
		tr.Pages = append(tr.Pages, parent)
	})
	// Rows the edit wrote beyond the new page: main-line rows it opened,
	// or overlay rows its head has beyond the previous head's.
	spread, most := 0, 0
	overlay := func(rev string) int {
		return count(t, db, `SELECT COUNT(*) FROM overlay_pages WHERE revision_id = ?`, rev)
	}
	prevOverlay := 0
	// The 17th insert at one place finds no gap: 18 in the main content,
	// then 18 in the change request (whose base has none of them).
	for round := range 36 {
		inCR := round >= 18
		index := 3
		id := fmt.Sprint("new-", round)
		var got [2]string
		for i, sp := range spaces {
			c := RevisionChange{SpaceID: sp, Activate: !inCR, Analyzer: modelAnalyzer{}, WholeTree: i == 1, Pages: func(pt PageTree) error {
				p := &TreePage{ContentPage: ContentPage{ID: id, Type: "document", Title: id, Slug: id}}
				p.SetBody(id)
				return pt.Insert(p, "parent", &index)
			}}
			if inCR {
				c.ChangeRequest, c.Author = crs[i], user
			}
			rev, err := db.CreateRevision(ctx, c)
			if err != nil {
				t.Fatalf("round %d: %v", round, err)
			}
			got[i] = rev
		}
		wrote := count(t, db, `SELECT COUNT(*) FROM main_pages m JOIN revisions r ON r.id = ? WHERE m.space_id = r.space_id AND m.from_seq = r.seq`, got[0]) - 1
		if inCR {
			n := overlay(got[0])
			wrote, prevOverlay = n-prevOverlay-1, n
		}
		if wrote > 0 {
			spread++
		}
		// Compared (all their pages read) where an edit spread and at the
		// end of each part: the reads cost most of the test.
		if wrote > 0 || round%18 == 17 {
			if a, w := revisionShape(t, db, spaces[0], got[0]), revisionShape(t, db, spaces[1], got[1]); a != w {
				t.Fatalf("round %d (insert at %d, change request %v):\npartial:\n%s\nwhole tree:\n%s", round, index, inCR, a, w)
			}
		}
		if testing.Verbose() {
			t.Logf("round %d: %d rows besides the new page", round, wrote)
		}
		most = max(most, wrote)
	}
	if spread == 0 || most >= siblings {
		t.Fatalf("%d edits spread a window, the largest writing %d rows besides the new page (the list: %d)", spread, most, siblings)
	}
}
