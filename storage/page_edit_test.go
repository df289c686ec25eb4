package storage

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// errSkipEdit: a random edit the rules refuse (both paths must refuse it).
var errSkipEdit = errors.New("skip")

// randomPageEdit is one random page edit, run through PageTree the way the
// resolvers do (graph/pages_edit.go): the same closure on both spaces.
func randomPageEdit(rng *rand.Rand, pages []ContentPage, next int) (string, func(t PageTree) error) {
	slugs := []string{"a", "b", "c", "page", "a-2"}
	pick := func() ContentPage { return pages[rng.IntN(len(pages))] }
	at := func(i *int) string {
		if i == nil {
			return "the end"
		}
		return fmt.Sprint(*i)
	}
	index := func() *int {
		if rng.IntN(4) == 0 {
			return nil
		}
		i := rng.IntN(4) - 1 // -1 .. 2: many inserts at the same place use the gaps up
		return &i
	}
	body := func() string {
		if len(pages) > 0 && rng.IntN(2) == 0 {
			return "link:" + pick().Path
		}
		return fmt.Sprintf("body %d link:%s/x", rng.IntN(5), slugs[rng.IntN(len(slugs))])
	}
	parentOf := func(t PageTree, id string) (string, error) {
		if id == "" {
			return "", nil
		}
		p, err := t.Page(id)
		if err != nil || p == nil || p.Type == "link" {
			return "", errors.Join(err, errSkipEdit)
		}
		return id, nil
	}
	op := rng.IntN(100)
	if len(pages) == 0 || op < 35 {
		id := fmt.Sprint("n", next)
		typ := "document"
		parent := ""
		if len(pages) > 0 && rng.IntN(3) > 0 {
			parent = pick().ID
		}
		switch rng.IntN(10) {
		case 0:
			typ, parent = "group", ""
		case 1:
			typ = "link"
		}
		slug, md, idx := slugs[rng.IntN(len(slugs))], body(), index()
		return fmt.Sprintf("create %s %s (%s) under %q at %s", typ, id, slug, parent, at(idx)), func(t PageTree) error {
			p := &TreePage{ContentPage: ContentPage{ID: id, Type: typ, Title: id, Slug: slug}, Dirty: true}
			if typ == "document" {
				p.SetBody(md)
			}
			parent, err := parentOf(t, parent)
			if err != nil {
				return err
			}
			return t.Insert(p, parent, idx)
		}
	}
	target := pick()
	switch {
	case op < 55:
		parent := ""
		if rng.IntN(4) > 0 {
			parent = pick().ID
		}
		idx := index()
		return fmt.Sprintf("move %s under %q at %s", target.ID, parent, at(idx)), func(t PageTree) error {
			p, err := t.Page(target.ID)
			if err != nil || p == nil {
				return errors.Join(err, errSkipEdit)
			}
			if parent != "" {
				inside, err := t.IsUnder(parent, target.ID)
				if err != nil {
					return err
				}
				if parent == target.ID || inside || p.Type == "group" {
					return errSkipEdit
				}
			}
			parent, err := parentOf(t, parent)
			if err != nil {
				return err
			}
			return t.Move(target.ID, parent, idx)
		}
	case op < 65:
		return "delete " + target.ID, func(t PageTree) error { return t.Delete(target.ID) }
	case op < 80:
		slug := slugs[rng.IntN(len(slugs))]
		return "rename " + target.ID + " to " + slug, func(t PageTree) error {
			p, err := t.Page(target.ID)
			if err != nil || p == nil {
				return errors.Join(err, errSkipEdit)
			}
			p.Slug, p.Dirty = slug, true
			return nil
		}
	default:
		md := body()
		return "edit " + target.ID, func(t PageTree) error {
			p, err := t.Page(target.ID)
			if err != nil || p == nil || p.Type != "document" {
				return errors.Join(err, errSkipEdit)
			}
			p.SetBody(md)
			p.Title = "edited " + target.ID
			return nil
		}
	}
}

