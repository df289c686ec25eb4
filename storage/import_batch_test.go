package storage

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// importDB opens a database whose clock stands still (so that two runs of
// the same import give the same version hashes) with one space holding a
// few pages, batched writes storing batch pages a transaction (< 0: one
// transaction).
func importDB(t testing.TB, batch int) (*DB, Space) {
	t.Helper()
	return importDBAt(t, testTarget(t), batch)
}

// importDBAt is importDB in the database target names.
func importDBAt(t testing.TB, target string, batch int) (*DB, Space) {
	t.Helper()
	ctx := context.Background()
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	db, err := Open(target, Options{Clock: func() time.Time { return at }, ImportBatchPages: batch})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	o, err := db.CreateOrganizationWithAdmin(ctx, "Org", "a@example.com", "A", "h1")
	if err != nil {
		t.Fatal(err)
	}
	sp := Space{OrganizationID: o.Organization.ID, Title: "S", Visibility: "private", EditMode: "live"}
	if err := db.CreateSpace(ctx, &sp); err != nil {
		t.Fatal(err)
	}
	if _, err := db.CreateRevision(ctx, RevisionChange{SpaceID: sp.ID, Activate: true, Analyzer: modelAnalyzer{}, Edit: func(tr *Tree) error {
		for i, slug := range []string{"intro", "part-0", "guide"} {
			p := &TreePage{ContentPage: ContentPage{ID: fmt.Sprintf("old-%d", i), Type: "document", Title: slug, Slug: slug}}
			p.SetBody("old body " + slug)
			tr.Pages = append(tr.Pages, p)
		}
		return nil
	}}); err != nil {
		t.Fatal(err)
	}
	return db, sp
}

// importEdit is an import of n pages the way the importer shapes one: a
// group per hundred pages (the first named like a page already there, so
// that slugs collide), documents under them, some with the same slug, some
// linking to another imported page or to a page not there, and two files.
func importEdit(n int) func(t *Tree) error {
	return func(t *Tree) error {
		var group *TreePage
		for i := range n {
			if i%100 == 0 {
				group = &TreePage{ContentPage: ContentPage{ID: fmt.Sprintf("imp-g%d", i/100), Type: "group", Title: fmt.Sprintf("Part %d", i/100), Slug: fmt.Sprintf("part-%d", i/100)}, Dirty: true}
				t.Pages = append(t.Pages, group)
			}
			slug := fmt.Sprintf("page-%d", i%100)
			if i%10 == 3 {
				slug = "same" // siblings with one slug: -2, -3, ...
			}
			p := &TreePage{ContentPage: ContentPage{ID: fmt.Sprintf("imp-%d", i), Type: "document", Title: fmt.Sprintf("Page %d", i), Slug: slug,
				Meta: PageMeta{Description: fmt.Sprintf("about %d", i)}}}
			body := fmt.Sprintf("body of imported page %d", i)
			switch i % 50 {
			case 7:
				body += " link:part-0/page-1"
			case 8:
				body += " link:nowhere/at-all"
			}
			p.SetBody(body)
			group.Children = append(group.Children, p)
		}
		t.Files = append(t.Files, &File{ID: "imp-file-1", Name: "a.png", ContentType: "image/png", Bytes: []byte("png bytes")},
			&File{ID: "imp-file-2", Name: "b.txt", ContentType: "text/plain", Bytes: []byte("some text")})
		t.ReusableContents = append(t.ReusableContents, map[string]any{"id": "rc", "title": "Included"})
		return nil
	}
}

