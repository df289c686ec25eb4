package storage

import (
	"errors"
	"testing"
)

// A glossary batch is all or nothing, keeps its order, and stays within
// its organization; both engines.
func TestGlossaryBatch(t *testing.T) {
	ctx := t.Context()
	db, err := Open(testTarget(t), Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	a, err := db.CreateOrganizationWithAdmin(ctx, "A", "a@example.com", "A", "h1")
	if err != nil {
		t.Fatal(err)
	}
	b, err := db.CreateOrganizationWithAdmin(ctx, "B", "b@example.com", "B", "h2")
	if err != nil {
		t.Fatal(err)
	}
	orgA, orgB := a.Organization.ID, b.Organization.ID
	var ops []GlossaryOp
	for _, s := range []string{"z", "a", "m"} {
		ops = append(ops, GlossaryOp{Type: "insert", Translations: `{"en":"` + s + `"}`})
	}
	if err := db.ApplyGlossaryOps(ctx, orgA, ops, 100); err != nil {
		t.Fatal(err)
	}
	all, err := db.Glossary(ctx, orgA)
	if err != nil || len(all) != 3 || all[0].Translations != `{"en":"z"}` || all[2].Translations != `{"en":"m"}` {
		t.Fatalf("glossary %+v, %v (want the batch's order)", all, err)
	}
	page, err := db.ListGlossaryEntries(ctx, orgA, PageQuery{Limit: 2})
	if err != nil || len(page.Items) != 2 || page.Items[1].ID != all[1].ID {
		t.Fatalf("page %+v, %v", page, err)
	}
	err = db.ApplyGlossaryOps(ctx, orgA, []GlossaryOp{{Type: "delete", ID: all[0].ID}, {Type: "update", ID: "nope", Translations: `{}`}}, 100)
	var missing *GlossaryOpMissing
	if !errors.As(err, &missing) || missing.Index != 1 || !errors.Is(err, ErrNotFound) {
		t.Fatalf("unknown id: %v", err)
	}
	if _, err := db.GlossaryEntry(ctx, orgA, all[0].ID); err != nil {
		t.Fatalf("the delete of a failed batch was applied: %v", err)
	}
	if err := db.ApplyGlossaryOps(ctx, orgB, []GlossaryOp{{Type: "delete", ID: all[0].ID}}, 100); !errors.As(err, &missing) {
		t.Fatalf("another organization's entry: %v", err)
	}
	if _, err := db.GlossaryEntry(ctx, orgB, all[0].ID); !errors.Is(err, ErrNotFound) {
		t.Fatalf("read from another organization: %v", err)
	}
	if err := db.ApplyGlossaryOps(ctx, orgA, []GlossaryOp{{Type: "update", ID: all[1].ID, Translations: `{"fr":"b"}`}, {Type: "delete", ID: all[2].ID}}, 100); err != nil {
		t.Fatal(err)
	}
	if g, err := db.GlossaryEntry(ctx, orgA, all[1].ID); err != nil || g.Translations != `{"fr":"b"}` {
		t.Fatalf("updated %+v, %v", g, err)
	}
	if all, _ := db.Glossary(ctx, orgA); len(all) != 2 {
		t.Fatalf("after delete %d entries", len(all))
	}
	// A batch that would pass the bound is refused whole, counted in its
	// own transaction.
	over := []GlossaryOp{{Type: "insert", Translations: `{"en":"x"}`}, {Type: "insert", Translations: `{"en":"y"}`}}
	if err := db.ApplyGlossaryOps(ctx, orgA, over, 3); !errors.Is(err, ErrGlossaryFull) {
		t.Fatalf("a batch over the bound: %v", err)
	}
	if all, _ := db.Glossary(ctx, orgA); len(all) != 2 {
		t.Fatalf("a refused batch left %d entries", len(all))
	}
}