// revisionShape is what two spaces given the same edits must read the same:
// pages in tree order with parents, positions, slugs, paths, titles and
// bodies, every page's links with their status, and search answers.
func revisionShape(t *testing.T, db *DB, spaceID, rev string) string {
	t.Helper()
	ctx := context.Background()
	pages, err := db.RevisionPages(ctx, rev)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, p := range pages {
		full, err := db.RevisionPage(ctx, rev, p.ID, false)
		if err != nil {
			t.Fatal(err)
		}
		byPath, err := db.RevisionPage(ctx, rev, p.Path, true)
		if p.Path != "" && (err != nil || byPath.ID != p.ID) {
			t.Fatalf("page at %q: %s %v, want %s", p.Path, byPath.ID, err, p.ID)
		}
		fmt.Fprintf(&b, "%s %s %s parent=%s pos=%d slug=%s path=%s title=%s body=%q\n", p.ID, p.Type, full.Title, p.ParentID, p.Position, p.Slug, p.Path, p.Title, full.Markdown)
		links, _, err := db.ListLinks(ctx, rev, p.ID, "", PageQuery{Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range links.Items {
			fmt.Fprintf(&b, "  link %s %s %s %s\n", l.Kind, l.Target, l.Dest, l.Status)
		}
	}
	return b.String()
}

func searchShape(t *testing.T, db *DB, spaceID string) string {
	t.Helper()
	var b strings.Builder
	for _, q := range []string{"body", "edited", "link"} {
		hits, total, err := db.SearchPages(context.Background(), spaceID, q, 0, 100)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "%s %d:", q, total)
		var ids []string
		for _, h := range hits {
			ids = append(ids, h.Page.ID+"@"+h.Page.Path)
		}
		slices.Sort(ids)
		fmt.Fprintln(&b, ids)
	}
	return b.String()
}

// The partial path (partialTree) makes exactly the revision the whole tree
// makes for the same edit: a random sequence of creates (appended, at an
// index, nested, groups and links), moves, deletes, renames and body edits
// applied to two spaces, one through each path, every revision compared.
func TestPartialPageEditsMatchTheWholeTree(t *testing.T) {
	ctx := context.Background()
	db, spaces := twoSpaces(t)
	// A first revision through the whole tree for both: the partial path
	// needs a main line.
	for _, sp := range spaces {
		if _, err := db.CreateRevision(ctx, RevisionChange{SpaceID: sp, Activate: true, Analyzer: modelAnalyzer{}, Edit: func(tr *Tree) error {
			p := &TreePage{ContentPage: ContentPage{ID: "root", Type: "document", Title: "root", Slug: "a"}}
			p.SetBody("body root")
			tr.Pages = append(tr.Pages, p)
			return nil
		}}); err != nil {
			t.Fatal(err)
		}
	}
	rng := rand.New(rand.NewPCG(15, 23))
	// Every round compares every revision so far: the cost grows with the
	// square of the rounds, so under -race (ten times slower) 50 of them,
	// as TestRevisionStorageModel does.
	rounds := 160
	if testing.Short() || raceDetector {
		rounds = 50
	}
	var revs [][2]string
	var log []string
	partial := PageReads{}
	for round := range rounds {
		head, err := db.spaceHeadRevision(spaces[0])
		if err != nil {
			t.Fatal(err)
		}
		pages, err := db.RevisionPages(ctx, head)
		if err != nil {
			t.Fatal(err)
		}
		what, edit := randomPageEdit(rng, pages, round)
		log = append(log, what)
		var got [2]string
		var errs [2]error
		for i, sp := range spaces {
			c := RevisionChange{SpaceID: sp, Activate: true, Analyzer: modelAnalyzer{}, Pages: edit, WholeTree: i == 1}
			got[i], errs[i] = db.CreateRevision(CountingPageReads(ctx, &partial), c)
		}
		if (errs[0] == nil) != (errs[1] == nil) {
			t.Fatalf("round %d (%s): partial %v, whole tree %v", round, what, errs[0], errs[1])
		}
		if errs[0] != nil {
			if !errors.Is(errs[0], errSkipEdit) && !errors.Is(errs[0], ErrNotFound) {
				t.Fatalf("round %d (%s): %v", round, what, errs[0])
			}
			continue
		}
		revs = append(revs, got)
		a, w := revisionShape(t, db, spaces[0], got[0]), revisionShape(t, db, spaces[1], got[1])
		if a != w {
			t.Fatalf("round %d (%s) after %s:\npartial:\n%s\nwhole tree:\n%s", round, what, strings.Join(log[max(0, len(log)-8):], "; "), a, w)
		}
		if a, w := searchShape(t, db, spaces[0]), searchShape(t, db, spaces[1]); a != w {
			t.Fatalf("round %d (%s): search\npartial:\n%s\nwhole tree:\n%s", round, what, a, w)
		}
	}
	if len(revs) < rounds/2 || partial.Statements == 0 {
		t.Fatalf("%d of %d edits written, %d partial statements", len(revs), rounds, partial.Statements)
	}
	for i := 0; i < len(revs); i += 5 {
		r := revs[i]
		if a, w := revisionShape(t, db, spaces[0], r[0]), revisionShape(t, db, spaces[1], r[1]); a != w {
			t.Fatalf("revision %d read later:\npartial:\n%s\nwhole tree:\n%s", i, a, w)
		}
	}
}

// spaceHeadRevision is the space's active revision.
func (db *DB) spaceHeadRevision(spaceID string) (string, error) {
	var rev string
	err := db.r().QueryRowContext(context.Background(), `SELECT revision_id FROM spaces WHERE id = ?`, spaceID).Scan(&rev)
	return rev, err
}

// A move under the page's own subtree, unchecked by the caller, is refused
// by both paths (the whole tree no longer holds the parent) and writes
// nothing.
func TestPageMoveUnderItselfRefused(t *testing.T) {
	ctx := context.Background()
	db, sp := testSpace(t)
	if _, err := db.CreateRevision(ctx, RevisionChange{SpaceID: sp.ID, Activate: true, Edit: func(tr *Tree) error {
		child := &TreePage{ContentPage: ContentPage{ID: "child", Type: "document", Title: "c", Slug: "c"}, Dirty: true}
		tr.Pages = []*TreePage{{ContentPage: ContentPage{ID: "top", Type: "document", Title: "t", Slug: "t"}, Dirty: true, Children: []*TreePage{child}}}
		return nil
	}}); err != nil {
		t.Fatal(err)
	}
	head, _ := db.spaceHeadRevision(sp.ID)
	for _, whole := range []bool{false, true} {
		for _, parent := range []string{"top", "child"} {
			_, err := db.CreateRevision(ctx, RevisionChange{SpaceID: sp.ID, Activate: true, WholeTree: whole,
				Pages: func(pt PageTree) error { return pt.Move("top", parent, nil) }})
			if !errors.Is(err, ErrNotFound) {
				t.Errorf("whole tree %v, under %s: %v", whole, parent, err)
			}
		}
	}
	if now, _ := db.spaceHeadRevision(sp.ID); now != head {
		t.Fatalf("a refused move wrote revision %s", now)
	}
}

// overlayShape is how a change request's head is stored: its base and its
// overlay rows (a removal row as "removed"; versions differ between two
// spaces only by their write times, which revisionShape compares through
// the content).
func overlayShape(t *testing.T, db *DB, rev string) string {
	t.Helper()
	ctx := context.Background()
	var base sql.NullInt64
	if err := db.r().QueryRowContext(ctx, `SELECT base_seq FROM revisions WHERE id = ?`, rev).Scan(&base); err != nil {
		t.Fatal(err)
	}
	rows, err := db.r().QueryContext(ctx, `SELECT page_id, version, parent_id, position, path FROM overlay_pages WHERE revision_id = ? ORDER BY page_id`, rev)
	var b strings.Builder
	fmt.Fprintf(&b, "base %v\n", base)
	if err := eachRow(rows, err, func(sc interface{ Scan(...any) error }) error {
		var r pageRow
		err := sc.Scan(&r.ID, &r.Version, &r.ParentID, &r.Position, &r.Path)
		if r.Version == "" {
			fmt.Fprintf(&b, "%s removed\n", r.ID)
		} else {
			fmt.Fprintf(&b, "%s parent=%s pos=%d path=%s\n", r.ID, r.ParentID, r.Position, r.Path)
		}
		return err
	}); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// The partial path makes exactly the revision the whole tree makes on a
// change request too: a random sequence of page edits on two change
// requests of two spaces holding the same content, one through the whole
// tree, with edits of the main content in between (the main line moves on
// past the change requests' base: main@base_seq then holds closed rows)
// and now and then an update from the main content (a new base); every
// head compared as read and as stored, then both merged and the main
// content compared.
func TestPartialChangeRequestEditsMatchTheWholeTree(t *testing.T) {
	ctx := context.Background()
	db, spaces, crs, _ := twoSpacesWithChangeRequests(t, func(tr *Tree) {
		for _, id := range []string{"root", "other"} {
			p := &TreePage{ContentPage: ContentPage{ID: id, Type: "document", Title: id, Slug: "a"}}
			p.SetBody("body " + id)
			tr.Pages = append(tr.Pages, p)
		}
	})
	head := func(i int) string {
		t.Helper()
		cr, err := db.ChangeRequest(ctx, spaces[i], crs[i])
		if err != nil {
			t.Fatal(err)
		}
		return cr.Revision
	}
	rng := rand.New(rand.NewPCG(24, 15))
	// Every round compares how both heads are stored and reads them whole:
	// the reads cost in proportion to the pages, so under -race (ten
	// times slower) 50 rounds, reading every fifth head whole.
	rounds, readEvery := 160, 1
	if testing.Short() || raceDetector {
		rounds, readEvery = 50, 5
	}
	var log []string
	partial := PageReads{}
	written := 0
	for round := range rounds {
		onMain := rng.IntN(5) == 0
		if rng.IntN(25) == 0 {
			// An update from the main content: the change request's
			// content on a new base (written whole by both).
			for i, sp := range spaces {
				if _, err := db.MergeChangeRequest(ctx, MergeChange{SpaceID: sp, ChangeRequest: crs[i], Update: true, Analyzer: modelAnalyzer{},
					Merge: func(_, _, branch *Tree) (*Tree, error) { return branch, nil }}); err != nil {
					t.Fatal(err)
				}
			}
			log = append(log, "update")
		}
		from := head(0)
		if onMain {
			from, _ = db.spaceHeadRevision(spaces[0])
		}
		pages, err := db.RevisionPages(ctx, from)
		if err != nil {
			t.Fatal(err)
		}
		what, edit := randomPageEdit(rng, pages, round)
		if onMain {
			what = "main: " + what
		}
		log = append(log, what)
		var got [2]string
		var errs [2]error
		for i, sp := range spaces {
			c := RevisionChange{SpaceID: sp, Analyzer: modelAnalyzer{}, Pages: edit, WholeTree: i == 1}
			if onMain {
				c.Activate, c.WholeTree = true, false
			} else {
				c.ChangeRequest = crs[i]
			}
			cctx := ctx
			if !onMain {
				cctx = CountingPageReads(ctx, &partial)
			}
			got[i], errs[i] = db.CreateRevision(cctx, c)
		}
		if (errs[0] == nil) != (errs[1] == nil) {
			t.Fatalf("round %d (%s): partial %v, whole tree %v", round, what, errs[0], errs[1])
		}
		if errs[0] != nil {
			if !errors.Is(errs[0], errSkipEdit) && !errors.Is(errs[0], ErrNotFound) {
				t.Fatalf("round %d (%s): %v", round, what, errs[0])
			}
			continue
		}
		if onMain {
			continue
		}
		written++
		if h := [2]string{head(0), head(1)}; h != got {
			t.Fatalf("round %d: heads %v, written %v", round, h, got)
		}
		recent := strings.Join(log[max(0, len(log)-8):], "; ")
		if a, w := overlayShape(t, db, got[0]), overlayShape(t, db, got[1]); a != w {
			t.Fatalf("round %d (%s) after %s: stored\npartial:\n%s\nwhole tree:\n%s", round, what, recent, a, w)
		}
		if written%readEvery != 0 && round < rounds-1 {
			continue
		}
		if a, w := revisionShape(t, db, spaces[0], got[0]), revisionShape(t, db, spaces[1], got[1]); a != w {
			t.Fatalf("round %d (%s) after %s:\npartial:\n%s\nwhole tree:\n%s", round, what, recent, a, w)
		}
	}
	if written < rounds/3 || partial.Statements == 0 {
		t.Fatalf("%d of %d edits written in the change requests, %d partial statements", written, rounds, partial.Statements)
	}
	// A content-only edit (RevisionChange.Page) of a page of the change
	// requests: one row through the partial path, as the whole tree writes.
	pages, err := db.RevisionPages(ctx, head(0))
	if err != nil || len(pages) == 0 {
		t.Fatal(pages, err)
	}
	page := pages[len(pages)/2].ID
	var got [2]string
	for i, sp := range spaces {
		var r PageReads
		got[i], err = db.CreateRevision(CountingPageReads(ctx, &r), RevisionChange{SpaceID: sp, ChangeRequest: crs[i], Analyzer: modelAnalyzer{}, Page: page, WholeTree: i == 1,
			Edit: func(tr *Tree) error {
				p, _, _ := tr.Find(page)
				p.SetBody("edited body link:a")
				return nil
			}})
		if err != nil || (r.Statements == 0) != (i == 1) {
			t.Fatalf("one-page edit of %s (whole tree %v): %v, %d statements", page, i == 1, err, r.Statements)
		}
	}
	if a, w := overlayShape(t, db, got[0]), overlayShape(t, db, got[1]); a != w {
		t.Fatalf("one-page edit: stored\npartial:\n%s\nwhole tree:\n%s", a, w)
	}
	if a, w := revisionShape(t, db, spaces[0], got[0]), revisionShape(t, db, spaces[1], got[1]); a != w {
		t.Fatalf("one-page edit:\npartial:\n%s\nwhole tree:\n%s", a, w)
	}
	var merged [2]string
	for i, sp := range spaces {
		rev, err := db.MergeChangeRequest(ctx, MergeChange{SpaceID: sp, ChangeRequest: crs[i], Analyzer: modelAnalyzer{},
			Merge: func(_, _, branch *Tree) (*Tree, error) { return branch, nil }})
		if err != nil {
			t.Fatal(err)
		}
		merged[i] = rev
	}
	if a, w := revisionShape(t, db, spaces[0], merged[0]), revisionShape(t, db, spaces[1], merged[1]); a != w {
		t.Fatalf("merged:\npartial:\n%s\nwhole tree:\n%s", a, w)
	}
	if a, w := searchShape(t, db, spaces[0]), searchShape(t, db, spaces[1]); a != w {
		t.Fatalf("merged: search\npartial:\n%s\nwhole tree:\n%s", a, w)
	}
	t.Logf("%d change-request edits written (%d updates), %d partial statements", written, strings.Count(strings.Join(log, ";"), "update"), partial.Statements)
}
