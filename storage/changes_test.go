package storage_test

import (
	"context"
	"docsapi/storage/storagetest"
	"errors"
	"testing"

	"docsapi/storage"
)

// A change described with Recording reaches every sink inside the write
// transaction that makes it, once, and not at all when the write fails.
func TestRecordingRecordsOnceInsideTheWrite(t *testing.T) {
	db := openDB(t, storagetest.Target(t))
	var got []storage.Change
	restore := storage.AddChangeSinkForTest(func(tx *storage.Tx, a storage.Actor, c storage.Change) error {
		got = append(got, c)
		return nil
	})
	defer restore()
	db.SetActorSource(func(context.Context) storage.Actor { return storage.Actor{UserID: "u1"} })

	ctx := storage.Recording(context.Background(), func() []storage.Change {
		return []storage.Change{{OrganizationID: "o1", Action: "thing.done", TargetType: "thing", TargetID: "t1"}}
	})
	failed := errors.New("refused")
	if err := db.Write(ctx, func(tx *storage.Tx) error { return failed }); !errors.Is(err, failed) {
		t.Fatalf("write: %v", err)
	}
	if len(got) != 0 {
		t.Fatalf("a failed write recorded %v", got)
	}
	for range 2 {
		if err := db.Write(ctx, func(tx *storage.Tx) error { return nil }); err != nil {
			t.Fatal(err)
		}
	}
	if len(got) != 1 || got[0].Action != "thing.done" || got[0].TargetID != "t1" {
		t.Fatalf("recorded %v, want one thing.done", got)
	}
}

// A sink's error rolls the whole write back.
func TestRecordingSinkErrorRollsBack(t *testing.T) {
	db := openDB(t, storagetest.Target(t))
	failed := errors.New("sink failed")
	restore := storage.AddChangeSinkForTest(func(*storage.Tx, storage.Actor, storage.Change) error { return failed })
	defer restore()
	ctx := storage.RecordingChange(context.Background(), storage.Change{OrganizationID: "o1", Action: "x.y"})
	if _, _, err := db.CreateUserWithToken(ctx, "rb@example.test", "RB", "", nil, false, "hash-rb"); !errors.Is(err, failed) {
		t.Fatalf("create user with a failing sink: %v", err)
	}
	if _, err := db.UserByEmail(context.Background(), "rb@example.test"); !errors.Is(err, storage.ErrNotFound) {
		t.Fatalf("the user was written despite the sink's error: %v", err)
	}
}
