package storage

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// readerView is what readers of a space see: its active revision's pages
// in tree order, searches (hits in rank order, with the total), and the
// space's search stats (doc count, total length, next doc).
func readerView(t *testing.T, db *DB, spaceID string) string {
	t.Helper()
	ctx := context.Background()
	rev, err := db.spaceHeadRevision(spaceID)
	if err != nil {
		t.Fatal(err)
	}
	pages, err := db.RevisionPages(ctx, rev)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "revision %s\n", rev)
	for _, p := range pages {
		fmt.Fprintf(&b, "%s v=%s parent=%s pos=%d path=%s\n", p.ID, p.Version, p.ParentID, p.Position, p.Path)
	}
	for _, q := range []string{"imported", "old", "body", "page", "part", "revised"} {
		hits, total, err := db.SearchPages(ctx, spaceID, q, 0, 50)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "search %q %d:", q, total)
		for _, h := range hits {
			fmt.Fprintf(&b, " %s@%s", h.Page.ID, h.Page.Path)
		}
		b.WriteString("\n")
	}
	stats, err := readSpaceStats(ctx, db.r(), spaceID)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(&b, "index docs=%d length=%d\n", stats.docs, stats.length)
	return b.String()
}

// searchQueries are a space's search-index rows (postings, chunk lengths,
// docs: not its stats row), each as a key and its bytes.
var searchQueries = []string{
	`SELECT term || ':' || chunk, docs FROM search_postings WHERE space_id = ? ORDER BY term, chunk`,
	`SELECT '' || chunk, lens FROM search_chunks WHERE space_id = ? ORDER BY chunk`,
	`SELECT page_id || ':' || doc, sections FROM search_pages WHERE space_id = ? ORDER BY page_id, doc`,
}

// searchRows dumps a space's search-index rows (searchQueries).
func searchRows(t *testing.T, db *DB, spaceID string) string {
	t.Helper()
	return dumpRows(t, db, spaceID, searchQueries...)
}

// indexRows dumps a space's search rows and its main-line rows (what a
// failed import must leave as it found them).
func indexRows(t *testing.T, db *DB, spaceID string) string {
	t.Helper()
	return dumpRows(t, db, spaceID, append(searchQueries,
		`SELECT page_id || ':' || from_seq || ':' || to_seq, version FROM main_pages WHERE space_id = ? ORDER BY page_id, from_seq`)...)
}

// dumpRows runs queries (a key and bytes per row, the space their one
// argument) and lists their rows.
func dumpRows(t *testing.T, db *DB, spaceID string, queries ...string) string {
	t.Helper()
	var b strings.Builder
	for _, q := range queries {
		rows, err := db.r().QueryContext(context.Background(), q, spaceID)
		if err := eachRow(rows, err, func(sc interface{ Scan(...any) error }) error {
			var k string
			var v []byte
			err := sc.Scan(&k, &v)
			fmt.Fprintf(&b, "%s=%x\n", k, v)
			return err
		}); err != nil {
			t.Fatal(err)
		}
	}
	return b.String()
}

