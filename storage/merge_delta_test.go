package storage_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"docsapi/merge"
	"docsapi/storage"
)

// The delta merge (storage/merge_delta.go) makes exactly what the
// whole-tree merge makes: two spaces hold the same content; in each round
// both get a change request, the same random edit script on the change
// request and on the main content (body and title edits mostly, the same
// page on both sides now and then: line merges and conflicts; in half the
// rounds creates, moves, deletes and renames too), now and then an update from the main
// content, then the merge: space 0 through the delta (it falls back to
// the whole tree where it does not apply), space 1 through the whole tree
// (MergeChange.WholeTree, the old path kept as the reference). Results
// (conflict or not), heads as read and as stored, the merged main content
// and search must be the same; the delta must have done most of them.
func TestDeltaMergeMatchesWholeTree(t *testing.T) {
	ctx := context.Background()
	db, spaces := storage.TwoSpacesForTest(t)
	an := storage.ModelAnalyzerForTest
	user := storage.FirstUserForTest(t, db)
	for _, sp := range spaces {
		if _, err := db.CreateRevision(ctx, storage.RevisionChange{SpaceID: sp, Activate: true, Analyzer: an, Edit: func(tr *storage.Tree) error {
			for i := range 12 {
				p := &storage.TreePage{ContentPage: storage.ContentPage{ID: fmt.Sprint("p", i), Type: "document", Title: fmt.Sprint("p", i), Slug: fmt.Sprint("s", i)}}
				p.SetBody(fmt.Sprintf("first p%d\nsecond\nthird", i))
				if i > 0 && i%3 != 0 {
					tr.Pages[len(tr.Pages)-1].Children = append(tr.Pages[len(tr.Pages)-1].Children, p)
				} else {
					tr.Pages = append(tr.Pages, p)
				}
			}
			return nil
		}}); err != nil {
			t.Fatal(err)
		}
	}
	rng := rand.New(rand.NewPCG(32, 2))
	rounds := 60
	if testing.Short() || storage.RaceDetectorForTest {
		rounds = 30
	}
	next := 0
	var reads storage.PageReads
	merges, updates, conflicts := 0, 0, 0
	for round := range rounds {
		var crs [2]string
		for i, sp := range spaces {
			cr, err := db.CreateChangeRequest(ctx, "", sp, user, "cr", nil)
			if err != nil {
				t.Fatal(err)
			}
			crs[i] = cr.ID
		}
		var log []string
		structural := rng.IntN(2) == 0 // a round with adds, moves, removes, renames
		for range 1 + rng.IntN(4) {
			onMain := rng.IntN(3) == 0
			from := headOf(t, db, spaces[0], crs[0])
			if onMain {
				from, _ = storage.SpaceHeadForTest(db, spaces[0])
			}
			pages, err := db.RevisionPages(ctx, from)
			if err != nil {
				t.Fatal(err)
			}
			next++
			what, edit := bodyEdit(rng, pages)
			if structural && rng.IntN(2) == 0 {
				what, edit = storage.RandomPageEditForTest(rng, pages, 1000+next)
			}
			if onMain {
				what = "main: " + what
			}
			log = append(log, what)
			var errs [2]error
			for i, sp := range spaces {
				c := storage.RevisionChange{SpaceID: sp, Analyzer: an, Pages: edit, Activate: onMain}
				if !onMain {
					c.ChangeRequest = crs[i]
				}
				_, errs[i] = db.CreateRevision(ctx, c)
			}
			if (errs[0] == nil) != (errs[1] == nil) || (errs[0] != nil && !errors.Is(errs[0], storage.ErrSkipEditForTest) && !errors.Is(errs[0], storage.ErrNotFound)) {
				t.Fatalf("round %d (%s): %v, %v", round, what, errs[0], errs[1])
			}
		}
		doUpdate := rng.IntN(3) == 0
		for pass, update := range []bool{true, false} {
			if update && !doUpdate {
				continue
			}
			var revs [2]string
			var errs [2]error
			for i, sp := range spaces {
				rctx := ctx
				if i == 0 {
					rctx = storage.CountingPageReads(ctx, &reads)
				}
				revs[i], errs[i] = db.MergeChangeRequest(rctx, storage.MergeChange{SpaceID: sp, ChangeRequest: crs[i], Update: update, Analyzer: an,
					Merge: merge.Trees, WholeTree: i == 1})
			}
			what := fmt.Sprintf("round %d pass %d (%s)", round, pass, strings.Join(log, "; "))
			var c0, c1 *merge.ConflictError
			if errors.As(errs[0], &c0) != errors.As(errs[1], &c1) {
				t.Fatalf("%s: delta %v, whole tree %v", what, errs[0], errs[1])
			}
			if c0 != nil {
				conflicts++
				break
			}
			if errs[0] != nil || errs[1] != nil {
				t.Fatalf("%s: %v, %v", what, errs[0], errs[1])
			}
			if update {
				updates++
				if a, w := storage.OverlayShapeForTest(t, db, revs[0]), storage.OverlayShapeForTest(t, db, revs[1]); a != w {
					t.Fatalf("%s: update stored\ndelta:\n%s\nwhole tree:\n%s", what, a, w)
				}
			} else {
				merges++
				if a, w := storage.SearchShapeForTest(t, db, spaces[0]), storage.SearchShapeForTest(t, db, spaces[1]); a != w {
					t.Fatalf("%s: search\ndelta:\n%s\nwhole tree:\n%s", what, a, w)
				}
			}
			if a, w := storage.RevisionShapeForTest(t, db, spaces[0], revs[0]), storage.RevisionShapeForTest(t, db, spaces[1], revs[1]); a != w {
				t.Fatalf("%s:\ndelta:\n%s\nwhole tree:\n%s", what, a, w)
			}
		}
	}
	t.Logf("%d merges, %d updates, %d conflicts; %d through the whole tree", merges, updates, conflicts, reads.WholeMerges)
	if merges < rounds/3 || conflicts == 0 || reads.WholeMerges*2 > merges+updates+conflicts {
		t.Fatalf("%d merges, %d updates, %d conflicts, %d of them whole: the script does not exercise the delta", merges, updates, conflicts, reads.WholeMerges)
	}
}

