package storage_test

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"

	"docsapi/storage"
	"docsapi/storage/storagetest"
)

// TestKeptReadsFollowWrites: the reads kept between writes (comments,
// reactions, users, collections) answer the same rows to every request of
// one counter reading, and a request that starts after a write, made
// through this handle or another one on the same database (another
// process), reads the write. A request that writes reads its own writes.
func TestKeptReadsFollowWrites(t *testing.T) {
	ctx := context.Background()
	path := storagetest.Target(t)
	db := openDB(t, path)
	other := openDB(t, path)
	b, err := db.CreateOrganizationWithAdmin(ctx, "Org", "a@example.com", "A", "h1")
	if err != nil {
		t.Fatal(err)
	}
	orgID, userID := b.Organization.ID, b.User.ID
	col := storage.Collection{OrganizationID: orgID, Title: "Guides"}
	if err := db.CreateCollection(ctx, &col); err != nil {
		t.Fatal(err)
	}
	sp := storage.Space{OrganizationID: orgID, Title: "S", Visibility: "private", EditMode: "live"}
	if err := db.CreateSpace(ctx, &sp); err != nil {
		t.Fatal(err)
	}
	scope := storage.CommentScope{SpaceID: sp.ID}
	c := storage.Comment{Scope: scope, PostedBy: userID, Body: "first"}
	if err := db.PostComment(ctx, &c); err != nil {
		t.Fatal(err)
	}

	type view struct {
		collection, user, body string
		comments, reactions    int
	}
	read := func(h *storage.DB, rctx context.Context) view {
		t.Helper()
		var v view
		cl, err := h.Collection(rctx, col.ID)
		if err != nil {
			t.Fatal(err)
		}
		users, err := h.UsersByIDs(rctx, []string{userID})
		if err != nil {
			t.Fatal(err)
		}
		p, err := h.ListComments(rctx, scope, storage.CommentFilter{}, storage.PageQuery{Limit: 50})
		if err != nil {
			t.Fatal(err)
		}
		ids := []string{}
		for _, it := range p.Items {
			ids = append(ids, it.ID)
		}
		rs, err := h.Reactions(rctx, ids)
		if err != nil {
			t.Fatal(err)
		}
		v.collection, v.user, v.comments, v.reactions = cl.Title, users[userID].DisplayName, len(p.Items), len(rs[c.ID])
		if len(p.Items) > 0 {
			v.body = p.Items[len(p.Items)-1].Body
		}
		return v
	}
	request := func(h *storage.DB) context.Context {
		t.Helper()
		rctx, err := h.WithCounters(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return rctx
	}
	want := view{collection: "Guides", user: "A", body: "first", comments: 1}
	before := request(db)
	if got := read(db, before); got != want {
		t.Fatalf("first read: %+v, want %+v", got, want)
	}

	for i, h := range []*storage.DB{db, other} {
		title, name, body := []string{"Same handle", "Other handle"}[i], []string{"B", "C"}[i], []string{"edited", "edited again"}[i]
		if err := h.UpdateCollection(ctx, col.ID, storage.CollectionPatch{Title: &title}); err != nil {
			t.Fatal(err)
		}
		if err := h.UpdateUser(ctx, userID, &name, nil); err != nil {
			t.Fatal(err)
		}
		if err := h.UpdateComment(ctx, scope, "", c.ID, storage.CommentUpdate{UserID: userID, Body: &body, AddReactions: []string{[]string{"1f44d", "1f389"}[i]}}); err != nil {
			t.Fatal(err)
		}
		extra := storage.Comment{Scope: scope, PostedBy: userID, Body: "another"}
		if err := h.PostComment(ctx, &extra); err != nil {
			t.Fatal(err)
		}
		want = view{collection: title, user: name, body: body, comments: 2 + i, reactions: 1 + i}
		for _, reader := range []*storage.DB{db, other} {
			if got := read(reader, request(reader)); got != want {
				t.Errorf("after write %d through %s: %+v, want %+v", i, title, got, want)
			}
		}
	}

	// A request that writes reads its own write, not the rows kept under
	// the counters it started with.
	rctx := request(db)
	read(db, rctx)
	title := "Written in the request"
	if err := db.UpdateCollection(rctx, col.ID, storage.CollectionPatch{Title: &title}); err != nil {
		t.Fatal(err)
	}
	if got := read(db, rctx).collection; got != title {
		t.Errorf("a request's own write: collection %q, want %q", got, title)
	}
}

// TestKeptReadsAreBounded: between writes a page of comments is read once;
// a page whose bodies pass the bound (32 KiB) is read every time instead
// of being kept.
func TestKeptReadsAreBounded(t *testing.T) {
	ctx := context.Background()
	var n atomic.Int64
	db := openDBWith(t, storagetest.Target(t), storage.Options{Statements: &n})
	b, err := db.CreateOrganizationWithAdmin(ctx, "Org", "a@example.com", "A", "h1")
	if err != nil {
		t.Fatal(err)
	}
	sp := storage.Space{OrganizationID: b.Organization.ID, Title: "S", Visibility: "private", EditMode: "live"}
	if err := db.CreateSpace(ctx, &sp); err != nil {
		t.Fatal(err)
	}
	scope := storage.CommentScope{SpaceID: sp.ID}
	post := func(body string) {
		t.Helper()
		if err := db.PostComment(ctx, &storage.Comment{Scope: scope, PostedBy: b.User.ID, Body: body}); err != nil {
			t.Fatal(err)
		}
	}
	statementsOfSecondRead := func() int64 {
		t.Helper()
		rctx, err := db.WithCounters(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for i := range 2 {
			n.Store(0)
			if _, err := db.ListComments(rctx, scope, storage.CommentFilter{}, storage.PageQuery{Limit: 50}); err != nil {
				t.Fatal(err)
			}
			if i == 1 {
				return n.Load()
			}
		}
		return -1
	}
	post("short")
	if got := statementsOfSecondRead(); got != 0 {
		t.Errorf("a small page read again: %d statements, want 0 (kept)", got)
	}
	post(strings.Repeat("x", 33<<10))
	if got := statementsOfSecondRead(); got == 0 {
		t.Error("a page with 33 KiB of bodies was kept")
	}
}
