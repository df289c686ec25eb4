package storage_test

import (
	"context"
	"testing"

	"docsapi/storage"
	"docsapi/storage/storagetest"
)

// FuzzSearchPages searches a small space with any text and any page: no
// text may make the query fail (operators and quotes are plain words), a
// page never holds more than its limit, and the same search twice (the
// second from the answers kept between writes) gives the same count.
func FuzzSearchPages(f *testing.F) {
	ctx := context.Background()
	db := openDB(f, storagetest.Target(f))
	b, err := db.CreateOrganizationWithAdmin(ctx, "Org", "a@example.com", "A", "h1")
	if err != nil {
		f.Fatal(err)
	}
	sp := storage.Space{OrganizationID: b.Organization.ID, Title: "S", Visibility: "private", EditMode: "live"}
	if err := db.CreateSpace(ctx, &sp); err != nil {
		f.Fatal(err)
	}
	_, err = db.CreateRevision(ctx, storage.RevisionChange{SpaceID: sp.ID, Activate: true, Analyzer: bodyAnalyzer{}, Edit: func(tr *storage.Tree) error {
		for i, body := range []string{"alpha beta", "beta gamma \"quoted\" AND OR NOT", "ünïcode café", "alpha alpha alpha", "near(alpha beta) col:umn"} {
			p := &storage.TreePage{ContentPage: storage.ContentPage{ID: storage.NewID(), Type: "document", Title: "Page", Slug: string(rune('a' + i))}}
			p.SetBody(body)
			tr.Pages = append(tr.Pages, p)
		}
		return nil
	}})
	if err != nil {
		f.Fatal(err)
	}
	for _, s := range []string{"alpha", "beta*", `"quoted" OR`, "NEAR(alpha beta)", "col:umn", "café", "^-*", ""} {
		f.Add(s, uint8(0), uint8(10))
	}
	f.Fuzz(func(t *testing.T, text string, offset, limit uint8) {
		hits, n, err := db.SearchPages(ctx, sp.ID, text, int(offset%8), int(limit%12))
		if err != nil {
			t.Fatalf("search %q: %v", text, err)
		}
		if len(hits) > int(limit%12) || n < len(hits) {
			t.Fatalf("search %q: %d hits, count %d, limit %d", text, len(hits), n, limit%12)
		}
		_, again, err := db.SearchPages(ctx, sp.ID, text, int(offset%8), int(limit%12))
		if err != nil || again != n {
			t.Fatalf("search %q again: count %d, want %d (%v)", text, again, n, err)
		}
	})
}
