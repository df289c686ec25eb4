package storage

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// A chain of sharing duplicates made without writes in between reads the
// original's index at every link, also the links whose source list was
// cut short (maxSources: they copy in the chunks of the deepest sources),
// and keeps reading it after the original and a middle link are purged
// (handOverChunks, along the chain). The index spans two chunks (an
// import written ahead), so the lists hold chunk counts past 1.
func TestSearchShareChain(t *testing.T) {
	ctx := context.Background()
	db, spaces := testSpaceWithIndex(t)
	want := DupSearchShapeForTest(t, db, spaces)
	if n := SearchChunksForTest(t, db, spaces); n < 2 {
		t.Fatalf("the index spans %d chunks, want 2 or more", n)
	}
	was := maxSources
	maxSources = 2
	t.Cleanup(func() { maxSources = was })
	chain := []string{spaces}
	for range 4 {
		d, err := db.duplicateShared(ctx, chain[len(chain)-1], "copy")
		if err != nil {
			t.Fatal(err)
		}
		chain = append(chain, d)
	}
	for i, sp := range chain {
		if got := DupSearchShapeForTest(t, db, sp); got != want {
			t.Fatalf("link %d searches\n%s\nthe original\n%s", i, got, want)
		}
	}
	if n := SearchIndexRowsForTest(t, db, chain[3]); n == 0 {
		t.Fatal("the link past the bound holds no row: it did not copy in its deepest source's chunks")
	}
	for _, sp := range []string{chain[0], chain[2]} {
		if _, err := db.TrashSpace(ctx, sp); err != nil {
			t.Fatal(err)
		}
	}
	if n, err := db.PurgeSpaces(ctx, time.Now().Add(time.Hour)); err != nil || n != 2 {
		t.Fatalf("purge: %d %v", n, err)
	}
	for _, i := range []int{1, 3, 4} {
		if got := DupSearchShapeForTest(t, db, chain[i]); got != want {
			t.Fatalf("after the purge, link %d searches\n%s\nthe original\n%s", i, got, want)
		}
	}
}

// testSpaceWithIndex is a space of 12 pages indexed for search and three
// more imported ahead (a second chunk of the index).
func testSpaceWithIndex(t *testing.T) (*DB, string) {
	t.Helper()
	ctx := context.Background()
	db, sp := testSpace(t)
	db.importBatch = 2
	for k, batched := range []bool{false, true} {
		if _, err := db.CreateRevision(ctx, RevisionChange{SpaceID: sp.ID, Activate: true, Analyzer: modelAnalyzer{}, Batched: batched, Edit: func(tr *Tree) error {
			for i := range 12 - 9*k {
				id := fmt.Sprintf("p%d-%d", k, i)
				p := &TreePage{ContentPage: ContentPage{ID: id, Type: "document", Title: id, Slug: id}, Dirty: true}
				p.SetBody(fmt.Sprintf("body %s link:p0-%d imported", id, i))
				tr.Pages = append(tr.Pages, p)
			}
			return nil
		}}); err != nil {
			t.Fatal(err)
		}
	}
	return db, sp.ID
}

// A sharing duplicate transferred to another organization stops sharing
// index rows with the one it leaves, both ways (unshareSearch): no source
// list crosses organizations, and each space still searches as before,
// also after its former source changes the chunks they shared.
func TestSearchShareEndsAtTransfer(t *testing.T) {
	ctx := context.Background()
	db, sp := testSpaceWithIndex(t)
	want := DupSearchShapeForTest(t, db, sp)
	dup, err := db.duplicateShared(ctx, sp, "copy")
	if err != nil {
		t.Fatal(err)
	}
	dupOfDup, err := db.duplicateShared(ctx, dup, "copy of copy")
	if err != nil {
		t.Fatal(err)
	}
	other, err := db.CreateOrganizationWithAdmin(ctx, "Other", "b@example.com", "B", "h2")
	if err != nil {
		t.Fatal(err)
	}
	if err := db.TransferSpace(ctx, dup, other.Organization.ID); err != nil {
		t.Fatal(err)
	}
	var crossing int
	if err := db.r().QueryRowContext(ctx, `SELECT COUNT(*) FROM search_sources ss
 JOIN spaces a ON a.id = ss.space_id JOIN spaces b ON b.id = ss.source_id
 WHERE a.organization_id <> b.organization_id`).Scan(&crossing); err != nil {
		t.Fatal(err)
	}
	if crossing != 0 {
		t.Fatalf("%d source lists cross organizations after the transfer", crossing)
	}
	for _, s := range []string{sp, dup, dupOfDup} {
		if got := DupSearchShapeForTest(t, db, s); got != want {
			t.Fatalf("after the transfer, %s searches\n%s\nthe original\n%s", s, got, want)
		}
	}
	// The original rewrites its first chunk: the transferred space keeps
	// what it had.
	if _, err := db.CreateRevision(ctx, RevisionChange{SpaceID: sp, Activate: true, Analyzer: modelAnalyzer{}, Edit: func(tr *Tree) error {
		for _, p := range tr.Pages {
			if p.ID == "p0-0" {
				p.SetBody("rewritten")
				p.Dirty = true
			}
		}
		return nil
	}}); err != nil {
		t.Fatal(err)
	}
	if got := DupSearchShapeForTest(t, db, dup); got != want {
		t.Fatalf("after its former source changed, the transferred space searches\n%s\nbefore\n%s", got, want)
	}
	if got := DupSearchShapeForTest(t, db, sp); got == want {
		t.Fatal("the original's edit changed nothing its search shows: the test edits nothing")
	}
}
