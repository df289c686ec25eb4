package storage_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"docsapi/storage"
	"docsapi/storage/storagetest"
)

// editSpace opens a database with one space of pages pages (ten top-level
// parts of pages/10 children each, the shape of bench/seed's search space)
// and a change request opened on it.
func editSpace(b *testing.B, pages int) (db *storage.DB, space, changeRequest string) {
	b.Helper()
	db, err := storage.Open(storagetest.Target(b), storage.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	ctx := context.Background()
	o, err := db.CreateOrganizationWithAdmin(ctx, "o", "a@b.c", "a", "h")
	if err != nil {
		b.Fatal(err)
	}
	sp := &storage.Space{OrganizationID: o.Organization.ID, Title: "s", Visibility: "private", EditMode: "live"}
	if err := db.CreateSpace(ctx, sp); err != nil {
		b.Fatal(err)
	}
	if _, err := db.CreateRevision(ctx, storage.RevisionChange{SpaceID: sp.ID, Activate: true, Edit: func(t *storage.Tree) error {
		storagetest.TenParts(t, pages, func(id string, _ int) string { return "body of " + id })
		return nil
	}}); err != nil {
		b.Fatal(err)
	}
	cr, err := db.CreateChangeRequest(ctx, "", sp.ID, o.User.ID, "cr", nil)
	if err != nil {
		b.Fatal(err)
	}
	return db, sp.ID, cr.ID
}

// benchPage is a new document page the edit benchmarks insert.
func benchPage(id string) *storage.TreePage {
	p := &storage.TreePage{ContentPage: storage.ContentPage{ID: id, Type: "document", Title: id, Slug: id}}
	p.SetBody("body of " + id)
	return p
}

// BenchmarkOnePageEdit is the storage side of the page edits on one page
// of a 10,000- and a 100,000-page space: an activated revision that changes
// one page's body, through the whole tree ("tree") and through the one-page
// write ("page": RevisionChange.Page); then the resolvers' page edits
// through storage.PageTree on the main content (the partial path): a page
// appended ("create") or inserted at index 3 ("insert") under a part, a
// page moved between two parts ("move"), renamed ("rename"), deleted
// ("delete"); "move-tree" is the same move through the whole tree. Then
// the same in a change request opened before those edits (its base behind
// the main line): "cr-create" (appended and at an index in turn), "cr-move",
// "cr-rename", "cr-delete", and "cr-create-tree" through the whole tree
// (what every change-request edit cost before). Each change-request edit
// adds a row to the change request's overlay, which the next one copies:
// run a fixed count (-benchtime 200x) to compare figures.
func BenchmarkOnePageEdit(b *testing.B) {
	three := 3
	for _, pages := range []int{10_000, 100_000} {
		db, space, cr := editSpace(b, pages)
		for _, way := range []string{"tree", "page", "create", "insert", "move", "move-tree", "rename", "delete",
			"cr-create", "cr-create-tree", "cr-move", "cr-rename", "cr-delete"} {
			b.Run(fmt.Sprint(pages, "/", way), func(b *testing.B) {
				ctx := context.Background()
				n := 0
				for b.Loop() {
					n++
					c := storage.RevisionChange{SpaceID: space, Activate: true}
					switch way {
					case "tree", "page":
						if way == "page" {
							c.Page = "page-3-7"
						}
						c.Edit = func(t *storage.Tree) error {
							p, _, _ := t.Find("page-3-7")
							p.SetBody(fmt.Sprint("edit ", way, n))
							return nil
						}
					case "create":
						c.Pages = func(t storage.PageTree) error { return t.Insert(benchPage(fmt.Sprint("new-", n)), "part-3", nil) }
					case "insert":
						c.Pages = func(t storage.PageTree) error { return t.Insert(benchPage(fmt.Sprint("ins-", n)), "part-4", &three) }
					case "move", "move-tree":
						to := []string{"part-5", "part-6"}[n%2]
						c.WholeTree = way == "move-tree"
						c.Pages = func(t storage.PageTree) error { return t.Move("page-6-7", to, &three) }
					case "rename":
						c.Pages = func(t storage.PageTree) error {
							p, err := t.Page("page-7-7")
							p.Slug, p.Dirty = fmt.Sprint("renamed-", n), true
							return err
						}
					case "delete":
						c.Pages = func(t storage.PageTree) error { return t.Delete(fmt.Sprintf("page-8-%d", n)) }
					case "cr-create", "cr-create-tree":
						// Appended, or at index n+3: each insert in a gap
						// of its own (many at one index use a gap up, and
						// the window of siblings spread again is then in
						// the overlay, which every later edit copies).
						var at *int
						if n%2 == 0 {
							i := n + 3
							at = &i
						}
						c.WholeTree = way == "cr-create-tree"
						c.Pages = func(t storage.PageTree) error { return t.Insert(benchPage(fmt.Sprint(way, "-", n)), "part-3", at) }
					case "cr-move":
						to := []string{"part-5", "part-6"}[n%2]
						c.Pages = func(t storage.PageTree) error { return t.Move("page-6-8", to, &three) }
					case "cr-rename":
						c.Pages = func(t storage.PageTree) error {
							p, err := t.Page("page-7-8")
							p.Slug, p.Dirty = fmt.Sprint("renamed-in-cr-", n), true
							return err
						}
					case "cr-delete":
						c.Pages = func(t storage.PageTree) error { return t.Delete(fmt.Sprintf("page-9-%d", n)) }
					}
					if strings.HasPrefix(way, "cr-") {
						c.Activate, c.ChangeRequest = false, cr
					}
					if _, err := db.CreateRevision(ctx, c); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
