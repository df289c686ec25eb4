package storage

import (
	"strings"
	"testing"
)

// The reads that find what a merge touched are index ranges (SQLite's
// plans), not walks of the space's rows: the pages written after the base
// (main_pages_from), those closed after it (main_pages_alive), the change
// request's overlay rows (its primary key).
func TestDeltaMergeQueriesUseIndexes(t *testing.T) {
	if TestOnPostgres() {
		t.Skip("SQLite's plans")
	}
	db, sp := testSpace(t)
	for _, c := range []struct {
		q     string
		args  []any
		index string
	}{
		{`SELECT page_id FROM main_pages WHERE space_id = ? AND from_seq > ?`, []any{sp.ID, 1}, "main_pages_from"},
		{`SELECT page_id FROM main_pages WHERE space_id = ? AND to_seq > ? AND to_seq < ?`, []any{sp.ID, 1, aliveSeq}, "main_pages_alive"},
		{`SELECT page_id FROM overlay_pages WHERE revision_id = ?`, []any{"r"}, ""},
	} {
		plan := strings.Join(queryPlan(t, db, c.q, c.args), "; ")
		if strings.Contains(plan, "SCAN") || !strings.Contains(plan, c.index) || !strings.Contains(plan, "SEARCH") {
			t.Errorf("%s: plan %q, want a search of %s", c.q, plan, c.index)
		}
	}
}
