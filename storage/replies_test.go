package storage_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"docsapi/storage"
	"docsapi/storage/storagetest"
)

// TestFirstRepliesMatchesListComments: the first page of every thread,
// read in one statement, is what ListComments answers for each thread
// (items, total, and a cursor that continues it), on both engines.
func TestFirstRepliesMatchesListComments(t *testing.T) {
	ctx := context.Background()
	clock := &fakeClock{t: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	var statements atomic.Int64
	db := openDBWith(t, storagetest.Target(t), storage.Options{Clock: clock.Now, Statements: &statements})
	org, err := db.CreateOrganizationWithAdmin(ctx, "Org", "a@example.com", "A", "h1")
	if err != nil {
		t.Fatal(err)
	}
	sp := storage.Space{OrganizationID: org.Organization.ID, Title: "S", Visibility: "private", EditMode: "live"}
	if err := db.CreateSpace(ctx, &sp); err != nil {
		t.Fatal(err)
	}
	scope := storage.CommentScope{SpaceID: sp.ID}
	var threads []string
	for i := range 6 {
		c := storage.Comment{Scope: scope, PostedBy: org.User.ID, Body: fmt.Sprintf("c%d", i), RevisionID: sp.RevisionID}
		if err := db.PostComment(ctx, &c); err != nil {
			t.Fatal(err)
		}
		threads = append(threads, c.ID)
		for j := range i { // thread i has i replies, some posted at the same millisecond
			if j%2 == 0 {
				clock.Add(time.Millisecond)
			}
			r := storage.Comment{Scope: scope, ParentID: c.ID, PostedBy: org.User.ID, Body: fmt.Sprintf("r%d.%d", i, j), RevisionID: sp.RevisionID}
			if err := db.PostComment(ctx, &r); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, limit := range []int{0, 1, 3, 10} {
		statements.Store(0)
		got, err := db.FirstReplies(ctx, scope, append(threads, "unknown"), limit)
		if err != nil {
			t.Fatal(err)
		}
		if n := statements.Load(); n != 1 {
			t.Errorf("limit %d: %d statements, want 1", limit, n)
		}
		for i, id := range threads {
			want, err := db.ListComments(ctx, scope, storage.CommentFilter{ParentID: id, Asc: true}, storage.PageQuery{Limit: limit})
			if err != nil {
				t.Fatal(err)
			}
			p := got[id]
			if p.Count != want.Count || len(p.Items) != len(want.Items) || (p.Next == nil) != (want.Next == nil) {
				t.Fatalf("limit %d, thread %d: count %d items %d next %v; ListComments: %d %d %v", limit, i, p.Count, len(p.Items), p.Next, want.Count, len(want.Items), want.Next)
			}
			for k := range p.Items {
				if p.Items[k].ID != want.Items[k].ID || p.Items[k].Body != want.Items[k].Body {
					t.Fatalf("limit %d, thread %d, item %d: %s, ListComments %s", limit, i, k, p.Items[k].ID, want.Items[k].ID)
				}
			}
			if p.Next != nil && *p.Next != *want.Next {
				t.Fatalf("limit %d, thread %d: next %+v, ListComments %+v", limit, i, *p.Next, *want.Next)
			}
			if p.Next != nil { // the cursor continues the thread through ListComments
				rest, err := db.ListComments(ctx, scope, storage.CommentFilter{ParentID: id, Asc: true}, storage.PageQuery{Limit: 100, After: p.Next})
				if err != nil || len(p.Items)+len(rest.Items) != i {
					t.Fatalf("limit %d, thread %d: rest %d items (%v), want %d", limit, i, len(rest.Items), err, i-len(p.Items))
				}
			}
		}
	}
}