// revisionState is everything a reader can learn of a space's content:
// its pages in tree order with their version hashes (a version hash covers
// the title, slug, body, metadata and times), places and links, its files
// and their bytes, its reusable contents and its search index.
func revisionState(t *testing.T, db *DB, spaceID string) string {
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
	for _, p := range pages {
		fmt.Fprintf(&b, "%s %s v=%s parent=%s pos=%d path=%s\n", p.ID, p.Type, p.Version, p.ParentID, p.Position, p.Path)
	}
	rows, err := db.r().QueryContext(ctx, `SELECT v.page_id, l.ordinal, l.kind, l.target, l.dest, l.lookup FROM page_links l JOIN page_versions v ON v.hash = l.version ORDER BY v.page_id, l.ordinal`)
	if err := eachRow(rows, err, func(sc interface{ Scan(...any) error }) error {
		var page, kind, target, dest, lookup string
		var ord int
		err := sc.Scan(&page, &ord, &kind, &target, &dest, &lookup)
		fmt.Fprintf(&b, "link %s#%d %s %s %s %s\n", page, ord, kind, target, dest, lookup)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	files, err := db.RevisionFiles(ctx, rev)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		data, err := db.FileBytes(ctx, f.Blob)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "file %s %s %s %d %q\n", f.ID, f.Name, f.ContentType, f.Size, data)
	}
	var reusable string
	if err := db.r().QueryRowContext(ctx, `SELECT reusable_contents FROM revisions WHERE id = ?`, rev).Scan(&reusable); err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(&b, "reusable %s\n", reusable)
	var versions, indexed int
	if err := db.r().QueryRowContext(ctx, `SELECT (SELECT COUNT(*) FROM page_versions), (SELECT COUNT(*) FROM search_pages WHERE space_id = ?)`, spaceID).Scan(&versions, &indexed); err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(&b, "versions %d indexed %d\n", versions, indexed)
	for _, q := range []string{"imported", "old", "page 4711"} {
		hits, total, err := db.SearchPages(ctx, spaceID, q, 0, 20)
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, h := range hits {
			ids = append(ids, h.Page.ID+"@"+h.Page.Path)
		}
		slices.Sort(ids)
		fmt.Fprintf(&b, "search %q %d %v\n", q, total, ids)
	}
	return b.String()
}

// importPages is the size of the generated import: 10,000 pages, fewer
// under -short and under the race detector (still several batches).
func importPages() int {
	if testing.Short() {
		return 1_000
	}
	if raceDetector {
		return 2_000
	}
	return 10_000
}

// A 10,000-page import written in batches publishes exactly the revision
// the one-transaction path writes: pages, tree, bodies and metadata (the
// version hashes), links, files, reusable contents, search index.
func TestBatchedImportMatchesOneTransaction(t *testing.T) {
	ctx := context.Background()
	n := importPages()
	var states [2]string
	for i, batch := range []int{-1, 300} {
		db, sp := importDB(t, batch)
		batches := 0
		db.afterImportBatch = func(int) error { batches++; return nil }
		if _, err := db.CreateRevision(ctx, RevisionChange{SpaceID: sp.ID, Activate: true, Analyzer: modelAnalyzer{}, Batched: true, Edit: importEdit(n)}); err != nil {
			t.Fatal(err)
		}
		want := 0
		if batch > 0 {
			want = (n + n/100 + batch - 1) / batch
		}
		if batches != want {
			t.Fatalf("batch size %d: %d batches, want %d", batch, batches, want)
		}
		states[i] = revisionState(t, db, sp.ID)
		var stages int
		if err := db.r().QueryRowContext(ctx, `SELECT (SELECT COUNT(*) FROM import_stages) + (SELECT COUNT(*) FROM import_stage_rows)`).Scan(&stages); err != nil || stages != 0 {
			t.Fatalf("stage rows left after publishing: %d %v", stages, err)
		}
	}
	if states[0] != states[1] {
		a, b := strings.Split(states[0], "\n"), strings.Split(states[1], "\n")
		for i := range min(len(a), len(b)) {
			if a[i] != b[i] {
				t.Fatalf("batched import differs from the one-transaction import at line %d:\n one: %s\n batched: %s", i, a[i], b[i])
			}
		}
		t.Fatalf("batched import differs: %d lines vs %d", len(a), len(b))
	}
	if !strings.Contains(states[0], fmt.Sprintf("imp-%d document", n-1)) || !strings.Contains(states[0], "part-0-2") {
		t.Fatalf("the import is not there:\n%.2000s", states[0])
	}
}

