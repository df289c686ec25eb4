package storage_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"docsapi/storage"
)

// The trash sweep removes each expired space in a write of its own, so the
// writer is never held for a whole trash at once; a space trashed after the
// cutoff stays, and the count is the spaces removed.
func TestPurgeSpacesOneWriteEach(t *testing.T) {
	db, b := orgWithAdmin(t)
	ctx := context.Background()
	var ids []string
	for range 4 {
		sp := storage.Space{OrganizationID: b.Organization.ID, Title: "s", Visibility: "private", EditMode: "live"}
		if err := db.CreateSpace(ctx, &sp); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, sp.ID)
	}
	for _, id := range ids[:3] {
		if _, err := db.TrashSpace(ctx, id); err != nil {
			t.Fatal(err)
		}
	}
	cutoff := time.Now().Add(time.Hour)
	var writes atomic.Int32
	db.ObserveBatches(func(int) { writes.Add(1) })
	n, err := db.PurgeSpaces(ctx, cutoff)
	db.ObserveBatches(nil)
	if err != nil || n != 3 {
		t.Fatalf("purged %d, %v; want 3", n, err)
	}
	if w := writes.Load(); w < 3 {
		t.Errorf("3 spaces purged in %d write transactions, want one each", w)
	}
	for _, id := range ids[:3] {
		if _, err := db.Space(ctx, id); !errors.Is(err, storage.ErrNotFound) {
			t.Errorf("purged space %s: %v", id, err)
		}
	}
	if _, err := db.Space(ctx, ids[3]); err != nil {
		t.Errorf("the live space: %v", err)
	}
	if n, err := db.PurgeSpaces(ctx, cutoff); err != nil || n != 0 {
		t.Fatalf("a second sweep purged %d, %v", n, err)
	}
}
