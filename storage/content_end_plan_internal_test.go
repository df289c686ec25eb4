package storage

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// A create reads the end of its level (endPosition) by one row of each
// table's by-level index, whatever the level's size and however old the
// planner's statistics: on PostgreSQL the statistics are taken while the
// organization is small, then the level grows, as when an organization
// creates thousands of spaces between two autovacuum analyses.
func TestEndPositionReadsOneRow(t *testing.T) {
	ctx := context.Background()
	db, sp := testSpace(t)
	org := sp.OrganizationID
	col := Collection{OrganizationID: org, Title: "c"}
	if err := db.CreateCollection(ctx, &col); err != nil {
		t.Fatal(err)
	}
	create := func(n int, parent *string) {
		for i := range n {
			s := Space{OrganizationID: org, ParentID: parent, Title: fmt.Sprint("s", i), Visibility: "private", EditMode: "live"}
			if err := db.CreateSpace(ctx, &s); err != nil {
				t.Fatal(err)
			}
			c := Collection{OrganizationID: org, ParentID: parent, Title: fmt.Sprint("c", i)}
			if err := db.CreateCollection(ctx, &c); err != nil {
				t.Fatal(err)
			}
		}
	}
	create(3, nil)
	create(3, &col.ID)
	if db.dialect.name() != "sqlite" {
		for _, table := range []string{"spaces", "collections"} {
			if _, err := db.write.ExecContext(ctx, `ANALYZE `+table); err != nil {
				t.Fatal(err)
			}
		}
	}
	create(200, nil)
	create(200, &col.ID)
	for _, c := range []struct {
		q    string
		args []any
	}{
		{topLevelEndSQL, []any{org, org}},
		{collectionEndSQL, []any{col.ID, org, col.ID, org, col.ID}},
	} {
		plan := explain(t, db, c.q, c.args)
		if !strings.Contains(plan, "spaces_by_level") {
			t.Errorf("plan does not read spaces_by_level:\n%s", plan)
		}
		// PostgreSQL may read a collection's children by collections_by_parent,
		// as one row too; nothing is sorted.
		checkPlan(t, db, plan, []string{"USE TEMP B-TREE", "SCAN spaces", "SCAN collections"}, []string{"collections_by_level"}, []string{"Seq Scan on spaces", "Sort"})
	}
	// And the end it reads is the level's last position.
	var want string
	if err := db.r().QueryRowContext(ctx, `SELECT MAX(p) FROM (SELECT position AS p FROM spaces WHERE parent_id = ? UNION ALL SELECT position FROM collections WHERE parent_id = ?) x`, col.ID, col.ID).Scan(&want); err != nil {
		t.Fatal(err)
	}
	err := db.Write(ctx, func(tx *Tx) error {
		got, _, err := endPosition(tx, org, &col.ID)
		if err == nil && got != want {
			t.Errorf("end of the collection: %q, want %q", got, want)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}
