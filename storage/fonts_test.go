package storage_test

import (
	"context"
	"errors"
	"testing"

	"docsapi/storage"
	"docsapi/storage/storagetest"
)

// Custom fonts on both engines: faces ordered by weight, a replaced face
// gets a new file id, the check refuses (and rolls back) an update, and a
// delete takes the files with it.
func TestCustomFonts(t *testing.T) {
	ctx := context.Background()
	db := openDB(t, storagetest.Target(t))
	b, err := db.CreateOrganizationWithAdmin(ctx, "Org", "a@example.com", "A", "h1")
	if err != nil {
		t.Fatal(err)
	}
	org := b.Organization.ID
	file := func(w int, data string) storage.CustomFontFile {
		return storage.CustomFontFile{CustomFontFace: storage.CustomFontFace{Weight: w, Format: "woff2"}, Bytes: []byte(data)}
	}
	f := storage.CustomFont{OrganizationID: org, FontFamily: "Acme"}
	if err := db.CreateCustomFont(ctx, &f, []storage.CustomFontFile{file(700, "b"), file(400, "r")}); err != nil {
		t.Fatal(err)
	}
	if len(f.Faces) != 2 || f.Faces[0].Weight != 400 || f.Faces[1].Weight != 700 {
		t.Fatalf("faces: %+v", f.Faces)
	}
	old := f.Faces[0].FileID
	if got, err := db.CustomFontFile(ctx, f.ID, old); err != nil || string(got.Bytes) != "r" {
		t.Fatalf("file: %+v %v", got, err)
	}
	if _, err := db.CustomFont(ctx, "other", f.ID); !errors.Is(err, storage.ErrNotFound) {
		t.Errorf("another organization's font: %v", err)
	}

	refused := errors.New("refused")
	family := "Acme 2"
	err = db.UpdateCustomFont(ctx, org, f.ID, &family, nil, []int{400}, func([]storage.CustomFontFace) error { return refused })
	if !errors.Is(err, refused) {
		t.Fatalf("refused update: %v", err)
	}
	if got, _ := db.CustomFont(ctx, org, f.ID); got.FontFamily != "Acme" || len(got.Faces) != 2 {
		t.Fatalf("a refused update changed the font: %+v", got)
	}
	err = db.UpdateCustomFont(ctx, org, f.ID, &family, []storage.CustomFontFile{file(400, "r2")}, []int{700}, func([]storage.CustomFontFace) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	got, _ := db.CustomFont(ctx, org, f.ID)
	if got.FontFamily != "Acme 2" || len(got.Faces) != 1 || got.Faces[0].FileID == old {
		t.Fatalf("updated: %+v", got)
	}
	if _, err := db.CustomFontFile(ctx, f.ID, old); !errors.Is(err, storage.ErrNotFound) {
		t.Errorf("replaced file: %v", err)
	}
	if p, err := db.ListCustomFonts(ctx, org, storage.PageQuery{Limit: 10}); err != nil || p.Count != 1 || len(p.Items[0].Faces) != 1 {
		t.Errorf("list: %+v %v", p, err)
	}
	if ok, err := db.DeleteCustomFont(ctx, org, f.ID); !ok || err != nil {
		t.Fatalf("delete: %v %v", ok, err)
	}
	if _, err := db.CustomFontFile(ctx, f.ID, got.Faces[0].FileID); !errors.Is(err, storage.ErrNotFound) {
		t.Errorf("a deleted font's file: %v", err)
	}
	if ok, _ := db.DeleteCustomFont(ctx, org, f.ID); ok {
		t.Error("deleted twice")
	}
}
