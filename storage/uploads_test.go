package storage

import (
	"errors"
	"testing"
	"time"
)

// An upload is stored once under its key, read back whole, refused a
// second time, and purged by age; both engines.
func TestUploads(t *testing.T) {
	ctx := t.Context()
	db, err := Open(testTarget(t), Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	b, err := db.CreateOrganizationWithAdmin(ctx, "Org", "a@example.com", "A", "h1")
	if err != nil {
		t.Fatal(err)
	}
	org := b.Organization.ID
	u := Upload{Key: "k1", OrganizationID: org, Kind: "import", Name: "docs.zip", ContentType: "application/zip", Size: 3, Bytes: []byte("PK\x03")}
	if err := db.PutUpload(ctx, u); err != nil {
		t.Fatal(err)
	}
	if err := db.PutUpload(ctx, u); !errors.Is(err, ErrExists) {
		t.Fatalf("second upload under the same key: %v, want ErrExists", err)
	}
	got, err := db.Upload(ctx, "k1")
	if err != nil || string(got.Bytes) != "PK\x03" || got.Name != "docs.zip" || got.OrganizationID != org || got.Size != 3 {
		t.Fatalf("read back: %+v, %v", got, err)
	}
	if _, err := db.Upload(ctx, "nope"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("unknown key: %v", err)
	}
	if n, err := db.PurgeUploads(ctx, got.CreatedAt); err != nil || n != 0 {
		t.Fatalf("purge before it was made: %d, %v", n, err)
	}
	if n, err := db.PurgeUploads(ctx, got.CreatedAt.Add(time.Millisecond)); err != nil || n != 1 {
		t.Fatalf("purge after: %d, %v", n, err)
	}
	if _, err := db.Upload(ctx, "k1"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("after the purge: %v", err)
	}
}
