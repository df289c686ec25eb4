package storage

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// TestAliveChildrenPlan: an edit on the main line reads the few siblings
// around the place it inserts at (createPage, movePage: children with a
// LIMIT) in their order from main_pages_alive, on a parent of many
// children and right after the bulk write that made them (no statistics
// yet): no sort of every child of the parent, whose cost grew with the
// parent on PostgreSQL (migration 0034b).
func TestAliveChildrenPlan(t *testing.T) {
	ctx := context.Background()
	db, sp := testSpace(t)
	rev, err := db.CreateRevision(ctx, RevisionChange{SpaceID: sp.ID, Activate: true, Edit: func(tr *Tree) error {
		parent := &TreePage{ContentPage: ContentPage{ID: "parent", Type: "group", Title: "parent", Slug: "parent"}, Dirty: true}
		for i := range 300 {
			id := fmt.Sprint("child-", i)
			c := &TreePage{ContentPage: ContentPage{ID: id, Type: "document", Title: id, Slug: id}, Dirty: true}
			c.SetBody(id)
			parent.Children = append(parent.Children, c)
		}
		tr.Pages = append(tr.Pages, parent)
		return nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	var seq int64
	if err := db.r().QueryRowContext(ctx, `SELECT seq FROM revisions WHERE id = ?`, rev).Scan(&seq); err != nil {
		t.Fatal(err)
	}
	for _, desc := range []bool{false, true} {
		q := aliveRows + aliveChildren + childrenOrder(desc) + ` LIMIT ? OFFSET ?`
		args := []any{sp.ID, seq, aliveSeq, "parent", "child-7", 2, 5}
		plan := explain(t, db, q, args)
		if !strings.Contains(plan, "main_pages_alive") {
			t.Errorf("plan does not read main_pages_alive:\n%s", plan)
		}
		// SQLite sorts the ties of position only (its index ends with the
		// rowid): the right part of the ORDER BY, never the whole of it.
		// PostgreSQL sorts nothing: the index gives the whole order.
		checkPlan(t, db, plan, []string{"USE TEMP B-TREE FOR ORDER BY"}, nil, []string{"Seq Scan", "Sort"})
	}
}