// Between two batches (after the first, and after the last, with every
// new page's rows and index entries written ahead) a reader sees the old
// content whole: the same pages, the same searches with the same ranks and
// totals, the same index stats; a page edit of the space made then (a
// partial edit: it reads the space's alive rows) sees none of the import
// (its page's path and place are what they would be without it). After
// the publication the reader sees the import whole.
func TestReaderBetweenBatchesSeesOldContentWhole(t *testing.T) {
	ctx := context.Background()
	db, sp := importDB(t, 100)
	before := readerView(t, db, sp.ID)
	const n = 1000
	batches := (n + n/100 + 99) / 100
	seen := 0
	db.afterImportBatch = func(batch int) error {
		if batch != 0 && batch != batches-1 {
			return nil
		}
		seen++
		if now := readerView(t, db, sp.ID); now != before {
			return fmt.Errorf("after batch %d the reader sees:\n%s\nwant:\n%s", batch, now, before)
		}
		return nil
	}
	if _, err := db.CreateRevision(ctx, RevisionChange{SpaceID: sp.ID, Activate: true, Analyzer: modelAnalyzer{}, Batched: true, Edit: importEdit(n)}); err != nil {
		t.Fatal(err)
	}
	if seen != 2 {
		t.Fatalf("looked between batches %d times", seen)
	}
	after := readerView(t, db, sp.ID)
	if !strings.Contains(after, "imp-999 ") || !strings.Contains(after, `search "imported" 1000:`) {
		t.Fatalf("the import is not whole after the publication:\n%.3000s", after)
	}

	// A partial page edit during an import: a page named like one of the
	// imported groups, appended at the top level.
	db2, sp2 := importDB(t, 100)
	edited := false
	db2.afterImportBatch = func(batch int) error {
		if batch != batches-1 || edited {
			return nil
		}
		edited = true
		p := &TreePage{ContentPage: ContentPage{ID: "meanwhile", Type: "document", Title: "Part 1", Slug: "part-1"}}
		p.SetBody("written during the import")
		var reads PageReads
		if _, err := db2.CreateRevision(CountingPageReads(ctx, &reads), RevisionChange{SpaceID: sp2.ID, Activate: true, Pages: func(pt PageTree) error { return pt.Insert(p, "", nil) }}); err != nil {
			return err
		}
		if reads.WholeTrees != 0 {
			return errors.New("the edit loaded the whole tree (the partial path is what this test is about)")
		}
		rev, _ := db2.spaceHeadRevision(sp2.ID)
		pages, err := db2.RevisionPages(ctx, rev)
		if err != nil {
			return err
		}
		var got []string
		for _, p := range pages {
			got = append(got, p.ID+"@"+p.Path)
		}
		if want := "old-0@intro old-1@part-0 old-2@guide meanwhile@part-1"; strings.Join(got, " ") != want {
			return fmt.Errorf("the edit during the import wrote %v, want %s", got, want)
		}
		return nil
	}
	if _, err := db2.CreateRevision(ctx, RevisionChange{SpaceID: sp2.ID, Activate: true, Analyzer: modelAnalyzer{}, Batched: true, Edit: importEdit(n)}); err != nil {
		t.Fatal(err)
	}
	if !edited {
		t.Fatal("no edit ran during the import")
	}
	rev, _ := db2.spaceHeadRevision(sp2.ID)
	pages, err := db2.RevisionPages(ctx, rev)
	if err != nil || len(pages) != 3+1+n+n/100 {
		t.Fatalf("after the import that started over: %d pages %v", len(pages), err)
	}
}

// A run that fails after writing rows and index entries ahead leaves the
// space's main-line and search rows exactly as they were.
func TestFailedImportLeavesNoRowsAhead(t *testing.T) {
	ctx := context.Background()
	db, sp := importDB(t, 100)
	before := indexRows(t, db, sp.ID)
	boom := errors.New("boom")
	db.afterImportBatch = func(batch int) error {
		if batch == 7 {
			var ahead int
			if err := db.r().QueryRowContext(ctx, `SELECT (SELECT COUNT(*) FROM main_pages WHERE space_id = ?) + (SELECT COUNT(*) FROM search_pages WHERE space_id = ?)`, sp.ID, sp.ID).Scan(&ahead); err != nil {
				return err
			}
			if ahead < 700 {
				return fmt.Errorf("only %d rows: nothing written ahead, nothing tested", ahead)
			}
			return boom
		}
		return nil
	}
	if _, err := db.CreateRevision(ctx, RevisionChange{SpaceID: sp.ID, Activate: true, Analyzer: modelAnalyzer{}, Batched: true, Edit: importEdit(1000)}); !errors.Is(err, boom) {
		t.Fatalf("err = %v, want boom", err)
	}
	if after := indexRows(t, db, sp.ID); after != before {
		t.Fatalf("a failed import left rows:\nbefore:\n%.2000s\nafter:\n%.2000s", before, after)
	}
}

// The publishing write does not grow with the import: at N and 4N pages it
// runs the same statements and changes the same number of rows, for an
// import of new pages (the space's main line and index), for one into a
// change request (the overlay's rows, revisions), and, for one that
// changes N pages the space has, the same main-line rows (none: closed and
// written ahead). In none of them does it write a row of the search
// index: the docs of new and changed pages were written ahead, the
// changed pages' old docs are retired in the stats row.
func TestPublishingWriteDoesNotGrow(t *testing.T) {
	checkPublishingWrite(t, 1_000, "new")
}

// TestPublishingWriteDoesNotGrow for imports into a change request and
// imports that change the space's pages.
func TestPublishingWriteDoesNotGrowForChanges(t *testing.T) {
	n := 150
	if os.Getenv("DOCSAPI_TEST_DB") != "" {
		n = 100 // on PostgreSQL, where a page costs more: 1 and 4 batches
	}
	checkPublishingWrite(t, n, "change request", "changed")
}

