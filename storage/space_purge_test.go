package storage

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// setPurgeBatchRows sets purgeBatchRows until the test ends.
func setPurgeBatchRows(t testing.TB, n int) {
	was := purgeBatchRows
	purgeBatchRows = n
	t.Cleanup(func() { purgeBatchRows = was })
}

// purgeScene is a database with a space to purge and the spaces that
// share its rows: purged (imported pages with links and files, a batched
// re-import's history, then bodies and files of its own on its main line
// and in a change request's overlay), dup (its duplicate made before
// those, reading its main line and index chunks, one page edited) and
// twin (the first import again: the same page versions and file blobs).
type purgeScene struct {
	db                  *DB
	target              string // the database, opened again by shape
	purged, dup, twin   string
	dupShape, twinShape string
}

func newPurgeScene(t *testing.T, pages int) *purgeScene {
	t.Helper()
	ctx := context.Background()
	target := testTarget(t)
	db, sp := importDBAt(t, target, 7)
	s := &purgeScene{db: db, target: target, purged: sp.ID}
	var user string
	if err := db.r().QueryRowContext(ctx, `SELECT id FROM users`).Scan(&user); err != nil {
		t.Fatal(err)
	}
	create := func(title string) string {
		x := Space{OrganizationID: sp.OrganizationID, Title: title, Visibility: "private", EditMode: "live"}
		if err := db.CreateSpace(ctx, &x); err != nil {
			t.Fatal(err)
		}
		return x.ID
	}
	importInto := func(space string, edit func(*Tree) error) {
		if _, err := db.CreateRevision(ctx, RevisionChange{SpaceID: space, Activate: true, Analyzer: modelAnalyzer{}, Batched: true, Edit: edit}); err != nil {
			t.Fatal(err)
		}
	}
	importInto(s.purged, importEdit(pages))
	importInto(s.purged, reviseEditBut(pages, 3)) // history: closed rows, retired docs
	var err error
	if s.dup, err = db.DuplicateSpace(ctx, s.purged, "dup"); err != nil {
		t.Fatal(err)
	}
	if _, err := db.CreateRevision(ctx, RevisionChange{SpaceID: s.dup, Activate: true, Analyzer: modelAnalyzer{}, Edit: func(tr *Tree) error {
		p, _, _ := tr.Find("imp-4")
		p.SetBody("the duplicate's own body")
		return nil
	}}); err != nil {
		t.Fatal(err)
	}
	// What only the purged space uses: bodies and files written after the
	// duplicate was made, on its main line and in a change request.
	only := func(what string) func(tr *Tree) error {
		return func(tr *Tree) error {
			for i := 0; i < pages; i += 3 {
				if p, _, _ := tr.Find(fmt.Sprintf("imp-%d", i)); p != nil {
					p.SetBody(fmt.Sprintf("%s %d link:part-0/page-1", what, i))
				}
			}
			tr.Files = append(tr.Files, &File{ID: "only-" + what, Name: what + ".txt", ContentType: "text/plain", Bytes: []byte(what)})
			return nil
		}
	}
	importInto(s.purged, only("main"))
	cr, err := db.CreateChangeRequest(ctx, "", s.purged, user, "cr", nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.CreateRevision(ctx, RevisionChange{SpaceID: s.purged, ChangeRequest: cr.ID, Author: user, Analyzer: modelAnalyzer{}, Batched: true, Edit: only("change")}); err != nil {
		t.Fatal(err)
	}
	s.twin = create("twin")
	importInto(s.twin, importEdit(pages))
	s.dupShape, s.twinShape = s.shape(t, s.dup), s.shape(t, s.twin)
	if _, err := db.TrashSpace(ctx, s.purged); err != nil {
		t.Fatal(err)
	}
	return s
}

// shape is what a space reads: its active revision's pages, links, files
// and backlinks, and search answers, read through a new handle on the
// database (no cache of the scene's handle answers: a search is kept
// while its space's revision stands, and a purge does not change it).
func (s *purgeScene) shape(t *testing.T, space string) string {
	t.Helper()
	db, err := Open(s.target, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	sp, err := db.Space(context.Background(), space)
	if err != nil {
		t.Fatal(err)
	}
	return dupShape(t, db, space, sp.RevisionID) + searchShape(t, db, space)
}

// contentRows is every row the space's content left behind, and the
// shared rows (page versions, links, file blobs) in the database: what
// two ways of purging the same scene must leave alike.
func contentRows(t *testing.T, db *DB, space string) string {
	t.Helper()
	var b strings.Builder
	for _, q := range []string{
		`SELECT COUNT(*) FROM main_pages WHERE space_id = ?`,
		`SELECT COUNT(*) FROM revisions WHERE space_id = ?`,
		`SELECT COUNT(*) FROM space_purges WHERE space_id = ?`,
		`SELECT COUNT(*) FROM space_sources WHERE space_id = ? OR source_id = ?`,
		`SELECT COUNT(*) FROM search_sources WHERE space_id = ? OR source_id = ?`,
	} {
		args := []any{space}
		if strings.Count(q, "?") == 2 {
			args = append(args, space)
		}
		var n int
		if err := db.r().QueryRowContext(context.Background(), q, args...).Scan(&n); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "%s: %d\n", q, n)
	}
	for _, tbl := range searchTables {
		var n int
		if err := db.r().QueryRowContext(context.Background(), `SELECT COUNT(*) FROM `+tbl+` WHERE space_id = ?`, space).Scan(&n); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "%s: %d\n", tbl, n)
	}
	for _, q := range []string{
		`SELECT COUNT(*) FROM overlay_pages`,
		`SELECT COUNT(*) FROM revision_files`,
		`SELECT hash FROM page_versions ORDER BY hash`,
		`SELECT version || ' ' || ordinal FROM page_links ORDER BY version, ordinal`,
		`SELECT hash FROM file_blobs ORDER BY hash`,
		`SELECT hash FROM file_bytes ORDER BY hash`,
	} {
		got, err := queryIDs(db.r(), q)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "%s: %d %x\n", q, len(got), hashOf(strings.Join(got, ",")))
	}
	return b.String()
}

