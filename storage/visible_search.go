package storage

import (
	"context"
	"sort"
	"strings"
)

// SearchableSpaces is what an organization-wide search reads for one
// reader (issue 32): the live spaces of f.OrganizationID that f.Visible
// names and whose search index holds pages, sorted by id, with their
// titles. The visible spaces are read the way their list reads them: a
// member's view as the union of its index ranges (visibleSpaceRanges,
// unordered here), each joined with search_spaces by primary key, so a
// reader who sees few spaces costs their spaces, not the organization's;
// any other view (everything, an installation's selection) as the
// organization's spaces filtered in SQL. Only f.OrganizationID, f.ParentID
// and f.Visible are read.
func (db *DB) SearchableSpaces(ctx context.Context, f SpaceFilter) ([]string, map[string]string, error) {
	q, args := searchableSpacesSQL(f)
	rows, err := db.r().QueryContext(ctx, q, args...)
	titles := map[string]string{}
	var ids []string
	if err := eachRow(rows, err, func(sc interface{ Scan(...any) error }) error {
		var id, title string
		if err := sc.Scan(&id, &title); err != nil {
			return err
		}
		if _, dup := titles[id]; !dup { // a granted space may come from several ranges
			ids = append(ids, id)
		}
		titles[id] = title
		return nil
	}); err != nil {
		return nil, nil, err
	}
	sort.Strings(ids)
	return ids, titles, nil
}

// searchableSpacesSQL is SearchableSpaces' statement: its rows are (id,
// title), an id possibly more than once.
func searchableSpacesSQL(f SpaceFilter) (string, []any) {
	const indexed = ` AND EXISTS (SELECT 1 FROM search_spaces ss WHERE ss.space_id = s.id AND ss.docs > 0)`
	if m := visibleSpaceRanges(SpaceFilter{OrganizationID: f.OrganizationID, ParentID: f.ParentID, Visible: f.Visible}); m != nil && len(m.Arms) <= maxMergedArms {
		var b strings.Builder
		var args []any
		for i, a := range m.Arms {
			if i > 0 {
				b.WriteString(" UNION ALL ")
			}
			b.WriteString("SELECT s.id, s.title " + a.From + indexed)
			args = append(args, a.Args...)
		}
		if len(m.Arms) == 0 {
			return `SELECT s.id, s.title FROM spaces s WHERE 1 = 0`, nil
		}
		return b.String(), args
	}
	q := `SELECT s.id, s.title FROM spaces s WHERE s.organization_id = ? AND s.deleted_at IS NULL`
	args := []any{f.OrganizationID}
	if f.ParentID != nil {
		q += ` AND s.parent_id = ?`
		args = append(args, *f.ParentID)
	}
	if f.Visible != nil {
		q += ` AND ` + f.Visible.sql()
	}
	return q + indexed, args
}