// Between two batches the writer is free: a write to another space, made
// while the import is under way, completes before the import ends; and
// meanwhile readers of the space still see its content without the import.
func TestBatchedImportLetsOtherWritesThrough(t *testing.T) {
	ctx := context.Background()
	db, sp := importDB(t, 100)
	other := Space{OrganizationID: sp.OrganizationID, Title: "other", Visibility: "private", EditMode: "live"}
	before, err := db.RevisionPages(ctx, sp.RevisionID)
	if err != nil {
		t.Fatal(err)
	}
	head, _ := db.spaceHeadRevision(sp.ID)
	during := -1
	db.afterImportBatch = func(batch int) error {
		if batch != 2 {
			return nil
		}
		// A write of its own (not inside the batch: the writer is free).
		if err := db.CreateSpace(ctx, &other); err != nil {
			return err
		}
		if _, err := db.CreateRevision(ctx, RevisionChange{SpaceID: other.ID, Activate: true, Edit: func(tr *Tree) error {
			p := &TreePage{ContentPage: ContentPage{ID: "o1", Type: "document", Title: "o", Slug: "o"}}
			p.SetBody("other")
			tr.Pages = append(tr.Pages, p)
			return nil
		}}); err != nil {
			return err
		}
		now, _ := db.spaceHeadRevision(sp.ID)
		pages, err := db.RevisionPages(ctx, now)
		if err != nil {
			return err
		}
		if now != head || len(pages) != 3 {
			return fmt.Errorf("half an import visible: revision %s (was %s), %d pages", now, head, len(pages))
		}
		during = batch
		return nil
	}
	_ = before
	if _, err := db.CreateRevision(ctx, RevisionChange{SpaceID: sp.ID, Activate: true, Analyzer: modelAnalyzer{}, Batched: true, Edit: importEdit(1000)}); err != nil {
		t.Fatal(err)
	}
	if during != 2 {
		t.Fatal("the other write did not run between the batches")
	}
	now, _ := db.spaceHeadRevision(sp.ID)
	pages, err := db.RevisionPages(ctx, now)
	if err != nil || len(pages) != 3+1000+10 {
		t.Fatalf("after the import: %d pages, %v", len(pages), err)
	}
	if o, err := db.spaceHeadRevision(other.ID); err != nil || o == other.RevisionID {
		t.Fatalf("the other space's write is not there: %s %v", o, err)
	}
}

// An edit of the same space between two batches moves the import's base:
// the import starts over on the new content, so neither is lost.
func TestBatchedImportStartsOverWhenTheSpaceMoves(t *testing.T) {
	ctx := context.Background()
	db, sp := importDB(t, 100)
	edited := 0
	db.afterImportBatch = func(batch int) error {
		if batch != 1 || edited > 0 {
			return nil
		}
		edited++
		_, err := db.CreateRevision(ctx, RevisionChange{SpaceID: sp.ID, Activate: true, Edit: func(tr *Tree) error {
			p := &TreePage{ContentPage: ContentPage{ID: "meanwhile", Type: "document", Title: "m", Slug: "meanwhile"}}
			p.SetBody("written during the import")
			tr.Pages = append(tr.Pages, p)
			return nil
		}})
		return err
	}
	if _, err := db.CreateRevision(ctx, RevisionChange{SpaceID: sp.ID, Activate: true, Analyzer: modelAnalyzer{}, Batched: true, Edit: importEdit(500)}); err != nil {
		t.Fatal(err)
	}
	now, _ := db.spaceHeadRevision(sp.ID)
	pages, err := db.RevisionPages(ctx, now)
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]bool{}
	for _, p := range pages {
		ids[p.ID] = true
	}
	if !ids["meanwhile"] || !ids["imp-499"] || len(pages) != 3+1+500+5 {
		t.Fatalf("after the import: %d pages, meanwhile %t, imp-499 %t", len(pages), ids["meanwhile"], ids["imp-499"])
	}
	var stages int
	if err := db.r().QueryRowContext(ctx, `SELECT COUNT(*) FROM import_stage_rows`).Scan(&stages); err != nil || stages != 0 {
		t.Fatalf("stage rows left: %d %v", stages, err)
	}
}

