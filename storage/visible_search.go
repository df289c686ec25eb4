package storage

import (
	"context"
	"sort"
	"strings"
)

// SearchableSpaces is what an organization-wide search reads for one
// reader: the live spaces of f.OrganizationID that f.Visible
// names and whose search index holds pages, sorted by id, with their
// titles. It reads whichever is smaller: the spaces the reader sees
// (counted from the stored class counts), read the way their list reads
// them (searchableSpacesSQL: a member's view as the union of its index
// ranges, each space's index row by primary key), or the organization's
// indexed spaces (search_spaces_by_org, migration 0030h) filtered by the
// view in SQL. So a search costs min(visible, indexed) rows, never every
// space of the organization. Only f.OrganizationID, f.ParentID and
// f.Visible are read.
func (db *DB) SearchableSpaces(ctx context.Context, f SpaceFilter) ([]string, map[string]string, error) {
	f = SpaceFilter{OrganizationID: f.OrganizationID, ParentID: f.ParentID, Visible: f.Visible}
	if v := f.Visible; v != nil && v.Grantee == nil && len(v.IDs) == 0 && v.Installation == "" {
		return nil, map[string]string{}, nil // a view of nothing
	}
	titles := map[string]string{}
	var ids []string
	err := db.ReadTx(ctx, func(tx queryer) error {
		visible := -1 // unknown
		if parts := spaceCount(f); parts != nil {
			visible = 0
			for _, p := range parts {
				var n int
				if err := db.counts.count(ctx, tx, p, &n); err != nil {
					return err
				}
				visible += n
			}
		} else if f.Visible != nil {
			visible = len(f.Visible.IDs)
		}
		q, args := searchableSpacesSQL(f)
		if visible >= 0 {
			var indexed int
			if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM (SELECT 1 FROM search_spaces WHERE organization_id = ? LIMIT ?) x`,
				f.OrganizationID, visible+1).Scan(&indexed); err != nil {
				return err
			}
			if indexed <= visible {
				q, args = indexedSpacesSQL(f)
			}
		}
		rows, err := tx.QueryContext(ctx, q, args...)
		return eachRow(rows, err, func(sc interface{ Scan(...any) error }) error {
			var id, title string
			if err := sc.Scan(&id, &title); err != nil {
				return err
			}
			if _, dup := titles[id]; !dup { // a granted space may come from several ranges
				ids = append(ids, id)
			}
			titles[id] = title
			return nil
		})
	})
	if err != nil {
		return nil, nil, err
	}
	sort.Strings(ids)
	return ids, titles, nil
}

// indexedSpacesSQL is the organization's indexed spaces that f.Visible
// names: search_spaces_by_org first (CROSS JOIN keeps SQLite to that
// order), each space by primary key, the view tested per row.
func indexedSpacesSQL(f SpaceFilter) (string, []any) {
	q := `SELECT s.id, s.title FROM search_spaces ss CROSS JOIN spaces s WHERE ss.organization_id = ? AND ss.docs > 0 AND s.id = ss.space_id
 AND s.organization_id = ss.organization_id AND s.deleted_at IS NULL`
	args := []any{f.OrganizationID}
	if f.ParentID != nil {
		q += ` AND s.parent_id = ?`
		args = append(args, *f.ParentID)
	}
	if f.Visible != nil {
		q += ` AND ` + f.Visible.sql()
	}
	return q, args
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