// checkPublishingWrite measures the publishing write of an import (mode:
// "new" pages, into a "change request", or of "changed" pages) at n and
// 4n pages.
func checkPublishingWrite(t *testing.T, n int, modes ...string) {
	t.Helper()
	ctx := context.Background()
	// One database (opening one costs more than the test on PostgreSQL),
	// a space per measure.
	var counter atomic.Int64
	db, o := countedImportDB(t, &counter)
	measure := func(mode string, n int) (stmts int64, rows int) {
		sp := Space{OrganizationID: o.Organization.ID, Title: "S", Visibility: "private", EditMode: "live"}
		if err := db.CreateSpace(ctx, &sp); err != nil {
			t.Fatal(err)
		}
		change := RevisionChange{SpaceID: sp.ID, Activate: true, Analyzer: modelAnalyzer{}, Batched: true, Edit: importEdit(n)}
		count := `SELECT (SELECT COUNT(*) FROM main_pages WHERE space_id = ?) + (SELECT COUNT(*) FROM search_pages WHERE space_id = ?)
 + (SELECT COUNT(*) FROM search_postings WHERE space_id = ?) + (SELECT COUNT(*) FROM search_chunks WHERE space_id = ?)`
		args := []any{sp.ID, sp.ID, sp.ID, sp.ID}
		switch mode {
		case "changed", "change request":
			if _, err := db.CreateRevision(ctx, RevisionChange{SpaceID: sp.ID, Activate: true, Analyzer: modelAnalyzer{}, Edit: importEdit(n)}); err != nil {
				t.Fatal(err)
			}
			change.Edit = reviseEdit(n)
		}
		switch mode {
		case "changed":
			// The rows of the main line, each by its key and interval.
			count = `SELECT page_id || ':' || from_seq || ':' || to_seq FROM main_pages WHERE space_id = ?`
			args = []any{sp.ID}
		case "change request":
			cr, user := emptyCROf(t, db, sp)
			change.Activate, change.ChangeRequest, change.Author = false, cr.ID, user
			count = `SELECT revision_id || ':' || page_id || ':' || version FROM overlay_pages UNION ALL SELECT id || ':' || type FROM revisions
 UNION ALL SELECT space_id || ':' || page_id || ':' || from_seq || ':' || to_seq FROM main_pages`
			args = nil
		}
		// The rows, as keys (a count is one key).
		rowKeys := func() map[string]bool {
			keys, err := queryIDs(db.r(), count, args...)
			if err != nil {
				t.Fatal(err)
			}
			set := map[string]bool{}
			for _, k := range keys {
				set[k] = true
			}
			return set
		}
		var startStmts int64
		var startRows map[string]bool
		var startIndex, endIndex string
		db.afterImportBatch = func(int) error {
			startIndex = searchRows(t, db, sp.ID)
			startRows, startStmts = rowKeys(), counter.Load()
			return nil
		}
		db.importWrite = func(publish bool, _ time.Duration) {
			if publish {
				stmts = counter.Load() - startStmts
				endIndex = searchRows(t, db, sp.ID)
			}
		}
		if _, err := db.CreateRevision(ctx, change); err != nil {
			t.Fatal(err)
		}
		if startIndex == "" || endIndex != startIndex {
			t.Fatalf("%s pages: the publishing write wrote index rows:\nbefore:\n%.2000s\nafter:\n%.2000s", mode, startIndex, endIndex)
		}
		// Rows the publishing write added, removed or changed.
		end := rowKeys()
		for k := range startRows {
			if !end[k] {
				rows++
			}
		}
		for k := range end {
			if !startRows[k] {
				rows++
			}
		}
		return stmts, rows
	}
	for _, mode := range modes {
		s1, r1 := measure(mode, n)
		s4, r4 := measure(mode, 4*n)
		t.Logf("%s pages: publishing write: %d statements, %d rows at %d pages; %d, %d at %d", mode, s1, r1, n, s4, r4, 4*n)
		if s1 == 0 || r4 != r1 || s4 != s1 {
			t.Fatalf("%s pages: the publishing write grows: %d statements, %d rows at %d pages; %d, %d at %d", mode, s1, r1, n, s4, r4, 4*n)
		}
	}
}

// reviseEdit is a second import of the pages importEdit(n) wrote (a
// translation run again into its target, a re-import): every imported
// document gets a new body, every 97th goes, every 41st moves to the top
// level, and five pages are new.
func reviseEdit(n int) func(t *Tree) error { return reviseEditBut(n, 0) }

