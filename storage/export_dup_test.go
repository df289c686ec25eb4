package storage

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// What the duplicate property test (duplicate_test.go, package
// storage_test: it imports merge) needs of the internal tests.

func (db *DB) DuplicateWholeForTest(ctx context.Context, id, title string) (string, error) {
	return db.duplicateWhole(ctx, id, title)
}

// DuplicateSharedForTest is the sharing duplicate (space_sources.go).
func (db *DB) DuplicateSharedForTest(ctx context.Context, id, title string) (string, error) {
	return db.duplicateShared(ctx, id, title)
}

// SetMaxSourcesForTest bounds source lists at n until the test ends.
func SetMaxSourcesForTest(t *testing.T, n int) {
	was := maxSources
	maxSources = n
	t.Cleanup(func() { maxSources = was })
}

// SetPurgeBatchRowsForTest makes purges delete n rows a write until the
// test ends.
func SetPurgeBatchRowsForTest(t *testing.T, n int) { setPurgeBatchRows(t, n) }

func DupShapeForTest(t *testing.T, db *DB, spaceID, rev string) string {
	return dupShape(t, db, spaceID, rev)
}

func HistoryShapeForTest(t *testing.T, db *DB, spaceID string) string {
	return historyShape(t, db, spaceID)
}

// dupShape is revisionShape with the revision's files and the backlinks
// of each of its pages and files.
func dupShape(t *testing.T, db *DB, spaceID, rev string) string {
	t.Helper()
	ctx := context.Background()
	var b strings.Builder
	b.WriteString(revisionShape(t, db, spaceID, rev))
	files, err := db.RevisionFiles(ctx, rev)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		fmt.Fprintf(&b, "file %s %s %s %s\n", f.ID, f.Name, f.ContentType, f.Blob)
		bl, err := db.Backlinks(ctx, rev, "file", f.ID, PageQuery{Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "  backlinks %v\n", bl.Items)
	}
	pages, err := db.RevisionPages(ctx, rev)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pages {
		bl, err := db.Backlinks(ctx, rev, "page", p.ID, PageQuery{Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "backlinks %s %v\n", p.ID, bl.Items)
	}
	return b.String()
}

// historyShape is every revision of the space (type, parents' count,
// content), in an order independent of ids: a duplicate's revisions have
// new ids, and revisions made in the same millisecond sort by id.
func historyShape(t *testing.T, db *DB, spaceID string) string {
	t.Helper()
	revs, err := db.Revisions(context.Background(), spaceID)
	if err != nil {
		t.Fatal(err)
	}
	var shapes []string
	for _, r := range revs {
		shapes = append(shapes, fmt.Sprintf("%s parents=%d\n%s", r.Type, len(r.Parents), dupShape(t, db, spaceID, r.ID)))
	}
	slices.Sort(shapes)
	return strings.Join(shapes, "----\n")
}

// DupSearchShapeForTest is what a space's search reads, exactly: its
// index stats, every chunk of its index as it reads it (each term's docs
// and weights, each doc's length, each doc's page and sections), and
// ranked answers in order (pages, their paths and sections with their
// excerpts) for words and prefixes of the duplicate script's pages.
func DupSearchShapeForTest(t *testing.T, db *DB, spaceID string) string {
	t.Helper()
	ctx := context.Background()
	q := db.r()
	var b strings.Builder
	stats, err := readSpaceStats(ctx, q, spaceID)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(&b, "docs %d length %d next %d retired %x\n", stats.docs, stats.length, stats.next, encodeRetired(stats.retired))
	for c := range stats.chunks() {
		h := holder(spaceID, stats.view, c)
		var lens []byte
		if err := q.QueryRowContext(ctx, `SELECT lens FROM search_chunks WHERE space_id = ? AND chunk = ?`, h, c).Scan(&lens); err != nil && !errors.Is(err, sql.ErrNoRows) {
			t.Fatal(err)
		}
		ls, err := decodeLengths(lens)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "chunk %d lengths %v\n", c, ls)
		rows, err := q.QueryContext(ctx, `SELECT term, docs FROM search_postings WHERE space_id = ? AND chunk = ? ORDER BY term`, h, c)
		if err := eachRow(rows, err, func(sc interface{ Scan(...any) error }) error {
			var term string
			var docs []byte
			if err := sc.Scan(&term, &docs); err != nil {
				return err
			}
			ps, err := decodePostings(docs)
			fmt.Fprintf(&b, "  %s %v\n", term, ps)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		rows, err = q.QueryContext(ctx, `SELECT doc, page_id, sections FROM search_pages WHERE space_id = ? AND doc >= ? AND doc < ? ORDER BY doc`, h, c<<chunkBits, (c+1)<<chunkBits)
		if err := eachRow(rows, err, func(sc interface{ Scan(...any) error }) error {
			var doc int64
			var page string
			var sections []byte
			err := sc.Scan(&doc, &page, &sections)
			fmt.Fprintf(&b, "  doc %d %s %s\n", doc, page, sections)
			return err
		}); err != nil {
			t.Fatal(err)
		}
	}
	for _, text := range []string{"body 3", "edited", "link", "imported imp", "p", "import rewrote"} {
		hits, total, err := db.SearchPages(ctx, spaceID, text, 0, 100)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "search %q: %d\n", text, total)
		for _, h := range hits {
			fmt.Fprintf(&b, "  %s@%s %v\n", h.Page.ID, h.Page.Path, h.Sections)
		}
	}
	return b.String()
}

// SearchIndexRowsForTest counts the rows of spaceID's own index rows
// (postings, lengths, pages): what a sharing duplicate holds itself.
func SearchIndexRowsForTest(t *testing.T, db *DB, spaceID string) int {
	t.Helper()
	n := 0
	for _, table := range []string{"search_postings", "search_chunks", "search_pages"} {
		var k int
		if err := db.r().QueryRowContext(context.Background(), `SELECT COUNT(*) FROM `+table+` WHERE space_id = ?`, spaceID).Scan(&k); err != nil {
			t.Fatal(err)
		}
		n += k
	}
	return n
}

// SetImportBatchForTest makes imports of n pages or more write their new
// pages ahead (in chunks of the index past the space's next doc number),
// n at a time.
func (db *DB) SetImportBatchForTest(n int) { db.importBatch = n }

// SearchChunksForTest is the number of chunks a space's index spans.
func SearchChunksForTest(t *testing.T, db *DB, spaceID string) int64 {
	t.Helper()
	stats, err := readSpaceStats(context.Background(), db.r(), spaceID)
	if err != nil {
		t.Fatal(err)
	}
	return stats.chunks()
}
