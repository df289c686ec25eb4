package storage

import (
	"context"
	"strconv"
	"testing"
)

// TestFilesBytes: the bytes of many blobs in one call (more than one
// query's chunk), each under its hash; an unknown hash is absent.
func TestFilesBytes(t *testing.T) {
	ctx := context.Background()
	db, sp := testSpace(t)
	const n = 520
	rev, err := db.CreateRevision(ctx, RevisionChange{SpaceID: sp.ID, Analyzer: testAnalyzer{}, Activate: true, Edit: func(tr *Tree) error {
		for i := range n {
			tr.Files = append(tr.Files, &File{ID: "f" + strconv.Itoa(i), Name: strconv.Itoa(i) + ".txt", ContentType: "text/plain", Bytes: []byte("bytes " + strconv.Itoa(i))})
		}
		return nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	files, err := db.RevisionFiles(ctx, rev)
	if err != nil || len(files) != n {
		t.Fatalf("files: %d %v", len(files), err)
	}
	blobs := []string{"no-such-hash"}
	for _, f := range files {
		blobs = append(blobs, f.Blob)
	}
	got, err := db.FilesBytes(ctx, blobs)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != n {
		t.Fatalf("%d blobs read, want %d", len(got), n)
	}
	for _, f := range files {
		if string(got[f.Blob]) != "bytes "+f.Name[:len(f.Name)-4] {
			t.Fatalf("%s: %q", f.Name, got[f.Blob])
		}
	}
}