// reviseEditBut is reviseEdit leaving every keep-th imported page as it is
// (keep 0: none): their bodies are as long as the revised ones, so that
// searches tie them with changed pages (ties rank by doc number).
func reviseEditBut(n, keep int) func(t *Tree) error {
	return func(t *Tree) error {
		var moved []*TreePage
		for i := range n {
			p, siblings, at := t.Find(fmt.Sprintf("imp-%d", i))
			if p == nil {
				return fmt.Errorf("imp-%d is not there", i)
			}
			switch {
			case keep > 0 && i%keep == keep-1:
				continue
			case i%97 == 5:
				*siblings = slices.Delete(*siblings, at, at+1)
				continue
			case i%41 == 6:
				*siblings = slices.Delete(*siblings, at, at+1)
				moved = append(moved, p)
			}
			p.SetBody(fmt.Sprintf("revised body of page %d", i))
		}
		t.Pages = append(t.Pages, moved...)
		for i := range 5 {
			p := &TreePage{ContentPage: ContentPage{ID: fmt.Sprintf("rev-new-%d", i), Type: "document", Title: "New", Slug: fmt.Sprintf("new-%d", i)}}
			p.SetBody("revised new page")
			t.Pages = append(t.Pages, p)
		}
		return nil
	}
}

// importedDB is importDB with importEdit(n) already published (in one
// transaction) and batches of batch pages.
func importedDB(t testing.TB, batch, n int) (*DB, Space) {
	t.Helper()
	db, sp := importDB(t, batch)
	if _, err := db.CreateRevision(context.Background(), RevisionChange{SpaceID: sp.ID, Activate: true, Analyzer: modelAnalyzer{}, Edit: importEdit(n)}); err != nil {
		t.Fatal(err)
	}
	return db, sp
}

// importedSpace is another space of importedDB's organization, with the
// same content (one database: opening one costs more than these tests on
// PostgreSQL).
func importedSpace(t testing.TB, db *DB, org string, n int) Space {
	t.Helper()
	ctx := context.Background()
	sp := Space{OrganizationID: org, Title: "S", Visibility: "private", EditMode: "live"}
	if err := db.CreateSpace(ctx, &sp); err != nil {
		t.Fatal(err)
	}
	if _, err := db.CreateRevision(ctx, RevisionChange{SpaceID: sp.ID, Activate: true, Analyzer: modelAnalyzer{}, Edit: func(tr *Tree) error {
		for i, slug := range []string{"intro", "part-0", "guide"} {
			p := &TreePage{ContentPage: ContentPage{ID: fmt.Sprintf("old-%d", i), Type: "document", Title: slug, Slug: slug}}
			p.SetBody("old body " + slug)
			tr.Pages = append(tr.Pages, p)
		}
		return importEdit(n)(tr)
	}}); err != nil {
		t.Fatal(err)
	}
	return sp
}

// oneTransaction runs fn with db's batched writes written in one
// transaction (the path they must match).
func oneTransaction(db *DB, fn func()) {
	per := db.importBatch
	db.importBatch = -1
	defer func() { db.importBatch = per }()
	fn()
}

// retiredCount is the number of docs the space's stats row retires.
func retiredCount(t *testing.T, db *DB, spaceID string) int {
	t.Helper()
	stats, err := readSpaceStats(context.Background(), db.r(), spaceID)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, bm := range stats.retired {
		for off := range uint32(chunkDocs) {
			if retiredAt(bm, off) {
				n++
			}
		}
	}
	return n
}

// closingStages is the number of the space's stages that have closed rows
// ahead and are not published.
func closingStages(db *DB, spaceID string) (n int, err error) {
	err = db.r().QueryRowContext(context.Background(), `SELECT COUNT(*) FROM import_stages WHERE space_id = ? AND closing = 1`, spaceID).Scan(&n)
	return n, err
}