// bodyEdit edits one page's title and one line of its body (three
// choices: the same page edited on both sides merges or conflicts).
func bodyEdit(rng *rand.Rand, pages []storage.ContentPage) (string, func(t storage.PageTree) error) {
	var docs []string
	for _, p := range pages {
		if p.Type == "document" {
			docs = append(docs, p.ID)
		}
	}
	if len(docs) == 0 {
		return "nothing", func(storage.PageTree) error { return storage.ErrSkipEditForTest }
	}
	id := docs[rng.IntN(len(docs))]
	if rng.IntN(2) == 0 {
		id = docs[rng.IntN(min(3, len(docs)))] // often the same few pages
	}
	line, word, title := rng.IntN(3), rng.IntN(3), rng.IntN(2)
	return fmt.Sprintf("edit %s line %d to %d", id, line, word), func(t storage.PageTree) error {
		p, err := t.Page(id)
		if err != nil || p == nil || p.Type != "document" {
			return errors.Join(err, storage.ErrSkipEditForTest)
		}
		lines := []string{"first " + id, "second", "third"}
		lines[line] = fmt.Sprint("changed ", word)
		p.SetBody(strings.Join(lines, "\n"))
		if title == 1 {
			p.Title = "edited " + id
		}
		return nil
	}
}

func headOf(t *testing.T, db *storage.DB, space, cr string) string {
	t.Helper()
	c, err := db.ChangeRequest(context.Background(), space, cr)
	if err != nil {
		t.Fatal(err)
	}
	return c.Revision
}