// A batch that fails leaves nothing visible and nothing stored: the space
// keeps its revision, the versions the earlier batches stored are gone.
func TestFailedBatchLeavesNothing(t *testing.T) {
	ctx := context.Background()
	db, sp := importDB(t, 100)
	head, _ := db.spaceHeadRevision(sp.ID)
	before := revisionState(t, db, sp.ID)
	boom := errors.New("boom")
	db.afterImportBatch = func(batch int) error {
		if batch == 3 {
			return boom
		}
		return nil
	}
	if _, err := db.CreateRevision(ctx, RevisionChange{SpaceID: sp.ID, Activate: true, Analyzer: modelAnalyzer{}, Batched: true, Edit: importEdit(1000)}); !errors.Is(err, boom) {
		t.Fatalf("err = %v, want boom", err)
	}
	if now, _ := db.spaceHeadRevision(sp.ID); now != head {
		t.Fatalf("the space moved to %s", now)
	}
	if after := revisionState(t, db, sp.ID); after != before {
		t.Fatalf("a failed import left something:\nbefore:\n%s\nafter:\n%s", before, after)
	}
	var left int
	if err := db.r().QueryRowContext(ctx, `SELECT (SELECT COUNT(*) FROM page_versions WHERE page_id LIKE 'imp-%') + (SELECT COUNT(*) FROM file_blobs)
 + (SELECT COUNT(*) FROM import_stages) + (SELECT COUNT(*) FROM import_stage_rows) + (SELECT COUNT(*) FROM revisions WHERE space_id = ?)`, sp.ID).Scan(&left); err != nil {
		t.Fatal(err)
	}
	if left != 2 { // the space's two revisions
		t.Fatalf("%d rows left behind", left-2)
	}
}

