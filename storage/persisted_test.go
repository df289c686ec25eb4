package storage_test

import (
	"context"
	"errors"
	"testing"

	"docsapi/storage"
	"docsapi/storage/storagetest"
)

// Registered GraphQL documents on both engines: adding twice keeps one,
// list is by hash, remove counts what it found.
func TestPersistedQueries(t *testing.T) {
	ctx := context.Background()
	db := openDB(t, storagetest.Target(t))
	if _, err := db.PersistedQueryBody(ctx, "b"); !errors.Is(err, storage.ErrNotFound) {
		t.Fatalf("unknown hash: %v", err)
	}
	qs := []storage.PersistedQuery{{Hash: "b", Name: "B", Body: "{ b }"}, {Hash: "a", Name: "A", Body: "{ a }"}}
	if n, err := db.AddPersistedQueries(ctx, qs); err != nil || n != 2 {
		t.Fatalf("add: %d %v", n, err)
	}
	if n, err := db.AddPersistedQueries(ctx, []storage.PersistedQuery{{Hash: "a", Name: "again", Body: "{ a }"}}); err != nil || n != 0 {
		t.Fatalf("add again: %d %v", n, err)
	}
	list, err := db.ListPersistedQueries(ctx)
	if err != nil || len(list) != 2 || list[0].Hash != "a" || list[0].Name != "A" || list[1].Body != "{ b }" {
		t.Fatalf("list: %+v %v", list, err)
	}
	if body, err := db.PersistedQueryBody(ctx, "b"); err != nil || body != "{ b }" {
		t.Fatalf("body: %q %v", body, err)
	}
	if _, err := db.RemovePersistedQueries(ctx, []string{"b", "zz"}); !errors.Is(err, storage.ErrNotFound) {
		t.Fatalf("remove with an unknown hash: %v", err)
	}
	if body, err := db.PersistedQueryBody(ctx, "b"); err != nil || body != "{ b }" {
		t.Fatalf("after a refused remove: %q %v", body, err)
	}
	if n, err := db.RemovePersistedQueries(ctx, []string{"b"}); err != nil || n != 1 {
		t.Fatalf("remove: %d %v", n, err)
	}
	if _, err := db.PersistedQueryBody(ctx, "b"); !errors.Is(err, storage.ErrNotFound) {
		t.Fatalf("removed hash: %v", err)
	}
}
