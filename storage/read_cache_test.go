package storage_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"docsapi/storage"
	"docsapi/storage/storagetest"
)

// TestCachedReadsFollowWrites checks that the cached single reads
// (OrganizationFor, SpaceAccess) never outlive a write: one made through
// the same handle, and one made through another handle on the same file
// (as `docsapi admin` does from another process).
func TestCachedReadsFollowWrites(t *testing.T) {
	ctx := context.Background()
	path := storagetest.Target(t)
	db := openDB(t, path)
	other := openDB(t, path)
	b, err := db.CreateOrganizationWithAdmin(ctx, "Org", "a@example.com", "A", "h1")
	if err != nil {
		t.Fatal(err)
	}
	orgID := b.Organization.ID
	read, edit := "read", "edit"
	u, _, err := db.CreateUserWithToken(ctx, "b@example.com", "B", orgID, &read, true, "h2")
	if err != nil {
		t.Fatal(err)
	}
	userID := u.ID
	sp := storage.Space{OrganizationID: orgID, Title: "S", Visibility: "private", EditMode: "live"}
	if err := db.CreateSpace(ctx, &sp); err != nil {
		t.Fatal(err)
	}

	org := func() (storage.Organization, *storage.Membership) {
		t.Helper()
		o, m, err := db.OrganizationFor(ctx, orgID, userID)
		if err != nil {
			t.Fatal(err)
		}
		return o, m
	}
	space := func() (storage.Space, storage.AccessData) {
		t.Helper()
		s, a, err := db.SpaceAccess(ctx, sp.ID, userID)
		if err != nil {
			t.Fatal(err)
		}
		return s, a
	}
	org()
	space() // both cached now

	for i, h := range []*storage.DB{db, other} {
		title := []string{"Same handle", "Other handle"}[i]
		if err := h.UpdateOrganization(ctx, orgID, storage.OrganizationPatch{Title: &title}); err != nil {
			t.Fatal(err)
		}
		if o, _ := org(); o.Title != title {
			t.Fatalf("organization title %q, want %q", o.Title, title)
		}
		if err := h.UpdateSpace(ctx, sp.ID, storage.SpacePatch{Title: &title}); err != nil {
			t.Fatal(err)
		}
		if s, _ := space(); s.Title != title {
			t.Fatalf("space title %q, want %q", s.Title, title)
		}
	}

	// A membership change made elsewhere shows at once in both reads.
	if err := other.UpdateMemberRole(ctx, orgID, userID, &edit); err != nil {
		t.Fatal(err)
	}
	if _, m := org(); m == nil || m.Role == nil || *m.Role != edit {
		t.Fatalf("membership %+v, want role edit", m)
	}
	if _, a := space(); a.Membership == nil || a.Membership.Role == nil || *a.Membership.Role != edit {
		t.Fatalf("access membership %+v, want role edit", a.Membership)
	}

	// Each caller gets its own copy of the membership.
	_, m := org()
	admin := "admin"
	m.Role = &admin
	if _, m := org(); *m.Role != edit {
		t.Fatal("a caller's change to its membership reached the cache")
	}

	if _, _, err := db.OrganizationFor(ctx, "nope", userID); err != storage.ErrNotFound {
		t.Fatalf("unknown organization: %v, want ErrNotFound", err)
	}
	if _, _, err := db.SpaceAccess(ctx, "nope", userID); err != storage.ErrNotFound {
		t.Fatalf("unknown space: %v, want ErrNotFound", err)
	}
}

// bodyAnalyzer indexes a page as one section of its body (no links).
type bodyAnalyzer struct{}

func (bodyAnalyzer) Links(*storage.TreePage, *storage.Tree) []storage.PageLink { return nil }
func (bodyAnalyzer) Sections(p *storage.TreePage) []storage.SearchSection {
	return []storage.SearchSection{{Title: p.Title, Body: p.Markdown}}
}

