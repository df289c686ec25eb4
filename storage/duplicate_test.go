package storage_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"docsapi/merge"
	"docsapi/storage"
)

// dupPair is two spaces that must read the same: a is made and edited
// through DuplicateSpace (the path under test), b through duplicateWhole
// (the whole copy, the reference). Page ids are the same on both sides.
type dupPair struct {
	name  string
	a, b  string
	from  *dupPair // the pair it duplicates (nil: the first)
	depth int      // duplicates from the first (0: the first)
}

// TestDuplicateMatchesWholeCopy: DuplicateSpace makes what the whole copy
// makes, and every later write reads the same on both. World a starts from
// a source space, world b from its twin (the same pages, the same ids);
// the twin is only ever copied whole. Random rounds pick a pair and do to
// both of its spaces the same thing: a page edit of the main content (the
// partial path), a batched import (pages added, one edited), a change
// request with a few edits merged (now and then updated from the main
// content first), a file added or removed, a
// duplicate (a of a through DuplicateSpace, b of b through duplicateWhole;
// a duplicate of a duplicate too), or the pair trashed and purged (the
// source of duplicates that stay too); the script must have done each. After every round each live pair's
// active revision (pages, bodies, paths, links and their status, files,
// backlinks of every page and file) and search answers must read the same;
// every ten rounds every revision of every pair too.
//
// The script runs with two seeds: the second with source lists
// bounded at two (a duplicate of a duplicate of a duplicate takes in the
// rows of its deepest sources), and more duplicates kept at once, so that
// chains of sharing duplicates are edited at every level.
func TestDuplicateMatchesWholeCopy(t *testing.T) {
	seeds := []uint64{8, 11}
	if testing.Short() || storage.RaceDetectorForTest {
		seeds = seeds[:1]
	}
	for i, seed := range seeds {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			deep := i > 0
			if deep {
				storage.SetMaxSourcesForTest(t, 2)
			}
			duplicateScript(t, seed, deep)
		})
	}
}

