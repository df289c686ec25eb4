// Package storagetest gives tests their database: a SQLite file, or a
// fresh PostgreSQL database when DOCSAPI_TEST_DB names a server (the one
// switch that runs the suite on PostgreSQL; test/pg/cluster.sh sets it).
package storagetest

import (
	"fmt"
	"testing"

	"docsapi/storage"
)

// Target is a new, empty database for tb (a file path or a postgres:// URL
// to give storage.Open), removed when tb ends.
func Target(tb testing.TB) string {
	tb.Helper()
	target, cleanup, err := storage.TestTarget(tb.TempDir())
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(cleanup)
	return target
}

// OnPostgres reports whether the tests run on PostgreSQL.
func OnPostgres() bool { return storage.TestOnPostgres() }

// SQLiteOnly skips tb on PostgreSQL: it tests something only SQLite has
// (a file, VACUUM INTO, WAL checkpoints, the integrity check).
func SQLiteOnly(tb testing.TB, why string) {
	tb.Helper()
	if OnPostgres() {
		tb.Skip("SQLite only: " + why)
	}
}

// TenParts adds to t the tree the page-edit and duplicate benchmarks seed:
// ten group pages part-0 … part-9 with pages/10 - 1 document pages each
// (page-<part>-<i>), each page's body body(id, i).
func TenParts(t *storage.Tree, pages int, body func(id string, i int) string) {
	for part := range 10 {
		id := fmt.Sprintf("part-%d", part)
		pp := &storage.TreePage{ContentPage: storage.ContentPage{ID: id, Type: "group", Title: id, Slug: id}, Dirty: true}
		for i := range pages/10 - 1 {
			cid := fmt.Sprintf("page-%d-%d", part, i)
			c := &storage.TreePage{ContentPage: storage.ContentPage{ID: cid, Type: "document", Title: cid, Slug: cid}, Dirty: true}
			c.SetBody(body(cid, i))
			pp.Children = append(pp.Children, c)
		}
		t.Pages = append(t.Pages, pp)
	}
}