// An import that changes pages the space has (a translation run again
// into its target, a re-import) publishes what the one-transaction path
// writes; between every two of its batches, the closing ones included
// (the changed pages' old rows closed ahead, their new rows written
// ahead), readers see the old content whole; a page edit of the space
// started then waits for the publication (it reads alive rows) and lands
// after it, on the import's content.
func TestReaderBetweenBatchesSeesChangedPagesWhole(t *testing.T) {
	ctx := context.Background()
	const n = 500
	db, sp := importedDB(t, 100, n)
	var states [2]string
	for k := range states {
		other := importedSpace(t, db, sp.OrganizationID, n)
		run := func() {
			if _, err := db.CreateRevision(ctx, RevisionChange{SpaceID: other.ID, Activate: true, Analyzer: modelAnalyzer{}, Batched: true, Edit: reviseEditBut(n, 3)}); err != nil {
				t.Fatal(err)
			}
		}
		// Batched: right after the publishing write the changed pages'
		// old docs are retired (their rows still there), and readers see
		// then what they see once the sweep has removed them.
		var published string
		var retired int
		db.importWrite = func(publish bool, _ time.Duration) {
			if publish {
				published = readerView(t, db, other.ID)
				retired = retiredCount(t, db, other.ID)
			}
		}
		if k == 0 {
			oneTransaction(db, run)
		} else {
			run()
			if want := n * 3 / 5; retired < want {
				t.Fatalf("the publishing write retired %d docs, want at least %d (the changed pages')", retired, want)
			}
			if left := retiredCount(t, db, other.ID); left != 0 {
				t.Fatalf("%d retired docs left after the import", left)
			}
			if now := readerView(t, db, other.ID); now != published {
				t.Fatalf("readers saw before the sweep:\n%.3000s\nafter it:\n%.3000s", published, now)
			}
		}
		db.importWrite = nil
		// Searches in rank order with their totals and the index stats
		// too (revisionState lists hits as a set): the changed pages' docs
		// must rank and count as the one-transaction import's, ties
		// included (they go by doc number). The revision id differs.
		_, ranked, _ := strings.Cut(readerView(t, db, other.ID), "\n")
		states[k] = revisionState(t, db, other.ID) + ranked
	}
	if states[0] != states[1] {
		a, b := strings.Split(states[0], "\n"), strings.Split(states[1], "\n")
		for i := range min(len(a), len(b)) {
			if a[i] != b[i] {
				t.Fatalf("batched re-import differs from the one-transaction one at line %d:\n one: %s\n batched: %s", i, a[i], b[i])
			}
		}
		t.Fatalf("batched re-import differs: %d lines vs %d", len(a), len(b))
	}

	before := readerView(t, db, sp.ID)
	closing := 0
	var edit chan error
	var editDone atomic.Bool
	db.afterImportBatch = func(batch int) error {
		if now := readerView(t, db, sp.ID); now != before {
			return fmt.Errorf("after batch %d the reader sees:\n%.3000s\nwant:\n%.3000s", batch, now, before)
		}
		c, err := closingStages(db, sp.ID)
		if err != nil || c == 0 {
			return err
		}
		if closing++; closing == 1 {
			edit = make(chan error, 1)
			go func() {
				p := &TreePage{ContentPage: ContentPage{ID: "meanwhile", Type: "document", Title: "Part 1", Slug: "part-1"}}
				p.SetBody("written during the import")
				_, err := db.CreateRevision(ctx, RevisionChange{SpaceID: sp.ID, Activate: true, Pages: func(pt PageTree) error { return pt.Insert(p, "", nil) }})
				editDone.Store(true)
				edit <- err
			}()
			time.Sleep(20 * time.Millisecond) // the edit reaches its write
		}
		if editDone.Load() {
			return errors.New("a page edit of the space went through while rows were closed ahead")
		}
		return nil
	}
	if _, err := db.CreateRevision(ctx, RevisionChange{SpaceID: sp.ID, Activate: true, Analyzer: modelAnalyzer{}, Batched: true, Edit: reviseEdit(n)}); err != nil {
		t.Fatal(err)
	}
	if closing < 3 || edit == nil {
		t.Fatalf("%d closing batches looked at", closing)
	}
	if err := <-edit; err != nil {
		t.Fatal(err)
	}
	after := readerView(t, db, sp.ID)
	for _, want := range []string{fmt.Sprintf("imp-%d ", n-1), "path=part-1-2\n", "rev-new-4 ", fmt.Sprintf(`search "revised" %d:`, n-(n+91)/97+5)} {
		if !strings.Contains(after, want) {
			t.Fatalf("after the import and the edit, no %q in:\n%.3000s", want, after)
		}
	}
	if strings.Contains(after, "imp-5 ") || !strings.Contains(after, `search "imported" 0:`) || !strings.Contains(after, "meanwhile v=") {
		t.Fatalf("old content after the import:\n%.3000s", after)
	}
	if c, err := closingStages(db, sp.ID); err != nil || c != 0 {
		t.Fatalf("%d closing stages left (%v)", c, err)
	}
}