func hashOf(s string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(s))
	return h.Sum64()
}

// A purge in bounded writes leaves exactly what the purge in one
// transaction leaves (the same scene purged both ways, in two databases):
// none of the space's rows, the page versions, links and file blobs that
// other spaces still use and none of the others; its duplicate and the
// space with the same pages read as before. The bounded purge takes a
// write per few rows.
func TestPurgeInBatchesMatchesOneTransaction(t *testing.T) {
	ctx := context.Background()
	var left []string
	for _, batch := range []int{0, 3} {
		setPurgeBatchRows(t, batch)
		s := newPurgeScene(t, 24)
		var writes atomic.Int32
		s.db.ObserveBatches(func(int) { writes.Add(1) })
		n, err := s.db.PurgeSpaces(ctx, s.db.Now().Add(time.Hour))
		s.db.ObserveBatches(nil)
		if err != nil || n != 1 {
			t.Fatalf("batch %d: purged %d, %v", batch, n, err)
		}
		if batch == 0 && writes.Load() > 2 {
			t.Errorf("the purge in one transaction took %d writes", writes.Load())
		}
		if batch > 0 && writes.Load() < 24/3 {
			t.Errorf("24 pages purged %d rows at a time in %d writes", batch, writes.Load())
		}
		if _, err := s.db.Space(ctx, s.purged); !errors.Is(err, ErrNotFound) {
			t.Fatalf("batch %d: the purged space reads %v", batch, err)
		}
		if got := s.shape(t, s.dup); got != s.dupShape {
			t.Errorf("batch %d: the duplicate reads, after its source's purge:\n%s\nwant\n%s", batch, got, s.dupShape)
		}
		if got := s.shape(t, s.twin); got != s.twinShape {
			t.Errorf("batch %d: the space with the same pages reads:\n%s\nwant\n%s", batch, got, s.twinShape)
		}
		left = append(left, contentRows(t, s.db, s.purged))
	}
	if left[0] != left[1] {
		t.Errorf("purged in one transaction, left:\n%s\nin bounded writes:\n%s", left[0], left[1])
	}
	for _, line := range strings.Split(left[1], "\n") {
		if strings.Contains(line, "space_id = ?") && !strings.HasSuffix(line, ": 0") {
			t.Errorf("left of the purged space: %s", line)
		}
	}
}

// A purge stopped between its writes (its context ended), while its
// duplicate takes in what it reads of it or while its content goes,
// leaves a space that can no longer be restored, a duplicate that reads
// as before, and the next sweep finishes it.
func TestPurgeStoppedHalfwayResumes(t *testing.T) {
	setPurgeBatchRows(t, 2)
	for _, stopAt := range []int{4, 30} {
		t.Run(fmt.Sprint("stop at write ", stopAt), func(t *testing.T) {
			s := newPurgeScene(t, 24)
			ctx, cancel := context.WithCancel(context.Background())
			var writes atomic.Int32
			s.db.ObserveBatches(func(int) {
				if writes.Add(1) == int32(stopAt) {
					cancel()
				}
			})
			cutoff := s.db.Now().Add(time.Hour)
			if _, err := s.db.PurgeSpaces(ctx, cutoff); !errors.Is(err, context.Canceled) {
				t.Fatalf("a purge whose context ended: %v", err)
			}
			s.db.ObserveBatches(nil)
			var main int
			if err := s.db.r().QueryRowContext(context.Background(), `SELECT COUNT(*) FROM main_pages WHERE space_id = ?`, s.purged).Scan(&main); err != nil {
				t.Fatal(err)
			}
			if _, err := s.db.Space(context.Background(), s.purged); err != nil || main == 0 {
				t.Fatalf("stopped halfway: the space reads %v with %d main-line rows; the test wants it half done", err, main)
			}
			if err := s.db.RestoreSpace(context.Background(), s.purged, time.Time{}); !errors.Is(err, ErrNotFound) {
				t.Errorf("restoring a space whose purge began: %v, want ErrNotFound", err)
			}
			if got := s.shape(t, s.dup); got != s.dupShape {
				t.Errorf("the duplicate reads, its source half purged:\n%s\nwant\n%s", got, s.dupShape)
			}
			if n, err := s.db.PurgeSpaces(context.Background(), cutoff); err != nil || n != 1 {
				t.Fatalf("the next sweep purged %d, %v", n, err)
			}
			for _, line := range strings.Split(contentRows(t, s.db, s.purged), "\n") {
				if strings.Contains(line, "space_id = ?") && !strings.HasSuffix(line, ": 0") {
					t.Errorf("left of the purged space: %s", line)
				}
			}
			for space, want := range map[string]string{s.dup: s.dupShape, s.twin: s.twinShape} {
				if got := s.shape(t, space); got != want {
					t.Errorf("%s reads after the purge:\n%s\nwant\n%s", space, got, want)
				}
			}
		})
	}
}
