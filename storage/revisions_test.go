package storage

import (
	"context"
	"strconv"
	"testing"
)

type testAnalyzer struct{}

func (testAnalyzer) Links(p *TreePage, t *Tree) []PageLink { return nil }
func (testAnalyzer) Sections(p *TreePage) []SearchSection {
	return []SearchSection{{Title: p.Title, Body: p.Markdown}}
}

func count(t *testing.T, db *DB, q string, args ...any) int {
	t.Helper()
	var n int
	if err := db.r().QueryRowContext(context.Background(), q, args...).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// A revision that changes one page adds one page version; the other pages
// are shared with the parent revision.
func TestRevisionsShareUnchangedPages(t *testing.T) {
	ctx := context.Background()
	db, sp := testSpace(t)
	space := sp.ID
	first, err := db.CreateRevision(ctx, RevisionChange{SpaceID: space, Activate: true, Analyzer: testAnalyzer{}, Edit: func(tr *Tree) error {
		for i := range 50 {
			id := "p" + strconv.Itoa(i)
			tr.Pages = append(tr.Pages, &TreePage{ContentPage: ContentPage{ID: id, Type: "document", Title: id, Slug: id, Markdown: "body " + id}, Dirty: true})
		}
		return nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	if n := count(t, db, `SELECT COUNT(*) FROM page_versions`); n != 50 {
		t.Fatalf("versions after first revision: %d", n)
	}
	second, err := db.CreateRevision(ctx, RevisionChange{SpaceID: space, Activate: true, Analyzer: testAnalyzer{}, Edit: func(tr *Tree) error {
		p, _, _ := tr.Find("p7")
		p.SetBody("changed")
		return nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	if n := count(t, db, `SELECT COUNT(*) FROM page_versions`); n != 51 {
		t.Fatalf("versions after a one-page change: %d, want 51", n)
	}
	// Both are on the main line (seq 1 and 2): a row spanning both is
	// shared, and its version with it.
	if n := count(t, db, `SELECT COUNT(*) FROM main_pages m JOIN revisions a ON a.id = ? JOIN revisions b ON b.id = ?
 WHERE m.space_id = ? AND m.from_seq <= a.seq AND m.to_seq > b.seq`, first, second, space); n != 49 {
		t.Fatalf("shared versions: %d, want 49", n)
	}
	firstPages, _ := db.RevisionPages(ctx, first)
	secondPages, _ := db.RevisionPages(ctx, second)
	shared := 0
	for i := range firstPages {
		if i < len(secondPages) && firstPages[i].ID == secondPages[i].ID && firstPages[i].Version == secondPages[i].Version {
			shared++
		}
	}
	if shared != 49 || len(secondPages) != 50 {
		t.Fatalf("shared versions read back: %d of %d, want 49 of 50", shared, len(secondPages))
	}
	// A change of title only keeps the body (read back from the version).
	if _, err := db.CreateRevision(ctx, RevisionChange{SpaceID: space, Activate: true, Analyzer: testAnalyzer{}, Edit: func(tr *Tree) error {
		p, _, _ := tr.Find("p8")
		p.Title, p.Dirty = "Renamed", true
		return nil
	}}); err != nil {
		t.Fatal(err)
	}
	head0, _ := db.SpaceHead(ctx, space)
	if p8, _ := db.RevisionPage(ctx, head0.Revision, "p8", false); p8.Title != "Renamed" || p8.Markdown != "body p8" {
		t.Fatalf("title-only change: %+v", p8)
	}
	old, err := db.RevisionPage(ctx, first, "p7", false)
	if err != nil || old.Markdown != "body p7" {
		t.Fatalf("the old revision is unchanged: %+v %v", old, err)
	}
	if _, err := db.RevisionByID(ctx, space, second); err != nil {
		t.Fatal(err)
	}
	hits, n, err := db.SearchPages(ctx, space, "changed", 0, 10)
	if err != nil || n != 1 || hits[0].Page.ID != "p7" {
		t.Fatalf("search follows the active revision: %v %d %v", hits, n, err)
	}
	if _, n, _ := db.SearchPages(ctx, space, "body p7", 0, 10); n != 0 {
		t.Fatalf("the old text of p7 is still indexed")
	}
}