// duplicateScript runs one random script; deep: up to seven pairs, and
// half the rounds on the newest pair (the end of the longest chain).
func duplicateScript(t *testing.T, seed uint64, deep bool) {
	maxPairs := 5
	if deep {
		maxPairs = 7
	}
	ctx := context.Background()
	// Purges delete a few rows a write, after the sources' forks took in
	// what they read of them.
	storage.SetPurgeBatchRowsForTest(t, 3)
	db, first := storage.TwoSpacesForTest(t)
	// Imports index their three pages ahead, in a chunk of the index past
	// the space's next doc number: the spaces' indexes span several
	// chunks, some of them past what a duplicate reads of its source.
	db.SetImportBatchForTest(2)
	user := storage.FirstUserForTest(t, db)
	an := storage.ModelAnalyzerForTest
	for _, sp := range first {
		if _, err := db.CreateRevision(ctx, storage.RevisionChange{SpaceID: sp, Activate: true, Analyzer: an, Edit: func(tr *storage.Tree) error {
			for i := range 12 {
				p := &storage.TreePage{ContentPage: storage.ContentPage{ID: fmt.Sprint("p", i), Type: "document", Title: fmt.Sprint("p", i), Slug: fmt.Sprint("s", i)}, Dirty: true}
				p.SetBody(fmt.Sprintf("body p%d link:s%d", i, (i+5)%12))
				if i > 0 && i%3 != 0 {
					tr.Pages[len(tr.Pages)-1].Children = append(tr.Pages[len(tr.Pages)-1].Children, p)
				} else {
					tr.Pages = append(tr.Pages, p)
				}
			}
			for _, n := range []string{"a.png", "b.txt"} {
				tr.Files = append(tr.Files, &storage.File{ID: "f-" + n, Name: n, ContentType: "text/plain", Bytes: []byte("bytes of " + n)})
			}
			return nil
		}}); err != nil {
			t.Fatal(err)
		}
	}
	pairs := []*dupPair{{name: "source", a: first[0], b: first[1]}}
	rng := rand.New(rand.NewPCG(32, seed))
	// Half the rounds under -short or -race, and on PostgreSQL (its run
	// twice as long; the SQLite run without -race takes the whole script).
	rounds := 60
	if testing.Short() || storage.RaceDetectorForTest || os.Getenv("DOCSAPI_TEST_DB") != "" {
		rounds = 30
	}
	var log []string
	fail := func(round int, format string, args ...any) {
		t.Helper()
		t.Fatalf("round %d after %s: %s", round, strings.Join(log[max(0, len(log)-10):], "; "), fmt.Sprintf(format, args...))
	}
	next := 0
	counts := map[string]int{}
	for round := range rounds {
		p := pairs[rng.IntN(len(pairs))]
		if deep && rng.IntN(2) == 0 {
			p = pairs[len(pairs)-1]
		}
		head, err := storage.SpaceHeadForTest(db, p.a)
		if err != nil {
			t.Fatal(err)
		}
		pages, err := db.RevisionPages(ctx, head)
		if err != nil {
			t.Fatal(err)
		}
		both := func(what string, f func(space string) error) bool {
			t.Helper()
			log = append(log, p.name+": "+what)
			if slices.ContainsFunc(pairs, func(q *dupPair) bool { return q.from == p }) {
				counts["write to a source"]++
			}
			if p.from != nil {
				counts["write to a duplicate"]++
			}
			ea, eb := f(p.a), f(p.b)
			if (ea == nil) != (eb == nil) {
				fail(round, "%s: duplicate %v, whole copy %v", what, ea, eb)
			}
			var ca, cb *merge.ConflictError
			if errors.As(ea, &ca) != errors.As(eb, &cb) {
				fail(round, "%s: duplicate %v, whole copy %v", what, ea, eb)
			}
			if ea != nil && ca == nil && !errors.Is(ea, storage.ErrSkipEditForTest) && !errors.Is(ea, storage.ErrNotFound) {
				fail(round, "%s: %v", what, ea)
			}
			return ea == nil
		}
		switch op := rng.IntN(100); {
		case op < 5:
			// A batched import (staged, then published on the main line
			// in one statement: import_batch.go): pages added, two the
			// space has edited (their rows closed and written ahead).
			next++
			n, edited, also := next, "", ""
			if len(pages) > 0 {
				k := rng.IntN(len(pages))
				edited, also = pages[k].ID, pages[(k+1)%len(pages)].ID
			}
			if p.from != nil || slices.ContainsFunc(pairs, func(q *dupPair) bool { return q.from == p }) {
				counts["import into a sharing space"]++
			}
			if both(fmt.Sprintf("import imp%d-*, %s and %s edited", n, edited, also), func(sp string) error {
				_, err := db.CreateRevision(ctx, storage.RevisionChange{SpaceID: sp, Activate: true, Analyzer: an, Batched: true, Edit: func(tr *storage.Tree) error {
					for k := range 3 {
						id := fmt.Sprintf("imp%d-%d", n, k)
						p := &storage.TreePage{ContentPage: storage.ContentPage{ID: id, Type: "document", Title: id, Slug: id}, Dirty: true}
						p.SetBody(fmt.Sprintf("imported %s link:s%d", id, k))
						tr.Pages = append(tr.Pages, p)
					}
					for _, id := range []string{edited, also} {
						if p, _, _ := tr.Find(id); p != nil {
							p.SetBody(fmt.Sprintf("import %d rewrote this", n))
							p.Dirty = true
						}
					}
					return nil
				}})
				return err
			}) {
				counts["import"]++
			}
		case op < 45:
			next++
			what, edit := storage.RandomPageEditForTest(rng, pages, next)
			if both(what, func(sp string) error {
				_, err := db.CreateRevision(ctx, storage.RevisionChange{SpaceID: sp, Activate: true, Analyzer: an, Pages: edit})
				return err
			}) {
				counts["edit"]++
			}
		case op < 70:
			var edits []func(storage.PageTree) error
			var whats []string
			for range 1 + rng.IntN(3) {
				next++
				what, edit := storage.RandomPageEditForTest(rng, pages, next)
				whats, edits = append(whats, what), append(edits, edit)
			}
			update := rng.IntN(3) == 0
			var mainEdit func(storage.PageTree) error
			if update || rng.IntN(2) == 0 {
				next++
				var what string
				what, mainEdit = storage.RandomPageEditForTest(rng, pages, next)
				whats = append(whats, "main: "+what)
			}
			if both(fmt.Sprintf("change request (%s), update %v", strings.Join(whats, ", "), update), func(sp string) error {
				cr, err := db.CreateChangeRequest(ctx, "", sp, user, "cr", nil)
				if err != nil {
					return err
				}
				for _, e := range edits {
					if _, err := db.CreateRevision(ctx, storage.RevisionChange{SpaceID: sp, ChangeRequest: cr.ID, Author: user, Analyzer: an, Pages: e}); err != nil && !errors.Is(err, storage.ErrSkipEditForTest) && !errors.Is(err, storage.ErrNotFound) {
						return err
					}
				}
				if mainEdit != nil {
					if _, err := db.CreateRevision(ctx, storage.RevisionChange{SpaceID: sp, Activate: true, Analyzer: an, Pages: mainEdit}); err != nil && !errors.Is(err, storage.ErrSkipEditForTest) && !errors.Is(err, storage.ErrNotFound) {
						return err
					}
				}
				m := storage.MergeChange{SpaceID: sp, ChangeRequest: cr.ID, Analyzer: an, Merge: merge.Trees}
				if update {
					m.Update = true
					if _, err := db.MergeChangeRequest(ctx, m); err != nil {
						return err
					}
					m.Update = false
				}
				_, err = db.MergeChangeRequest(ctx, m)
				return err
			}) {
				counts["change request"]++
			}
		case op < 82:
			name := []string{"a.png", "b.txt", "c.pdf"}[rng.IntN(3)]
			remove := rng.IntN(2) == 0
			next++
			body := fmt.Sprint("bytes ", next)
			if both(fmt.Sprintf("file %s removed %v", name, remove), func(sp string) error {
				_, err := db.CreateRevision(ctx, storage.RevisionChange{SpaceID: sp, Activate: true, Analyzer: an, Edit: func(tr *storage.Tree) error {
					if remove {
						tr.Files = slices.DeleteFunc(tr.Files, func(f *storage.File) bool { return f.Name == name })
					} else {
						tr.Files = append(tr.Files, &storage.File{ID: fmt.Sprint("f", next), Name: name, ContentType: "text/plain", Bytes: []byte(body)})
					}
					return nil
				}})
				return err
			}) {
				counts["file"]++
			}
		case op < 92:
			if len(pairs) >= maxPairs {
				continue
			}
			name := fmt.Sprintf("copy %d of %s", round, p.name)
			log = append(log, "duplicate "+p.name)
			if storage.SearchChunksForTest(t, db, p.a) >= 2 {
				counts["duplicate of a space of several chunks"]++
			}
			a, err := db.DuplicateSpace(ctx, p.a, name)
			if err != nil {
				fail(round, "duplicate: %v", err)
			}
			b, err := db.DuplicateWholeForTest(ctx, p.b, name)
			if err != nil {
				fail(round, "whole copy: %v", err)
			}
			// The duplicate reads its source's index: it holds no index
			// row of its own (unless its source list was cut short).
			if n := storage.SearchIndexRowsForTest(t, db, a); n != 0 && !deep {
				fail(round, "duplicate holds %d index rows of its own", n)
			}
			pairs = append(pairs, &dupPair{name: name, a: a, b: b, from: p, depth: p.depth + 1})
			if p.depth+1 >= 3 {
				counts["duplicate three deep"]++
			}
			counts["duplicate"]++
			if p.from != nil {
				counts["duplicate of a duplicate"]++
			}
		default:
			if len(pairs) < 3 {
				continue
			}
			log = append(log, "purge "+p.name)
			for _, sp := range []string{p.a, p.b} {
				if _, err := db.TrashSpace(ctx, sp); err != nil {
					fail(round, "trash: %v", err)
				}
			}
			if n, err := db.PurgeSpaces(ctx, time.Now().Add(time.Hour)); err != nil || n != 2 {
				fail(round, "purge: %d %v", n, err)
			}
			pairs = slices.DeleteFunc(pairs, func(q *dupPair) bool { return q == p })
			counts["purge"]++
			if slices.ContainsFunc(pairs, func(q *dupPair) bool { return q.from == p }) {
				counts["purge of a source"]++
			}
		}
		for _, q := range pairs {
			ha, err := storage.SpaceHeadForTest(db, q.a)
			if err != nil {
				t.Fatal(err)
			}
			hb, err := storage.SpaceHeadForTest(db, q.b)
			if err != nil {
				t.Fatal(err)
			}
			if a, b := storage.DupShapeForTest(t, db, q.a, ha), storage.DupShapeForTest(t, db, q.b, hb); a != b {
				fail(round, "%s reads\n%s\nthe whole copy\n%s", q.name, a, b)
			}
			if a, b := storage.DupSearchShapeForTest(t, db, q.a), storage.DupSearchShapeForTest(t, db, q.b); a != b {
				fail(round, "%s searches\n%s\nthe whole copy\n%s", q.name, a, b)
			}
			if round%10 == 9 || round == rounds-1 {
				if a, b := spacesSearchShape(t, db, pairs, func(q *dupPair) string { return q.a }), spacesSearchShape(t, db, pairs, func(q *dupPair) string { return q.b }); a != b {
					fail(round, "searching every space reads\n%s\nthe whole copies\n%s", a, b)
				}
				if a, b := storage.HistoryShapeForTest(t, db, q.a), storage.HistoryShapeForTest(t, db, q.b); a != b {
					fail(round, "%s's revisions read\n%s\nthe whole copy's\n%s", q.name, a, b)
				}
			}
		}
	}
	t.Logf("rounds: %v; %d pairs at the end", counts, len(pairs))
	whats := []string{"edit", "import", "change request", "file", "duplicate", "duplicate of a duplicate", "purge", "purge of a source", "write to a source", "write to a duplicate", "import into a sharing space", "duplicate of a space of several chunks"}
	if deep {
		whats = append(whats, "duplicate three deep")
	}
	for _, what := range whats {
		if counts[what] == 0 {
			t.Fatalf("no %s in %d rounds (%v): the script does not exercise it", what, rounds, counts)
		}
	}
}

// spacesSearchShape is SearchSpaces over the spaces space picks of every
// pair, each space named by its pair (ties between spaces are ordered by
// id, which differ between the worlds, so the lines are sorted).
func spacesSearchShape(t *testing.T, db *storage.DB, pairs []*dupPair, space func(*dupPair) string) string {
	t.Helper()
	var ids []string
	names := map[string]string{}
	for _, q := range pairs {
		ids = append(ids, space(q))
		names[space(q)] = q.name
	}
	var b strings.Builder
	for _, text := range []string{"body", "imported", "p1"} {
		hits, total, err := db.SearchSpaces(context.Background(), ids, text, 0, 100, 3)
		if err != nil {
			t.Fatal(err)
		}
		var lines []string
		for _, h := range hits {
			line := names[h.SpaceID] + ":"
			for _, p := range h.Pages {
				line += fmt.Sprintf(" %s %v", p.Page.ID, p.Sections)
			}
			lines = append(lines, line)
		}
		slices.Sort(lines)
		fmt.Fprintf(&b, "%q %d\n%s\n", text, total, strings.Join(lines, "\n"))
	}
	return b.String()
}