// A re-import that fails in its closing batches (old rows closed ahead,
// new ones written ahead) leaves the main line and the index as they were,
// and the space writable at once; a stage whose run died there is dropped
// by the next write of the space once its lease is over, which opens its
// rows again.
func TestFailedReimportLeavesNoRowsAhead(t *testing.T) {
	ctx := context.Background()
	db, sp := importedDB(t, 100, 1000)
	before := indexRows(t, db, sp.ID)
	boom := errors.New("boom")
	closed := 0
	db.afterImportBatch = func(batch int) error {
		c, err := closingStages(db, sp.ID)
		if err != nil || c == 0 {
			return err
		}
		if closed++; closed == 3 {
			// The changed pages' new docs are written ahead: a second
			// search_pages row for each.
			var docs int
			if err := db.r().QueryRowContext(ctx, `SELECT COUNT(*) FROM search_pages WHERE space_id = ?`, sp.ID).Scan(&docs); err != nil {
				return err
			}
			if docs < 1900 {
				return fmt.Errorf("%d search_pages rows: the changed pages' docs are not written ahead, nothing tested", docs)
			}
			return boom
		}
		return nil
	}
	if _, err := db.CreateRevision(ctx, RevisionChange{SpaceID: sp.ID, Activate: true, Analyzer: modelAnalyzer{}, Batched: true, Edit: reviseEdit(1000)}); !errors.Is(err, boom) {
		t.Fatalf("err = %v, want boom (after %d closing batches)", err, closed)
	}
	if after := indexRows(t, db, sp.ID); after != before {
		t.Fatalf("a failed re-import left rows:\nbefore:\n%.2000s\nafter:\n%.2000s", before, after)
	}
	db.afterImportBatch = nil
	edit := func(id string) {
		t.Helper()
		done := make(chan error, 1)
		go func() {
			_, err := db.CreateRevision(ctx, RevisionChange{SpaceID: sp.ID, Activate: true, Pages: func(pt PageTree) error {
				p := &TreePage{ContentPage: ContentPage{ID: id, Type: "document", Title: id, Slug: id}}
				p.SetBody("after")
				return pt.Insert(p, "", nil)
			}})
			done <- err
		}()
		select {
		case err := <-done:
			if err != nil {
				t.Fatal(err)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("a page edit of the space is still waiting")
		}
	}
	edit("after-failure")

	// A run that died after closing rows ahead: its stage's lease is over.
	var last, alive int64
	if err := db.r().QueryRowContext(ctx, `SELECT MAX(seq) FROM revisions WHERE space_id = ?`, sp.ID).Scan(&last); err != nil {
		t.Fatal(err)
	}
	ahead := last + aheadSeqGap
	if err := db.Write(ctx, func(tx *Tx) error {
		if _, err := tx.exec(`INSERT INTO import_stages (id, space_id, lease_until, ahead_seq, closing) VALUES ('dead', ?, 0, ?, 1)`, sp.ID, ahead); err != nil {
			return err
		}
		_, err := tx.exec(`UPDATE main_pages SET to_seq = ? WHERE space_id = ? AND to_seq = ? AND page_id IN ('imp-1', 'imp-2', 'old-0')`, ahead, sp.ID, aliveSeq)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	edit("after-death")
	if err := db.r().QueryRowContext(ctx, `SELECT COUNT(*) FROM main_pages WHERE space_id = ? AND to_seq = ? AND page_id IN ('imp-1', 'imp-2', 'old-0')`, sp.ID, aliveSeq).Scan(&alive); err != nil || alive != 3 {
		t.Fatalf("%d of the 3 rows closed by the dead stage are alive again (%v)", alive, err)
	}
	if c, err := closingStages(db, sp.ID); err != nil || c != 0 {
		t.Fatalf("%d closing stages left (%v)", c, err)
	}
}

// crImportDB is importedDB with a change request holding one edit of its
// own (its head an overlay on the main line).
func crImportDB(t testing.TB, batch, n int) (*DB, Space, ChangeRequest, string) {
	t.Helper()
	db, sp := importedDB(t, batch, n)
	cr, user := crOf(t, db, sp)
	return db, sp, cr, user
}

// emptyCROf is a new change request of sp, opened by the database's
// (only) user, and that user.
func emptyCROf(t testing.TB, db *DB, sp Space) (ChangeRequest, string) {
	t.Helper()
	ctx := context.Background()
	var user string
	if err := db.r().QueryRowContext(ctx, `SELECT id FROM users`).Scan(&user); err != nil {
		t.Fatal(err)
	}
	cr, err := db.CreateChangeRequest(ctx, "", sp.ID, user, "cr", nil)
	if err != nil {
		t.Fatal(err)
	}
	return cr, user
}

// crOf is a change request of sp holding one edit of its own.
func crOf(t testing.TB, db *DB, sp Space) (ChangeRequest, string) {
	t.Helper()
	ctx := context.Background()
	cr, user := emptyCROf(t, db, sp)
	if _, err := db.CreateRevision(ctx, RevisionChange{SpaceID: sp.ID, ChangeRequest: cr.ID, Author: user, Pages: func(pt PageTree) error {
		p := &TreePage{ContentPage: ContentPage{ID: "cr-own", Type: "document", Title: "Own", Slug: "own"}}
		p.SetBody("the change request's own page")
		return pt.Insert(p, "", nil)
	}}); err != nil {
		t.Fatal(err)
	}
	return cr, user
}

// crView is what readers of a change request see: its head's pages, the
// space's revisions, and a duplicate of the space's revisions.
func crView(t *testing.T, db *DB, sp Space, crID string) string {
	t.Helper()
	ctx := context.Background()
	cr, err := db.ChangeRequest(ctx, sp.ID, crID)
	if err != nil {
		t.Fatal(err)
	}
	pages, err := db.RevisionPages(ctx, cr.Revision)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "head %s\n", cr.Revision)
	for _, p := range pages {
		fmt.Fprintf(&b, "%s v=%s parent=%s pos=%d path=%s\n", p.ID, p.Version, p.ParentID, p.Position, p.Path)
	}
	revs, err := db.Revisions(ctx, sp.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range revs {
		fmt.Fprintf(&b, "revision %s %s\n", r.ID, r.Type)
	}
	return b.String()
}

// An import into a change request whose batches write the new revision's
// overlay rows: between the batches, the change request's head, its pages
// and the space's revisions are what they were, the revision is not found
// by id, and a duplicate of the space made then has none of it; after the
// publication the head is the new revision, with the import whole.
func TestReaderBetweenBatchesSeesChangeRequestWhole(t *testing.T) {
	ctx := context.Background()
	const n = 300
	db, sp, cr, user := crImportDB(t, 100, n)
	before := crView(t, db, sp, cr.ID)
	id := NewID()
	ahead, dups := 0, 0
	db.afterImportBatch = func(batch int) error {
		if now := crView(t, db, sp, cr.ID); now != before {
			return fmt.Errorf("after batch %d the reader sees:\n%.2000s\nwant:\n%.2000s", batch, now, before)
		}
		if _, err := db.RevisionByID(ctx, sp.ID, id); !errors.Is(err, ErrNotFound) {
			return fmt.Errorf("the revision being written is found by id: %v", err)
		}
		var rows int
		if err := db.r().QueryRowContext(ctx, `SELECT COUNT(*) FROM overlay_pages WHERE revision_id = ?`, id).Scan(&rows); err != nil {
			return err
		}
		if rows > 0 {
			ahead++
		}
		if batch == 1 {
			dup, err := db.DuplicateSpace(ctx, sp.ID, "dup")
			if err != nil {
				return err
			}
			var copied int
			if err := db.r().QueryRowContext(ctx, `SELECT COUNT(*) FROM revisions WHERE space_id = ? AND type = ?`, dup, stagedType).Scan(&copied); err != nil || copied != 0 {
				return fmt.Errorf("the duplicate has %d revisions being written (%v)", copied, err)
			}
			dups++
		}
		return nil
	}
	rev, err := db.CreateRevision(ctx, RevisionChange{ID: id, SpaceID: sp.ID, ChangeRequest: cr.ID, Author: user, Analyzer: modelAnalyzer{}, Batched: true, Edit: reviseEdit(n)})
	if err != nil {
		t.Fatal(err)
	}
	if ahead < 2 || dups != 1 {
		t.Fatalf("overlay rows ahead after %d batches, %d duplicates", ahead, dups)
	}
	after := crView(t, db, sp, cr.ID)
	if !strings.Contains(after, "head "+rev+"\n") || !strings.Contains(after, "rev-new-4 ") || !strings.Contains(after, "cr-own ") || strings.Contains(after, "imp-5 ") ||
		!strings.Contains(after, "revision "+rev+" edits\n") {
		t.Fatalf("after the import:\n%.3000s", after)
	}
	got, err := db.RevisionByID(ctx, sp.ID, rev)
	if err != nil || got.Type != "edits" {
		t.Fatalf("the published revision: %+v %v", got, err)
	}
	// The one-transaction path gives the head the same pages.
	db.afterImportBatch = nil
	sp1 := importedSpace(t, db, sp.OrganizationID, n)
	cr1, _ := crOf(t, db, sp1)
	var rev1 string
	oneTransaction(db, func() {
		if rev1, err = db.CreateRevision(ctx, RevisionChange{SpaceID: sp1.ID, ChangeRequest: cr1.ID, Author: user, Analyzer: modelAnalyzer{}, Batched: true, Edit: reviseEdit(n)}); err != nil {
			t.Fatal(err)
		}
	})
	pagesOf := func(db *DB, rev string) string {
		pages, err := db.RevisionPages(ctx, rev)
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		for _, p := range pages {
			fmt.Fprintf(&b, "%s v=%s parent=%s pos=%d path=%s\n", p.ID, p.Version, p.ParentID, p.Position, p.Path)
		}
		return b.String()
	}
	if a, b := pagesOf(db, rev1), pagesOf(db, rev); a != b {
		t.Fatalf("batched change request import differs:\none:\n%.1500s\nbatched:\n%.1500s", a, b)
	}
	// Into a change request of a space with no main line yet (its
	// overlay a full snapshot), batched and not.
	var heads [2]string
	for k := range heads {
		fresh := Space{OrganizationID: sp.OrganizationID, Title: "fresh", Visibility: "private", EditMode: "live"}
		if err := db.CreateSpace(ctx, &fresh); err != nil {
			t.Fatal(err)
		}
		cr, err := db.CreateChangeRequest(ctx, "", fresh.ID, user, "cr", nil)
		if err != nil {
			t.Fatal(err)
		}
		run := func() {
			if heads[k], err = db.CreateRevision(ctx, RevisionChange{SpaceID: fresh.ID, ChangeRequest: cr.ID, Author: user, Analyzer: modelAnalyzer{}, Batched: true, Edit: importEdit(250)}); err != nil {
				t.Fatal(err)
			}
		}
		if k == 0 {
			oneTransaction(db, run)
		} else {
			run()
		}
	}
	if a, b := pagesOf(db, heads[0]), pagesOf(db, heads[1]); a != b || !strings.Contains(b, "imp-249 ") {
		t.Fatalf("batched change request import without a main line differs:\none:\n%.1500s\nbatched:\n%.1500s", a, b)
	}
}

// An import into a change request that fails after writing overlay rows
// ahead leaves no revision and no overlay row of it, and the change
// request as it was.
func TestFailedChangeRequestImportLeavesNoRowsAhead(t *testing.T) {
	ctx := context.Background()
	db, sp, cr, user := crImportDB(t, 100, 300)
	before := crView(t, db, sp, cr.ID)
	count := func() (n int) {
		t.Helper()
		if err := db.r().QueryRowContext(ctx, `SELECT (SELECT COUNT(*) FROM overlay_pages) + (SELECT COUNT(*) FROM revisions)`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	rows := count()
	boom := errors.New("boom")
	db.afterImportBatch = func(batch int) error {
		if batch == 2 {
			if count() < rows+200 {
				return errors.New("nothing written ahead: nothing tested")
			}
			return boom
		}
		return nil
	}
	if _, err := db.CreateRevision(ctx, RevisionChange{SpaceID: sp.ID, ChangeRequest: cr.ID, Author: user, Analyzer: modelAnalyzer{}, Batched: true, Edit: reviseEdit(300)}); !errors.Is(err, boom) {
		t.Fatalf("err = %v, want boom", err)
	}
	if now := count(); now != rows {
		t.Fatalf("%d overlay and revision rows left behind", now-rows)
	}
	if after := crView(t, db, sp, cr.ID); after != before {
		t.Fatalf("the change request moved:\n%s\nwant:\n%s", after, before)
	}
}

// countedImportDB opens a database whose statements counter counts, with
// imports batched 100 pages at a time, a fixed clock and one organization
// (closed when the test ends).
func countedImportDB(t testing.TB, counter *atomic.Int64) (*DB, Bootstrap) {
	t.Helper()
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	db, err := Open(testTarget(t), Options{Clock: func() time.Time { return at }, ImportBatchPages: 100, Statements: counter})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	o, err := db.CreateOrganizationWithAdmin(context.Background(), "Org", "a@example.com", "A", "h1")
	if err != nil {
		t.Fatal(err)
	}
	return db, o
}