// A run that died between its batches leaves a stage that the sweep drops
// once its lease is over: what only it stored goes, a version a revision
// shares stays.
func TestExpiredImportStageIsSwept(t *testing.T) {
	ctx := context.Background()
	db, sp := importDB(t, 100)
	var shared string
	if err := db.r().QueryRowContext(ctx, `SELECT version FROM main_pages WHERE space_id = ? AND page_id = 'old-0'`, sp.ID).Scan(&shared); err != nil {
		t.Fatal(err)
	}
	st, err := db.prepareStaged(ctx, RevisionChange{SpaceID: sp.ID, Analyzer: modelAnalyzer{}, Edit: importEdit(150)})
	if err != nil {
		t.Fatal(err)
	}
	st.an.sections = map[*TreePage][]SearchSection{}
	versions, links := st.versionRows(st.pages)
	versions = append(versions, []any{shared, "old-0", "document", "", "", "", "{}", 0, 0})
	if err := db.Write(ctx, func(tx *Tx) error { return writeStageBatch(tx, "dead", sp.ID, true, versions, links, st.files) }); err != nil {
		t.Fatal(err)
	}
	count := func() (staged, shared int) {
		t.Helper()
		if err := db.r().QueryRowContext(ctx, `SELECT (SELECT COUNT(*) FROM page_versions WHERE page_id LIKE 'imp-%') + (SELECT COUNT(*) FROM file_blobs) + (SELECT COUNT(*) FROM import_stage_rows),
 (SELECT COUNT(*) FROM page_versions WHERE page_id = 'old-0')`).Scan(&staged, &shared); err != nil {
			t.Fatal(err)
		}
		return
	}
	if n, _ := count(); n == 0 {
		t.Fatal("nothing staged")
	}
	if n, err := db.DropExpiredImportStages(ctx, ms(db.Now())); err != nil || n != 0 {
		t.Fatalf("a stage under lease was swept: %d %v", n, err)
	}
	if n, err := db.DropExpiredImportStages(ctx, ms(db.Now().Add(2*db.JobLease()))); err != nil || n != 1 {
		t.Fatalf("swept %d stages, %v", n, err)
	}
	if n, s := count(); n != 0 || s != 1 {
		t.Fatalf("after the sweep: %d staged rows left, shared version kept %d", n, s)
	}
	// A run whose stage is being dropped can neither renew it nor publish.
	if err := db.Write(ctx, func(tx *Tx) error { return writeStageBatch(tx, "slow", sp.ID, true, nil, nil, nil) }); err != nil {
		t.Fatal(err)
	}
	if err := db.Write(ctx, func(tx *Tx) error {
		_, err := tx.exec(`UPDATE import_stages SET lease_until = -1 WHERE id = 'slow'`)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if err := db.Write(ctx, func(tx *Tx) error { return writeStageBatch(tx, "slow", sp.ID, false, nil, nil, nil) }); !errors.Is(err, errBaseMoved) {
		t.Fatalf("renewing a stage being dropped: %v", err)
	}
	head, _ := db.spaceHeadRevision(sp.ID)
	if err := db.Write(ctx, func(tx *Tx) error { return stillBase(tx, RevisionChange{SpaceID: sp.ID}, head, "dead-and-gone") }); !errors.Is(err, errBaseMoved) {
		t.Fatalf("publishing without a stage: %v", err)
	}
	if err := db.Write(ctx, func(tx *Tx) error {
		return stillBase(tx, RevisionChange{SpaceID: sp.ID}, head, "slow")
	}); !errors.Is(err, errBaseMoved) {
		t.Fatalf("publishing with a stage being dropped: %v", err)
	}
}

// Into a change request (an overlay, not the main line) a batched import
// gives the head the one-transaction path gives it, and the space's own
// content does not move.
func TestBatchedImportIntoChangeRequestMatchesOneTransaction(t *testing.T) {
	ctx := context.Background()
	var states [2]string
	for i, batch := range []int{-1, 70} {
		db, sp := importDB(t, batch)
		head, _ := db.spaceHeadRevision(sp.ID)
		var user string
		if err := db.r().QueryRowContext(ctx, `SELECT id FROM users`).Scan(&user); err != nil {
			t.Fatal(err)
		}
		cr, err := db.CreateChangeRequest(ctx, "", sp.ID, user, "cr", nil)
		if err != nil {
			t.Fatal(err)
		}
		rev, err := db.CreateRevision(ctx, RevisionChange{SpaceID: sp.ID, ChangeRequest: cr.ID, Author: user, Analyzer: modelAnalyzer{}, Batched: true, Edit: importEdit(700)})
		if err != nil {
			t.Fatal(err)
		}
		if now, _ := db.spaceHeadRevision(sp.ID); now != head {
			t.Fatal("the space's content moved")
		}
		got, err := db.ChangeRequest(ctx, sp.ID, cr.ID)
		if err != nil || got.Revision != rev {
			t.Fatalf("change request head %s, want %s (%v)", got.Revision, rev, err)
		}
		pages, err := db.RevisionPages(ctx, rev)
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		for _, p := range pages {
			fmt.Fprintf(&b, "%s v=%s parent=%s pos=%d path=%s\n", p.ID, p.Version, p.ParentID, p.Position, p.Path)
		}
		files, err := db.RevisionFiles(ctx, rev)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			fmt.Fprintf(&b, "file %s %s %s\n", f.ID, f.Name, f.Blob)
		}
		states[i] = b.String()
	}
	if states[0] != states[1] || !strings.Contains(states[0], "imp-699") {
		t.Fatalf("batched change request import differs:\none:\n%.1500s\nbatched:\n%.1500s", states[0], states[1])
	}
}

// A batched import's statements grow with its pages and nothing else: no
// batch reads again what the earlier ones wrote. Four times the pages (and
// the batches) take at most four times the statements (the fixed part:
// read, stage, publish, makes it less).
func TestBatchedImportStatementsAreLinear(t *testing.T) {
	ctx := context.Background()
	count := func(n int) int64 {
		var stmts atomic.Int64
		db, o := countedImportDB(t, &stmts)
		sp := Space{OrganizationID: o.Organization.ID, Title: "S", Visibility: "private", EditMode: "live"}
		if err := db.CreateSpace(ctx, &sp); err != nil {
			t.Fatal(err)
		}
		before := stmts.Load()
		if _, err := db.CreateRevision(ctx, RevisionChange{SpaceID: sp.ID, Activate: true, Analyzer: modelAnalyzer{}, Batched: true, Edit: importEdit(n)}); err != nil {
			t.Fatal(err)
		}
		return stmts.Load() - before
	}
	small, large := count(1_000), count(4_000) // four times the pages
	if small == 0 || large > 4*small {
		t.Fatalf("statements: %d for 1,000 pages, %d for 4,000 (want about 4x)", small, large)
	}
	t.Logf("statements: %d for 1,000 pages, %d for 4,000", small, large)
}