// TestCachedSearchFollowsWrites checks that the search answers kept between
// writes never outlive one: pages added through the same handle or another
// one, a page edited out of the results, and each results page on its own.
func TestCachedSearchFollowsWrites(t *testing.T) {
	ctx := context.Background()
	path := storagetest.Target(t)
	db := openDB(t, path)
	other := openDB(t, path)
	b, err := db.CreateOrganizationWithAdmin(ctx, "Org", "a@example.com", "A", "h1")
	if err != nil {
		t.Fatal(err)
	}
	sp := storage.Space{OrganizationID: b.Organization.ID, Title: "S", Visibility: "private", EditMode: "live"}
	if err := db.CreateSpace(ctx, &sp); err != nil {
		t.Fatal(err)
	}
	var first *storage.TreePage
	add := func(h *storage.DB, title, body string) {
		t.Helper()
		_, err := h.CreateRevision(ctx, storage.RevisionChange{SpaceID: sp.ID, Activate: true, Analyzer: bodyAnalyzer{}, Edit: func(tr *storage.Tree) error {
			p := &storage.TreePage{ContentPage: storage.ContentPage{ID: storage.NewID(), Type: "document", Title: title, Slug: title}}
			p.SetBody(body)
			tr.Pages = append(tr.Pages, p)
			if first == nil {
				first = p
			}
			return nil
		}})
		if err != nil {
			t.Fatal(err)
		}
	}
	search := func(offset, limit int) ([]string, int) {
		t.Helper()
		hits, n, err := db.SearchPages(ctx, sp.ID, "alpha", offset, limit)
		if err != nil {
			t.Fatal(err)
		}
		var titles []string
		for _, h := range hits {
			titles = append(titles, h.Page.Title)
		}
		return titles, n
	}
	add(db, "one", "alpha")
	for range 2 { // the second answer comes from the cache
		if titles, n := search(0, 10); n != 1 || len(titles) != 1 || titles[0] != "one" {
			t.Fatalf("one page: %v %d", titles, n)
		}
	}
	add(db, "two", "alpha alpha beta")
	if titles, n := search(0, 10); n != 2 || len(titles) != 2 {
		t.Fatalf("after a write through the same handle: %v %d", titles, n)
	}
	add(other, "three", "alpha")
	if titles, n := search(0, 10); n != 3 || len(titles) != 3 {
		t.Fatalf("after a write through another handle: %v %d", titles, n)
	}
	top, _ := search(0, 1)
	next, _ := search(1, 1)
	if len(top) != 1 || len(next) != 1 || top[0] == next[0] {
		t.Fatalf("results pages: %v then %v", top, next)
	}
	_, err = other.CreateRevision(ctx, storage.RevisionChange{SpaceID: sp.ID, Activate: true, Analyzer: bodyAnalyzer{}, Edit: func(tr *storage.Tree) error {
		for _, p := range tr.Pages {
			if p.ID == first.ID {
				p.SetBody("gamma")
			}
		}
		return nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	if titles, n := search(0, 10); n != 2 || len(titles) != 2 || titles[0] == "one" || titles[1] == "one" {
		t.Fatalf("after the first page lost the word: %v %d", titles, n)
	}

	// Writes that leave the space's content alone (a rename of it, another
	// space, from either handle) keep its search answers: shown by emptying
	// its index behind the storage's back (raw SQL, no new revision), which
	// the cached answer outlives until the content changes.
	cached, _ := search(0, 10)
	raw, err := storage.OpenRaw(path)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	if _, err := raw.ExecContext(ctx, `DELETE FROM search_postings WHERE space_id = ?`, sp.ID); err != nil {
		t.Fatal(err)
	}
	renamed := "Renamed"
	if err := other.UpdateSpace(ctx, sp.ID, storage.SpacePatch{Title: &renamed}); err != nil {
		t.Fatal(err)
	}
	if err := db.CreateSpace(ctx, &storage.Space{OrganizationID: b.Organization.ID, Title: "Another", Visibility: "private", EditMode: "live"}); err != nil {
		t.Fatal(err)
	}
	if titles, n := search(0, 10); n != 2 || fmt.Sprint(titles) != fmt.Sprint(cached) {
		t.Fatalf("after writes that leave the content alone: %v %d, want the kept %v", titles, n, cached)
	}
	add(other, "four", "alpha")
	if titles, _ := search(0, 10); !strings.Contains(fmt.Sprint(titles), "four") {
		t.Fatalf("after a content change: %v, want page four among them", titles)
	}
}

// TestCachedSpacePagesFollowWrites checks that the pages of spaces kept
// between writes never outlive one: a create and a rename through the same
// handle or another one on the file, a trash, and each page on its own.
func TestCachedSpacePagesFollowWrites(t *testing.T) {
	ctx := context.Background()
	path := storagetest.Target(t)
	db := openDB(t, path)
	other := openDB(t, path)
	b, err := db.CreateOrganizationWithAdmin(ctx, "Org", "a@example.com", "A", "h1")
	if err != nil {
		t.Fatal(err)
	}
	f := storage.SpaceFilter{OrganizationID: b.Organization.ID}
	titles := func(pq storage.PageQuery) ([]string, *storage.Cursor, int) {
		t.Helper()
		p, err := db.ListSpaces(ctx, f, nil, pq)
		if err != nil {
			t.Fatal(err)
		}
		var ts []string
		for _, s := range p.Items {
			ts = append(ts, s.Title)
		}
		return ts, p.Next, p.Count
	}
	var ids []string
	for i, h := range []*storage.DB{db, other, db} {
		sp := storage.Space{OrganizationID: b.Organization.ID, Title: fmt.Sprint("S", i), Visibility: "private", EditMode: "live"}
		if err := h.CreateSpace(ctx, &sp); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, sp.ID)
		titles(storage.PageQuery{Limit: 2}) // cached before the next write
	}
	first, next, n := titles(storage.PageQuery{Limit: 2})
	if fmt.Sprint(first) != "[S0 S1]" || next == nil || n != 3 {
		t.Fatalf("first page %v (next %v, count %d), want [S0 S1] with a next page and 3 in all", first, next, n)
	}
	if second, _, _ := titles(storage.PageQuery{Limit: 2, After: next}); fmt.Sprint(second) != "[S2]" {
		t.Fatalf("second page %v, want [S2]", second)
	}
	renamed := "Renamed elsewhere"
	if err := other.UpdateSpace(ctx, ids[0], storage.SpacePatch{Title: &renamed}); err != nil {
		t.Fatal(err)
	}
	if got, _, _ := titles(storage.PageQuery{Limit: 2}); fmt.Sprint(got) != "[Renamed elsewhere S1]" {
		t.Fatalf("after a rename by another handle: %v", got)
	}
	if _, err := db.TrashSpace(ctx, ids[1]); err != nil {
		t.Fatal(err)
	}
	if got, _, n := titles(storage.PageQuery{Limit: 2}); fmt.Sprint(got) != "[Renamed elsewhere S2]" || n != 2 {
		t.Fatalf("after trashing S1: %v (count %d)", got, n)
	}
	// A caller appending to a page it was given does not change the cache.
	p, _ := db.ListSpaces(ctx, f, nil, storage.PageQuery{Limit: 2})
	_ = append(p.Items, storage.Space{Title: "Intruder"})
	if got, _, _ := titles(storage.PageQuery{Limit: 3}); fmt.Sprint(got) != "[Renamed elsewhere S2]" {
		t.Fatalf("after an append by a caller: %v", got)
	}
}
