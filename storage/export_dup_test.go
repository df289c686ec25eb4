package storage

import (
	"context"
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
