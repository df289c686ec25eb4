package storage

import (
	"context"
	"database/sql"
	"errors"
	"strings"
)

// LinkUsage is one link target of a revision with the pages linking to it.
type LinkUsage struct {
	Kind    string
	Target  string
	Dest    string
	Status  string // ok | broken | in-app
	PageIDs []string
}

// LinkStats counts a revision's (or a page's) link targets.
type LinkStats struct {
	Total  int
	Broken int
}

// sqlText assembles a statement and its arguments in the order they appear.
type sqlText struct {
	b    strings.Builder
	args []any
}

func (s *sqlText) add(q string, args ...any) *sqlText {
	s.b.WriteString(q)
	s.args = append(s.args, args...)
	return s
}

// revisionLinks is the SELECT of the links of revision rr's pages (of one
// page when pageID is set), resolved and checked when read against the
// revision's pages and files through their indexes: k (the grouping key:
// kind and target, or what was written for a link that resolves to
// nothing), kind, target, dest, status (ok | broken | in-app), page_id.
//
// A link's target is what it resolved to when its page version was
// written, else (a relative link that matched nothing then) the page of the
// revision at its path (lookup, then lookup_alt) or the first file of the
// revision with its name (lookup). It is broken when that page or file is
// not in the revision, or the space or collection it names does not exist
// in the space's organization.
func revisionLinks(rr revisionRows, revID, pageID string) (string, []any) {
	pageCond, pageArgs := "", []any{}
	if pageID != "" {
		pageCond, pageArgs = "x.page_id = ?", []any{pageID}
	}
	byPath := func(col string) (string, []any) {
		q, a := rr.sql("x.path = " + col)
		return `(SELECT y.page_id FROM (` + q + `) y LIMIT 1)`, a
	}
	lookup, lookupArgs := byPath("l.lookup")
	alt, altArgs := byPath("l.lookup_alt")
	exists, existsArgs := rr.sql("x.page_id = t.target")
	pages, pagesArgs := rr.sql(pageCond, pageArgs...)
	var s sqlText
	s.add(`SELECT t.kind || ':' || CASE WHEN t.target = '' THEN t.dest ELSE t.target END AS k, t.kind, t.target, t.dest,
 CASE WHEN (t.kind = 'page' AND NOT EXISTS (SELECT 1 FROM (`+exists+`) e))`, existsArgs...)
	s.add(`
   OR (t.kind = 'file' AND NOT EXISTS (SELECT 1 FROM revision_files f WHERE f.revision_id = `+filesOwner+` AND f.file_id = t.target))
   OR (t.kind = 'space' AND NOT EXISTS (SELECT 1 FROM spaces s WHERE s.id = t.target AND s.deleted_at IS NULL
     AND s.organization_id = (SELECT o.organization_id FROM spaces o WHERE o.id = ?)))
   OR (t.kind = 'collection' AND NOT EXISTS (SELECT 1 FROM collections c WHERE c.id = t.target
     AND c.organization_id = (SELECT o.organization_id FROM spaces o WHERE o.id = ?)))
 THEN 'broken' WHEN t.in_app = 1 THEN 'in-app' ELSE 'ok' END AS status, t.page_id
 FROM (SELECT l.kind, l.dest, l.in_app, rp.page_id, CASE
   WHEN l.target <> '' OR l.lookup = '' OR l.kind NOT IN ('page', 'file') THEN l.target
   WHEN l.kind = 'file' THEN COALESCE((SELECT MIN(f.file_id) FROM revision_files f WHERE f.revision_id = `+filesOwner+` AND f.name = l.lookup), '')
   ELSE COALESCE(`, revID, rr.Space, rr.Space, revID)
	s.add(lookup, lookupArgs...)
	s.add(`, CASE WHEN l.lookup_alt <> '' THEN `)
	s.add(alt, altArgs...)
	s.add(` END, '') END AS target
 FROM (`+pages+`) rp JOIN page_links l ON l.version = rp.version) t`, pagesArgs...)
	return s.b.String(), s.args
}

// ListLinks pages through the link targets of a revision (of one page when
// pageID is set), optionally of one status, ordered by target. Stats count
// all targets of the same scope regardless of status.
func (db *DB) ListLinks(ctx context.Context, revID, pageID, status string, pq PageQuery) (Page[LinkUsage], LinkStats, error) {
	var page Page[LinkUsage]
	var stats LinkStats
	rr, err := revisionRowsOf(ctx, db.r(), revID)
	if err != nil {
		return page, stats, err
	}
	base, args := revisionLinks(rr, revID, pageID)
	// One row per target: its worst status (broken > in-app > ok).
	grouped := `SELECT k, MIN(kind) AS kind, MIN(target) AS target, MIN(dest) AS dest,
 CASE WHEN SUM(CASE WHEN status = 'broken' THEN 1 ELSE 0 END) > 0 THEN 'broken' WHEN SUM(CASE WHEN status = 'in-app' THEN 1 ELSE 0 END) > 0 THEN 'in-app' ELSE 'ok' END AS status
 FROM (` + base + `) u GROUP BY k`
	filter, fargs := ` WHERE 1 = 1`, append([]any{}, args...)
	if status != "" {
		filter += ` AND g.status = ?`
		fargs = append(fargs, status)
	}
	after := ""
	largs := append([]any{}, fargs...)
	if pq.After != nil {
		after = ` AND g.k > ?`
		largs = append(largs, pq.After.ID)
	}
	largs = append(largs, pq.Limit+1)
	err = db.ReadTx(ctx, func(q queryer) error {
		if err := q.QueryRowContext(ctx, `SELECT COUNT(*), COALESCE(SUM(CASE WHEN g.status = 'broken' THEN 1 ELSE 0 END), 0) FROM (`+grouped+`) g`, args...).
			Scan(&stats.Total, &stats.Broken); err != nil {
			return err
		}
		if err := q.QueryRowContext(ctx, `SELECT COUNT(*) FROM (`+grouped+`) g`+filter, fargs...).Scan(&page.Count); err != nil {
			return err
		}
		rows, err := q.QueryContext(ctx, `SELECT g.k, g.kind, g.target, g.dest, g.status FROM (`+grouped+`) g`+filter+after+` ORDER BY g.k LIMIT ?`, largs...)
		if err != nil {
			return err
		}
		var keys []string
		for rows.Next() {
			var u LinkUsage
			var k string
			if err := rows.Scan(&k, &u.Kind, &u.Target, &u.Dest, &u.Status); err != nil {
				rows.Close()
				return err
			}
			if len(page.Items) == pq.Limit {
				page.Next = &Cursor{ID: keys[len(keys)-1]}
				break
			}
			page.Items = append(page.Items, u)
			keys = append(keys, k)
		}
		rows.Close()
		if err := rows.Err(); err != nil || len(keys) == 0 {
			return err
		}
		// The linking pages of this page's targets, in one query.
		in := strings.TrimSuffix(strings.Repeat("?, ", len(keys)), ", ")
		pargs := append(append([]any{}, args...), anySlice(keys)...)
		prow, err := q.QueryContext(ctx, `SELECT DISTINCT u.k, u.page_id FROM (`+base+`) u WHERE u.k IN (`+in+`) ORDER BY u.k, u.page_id`, pargs...)
		if err != nil {
			return err
		}
		defer prow.Close()
		pages := map[string][]string{}
		for prow.Next() {
			var k, pid string
			if err := prow.Scan(&k, &pid); err != nil {
				return err
			}
			pages[k] = append(pages[k], pid)
		}
		for i := range page.Items {
			page.Items[i].PageIDs = pages[keys[i]]
		}
		return prow.Err()
	})
	return page, stats, err
}

// Backlinks pages through the pages of a revision that link to a page or
// file (kind "page" or "file"), by path (a keyset the cursor follows; only
// document pages, which have unique paths, make links): links resolved when
// written, and relative links that resolve to the target in this revision
// (revisionLinks' rule: its path, else its alternative path when the first
// names no page; the first file of the revision with its name).
func (db *DB) Backlinks(ctx context.Context, revID, kind, target string, pq PageQuery) (Page[string], error) {
	q := db.r()
	rr, err := revisionRowsOf(ctx, q, revID)
	if err != nil {
		return Page[string]{}, err
	}
	// What a relative link names when it means target here ("" if nothing).
	var name string
	switch kind {
	case "page":
		s, a := rr.sql("x.page_id = ?", target)
		err = q.QueryRowContext(ctx, `SELECT y.path FROM (`+s+`) y`, a...).Scan(&name)
	case "file":
		err = q.QueryRowContext(ctx, `SELECT f.name FROM revision_files f WHERE f.revision_id = `+filesOwner+` AND f.file_id = ?
 AND f.file_id = (SELECT MIN(g.file_id) FROM revision_files g WHERE g.revision_id = f.revision_id AND g.name = f.name)`, revID, target).Scan(&name)
	}
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return Page[string]{}, err
	}
	var cond sqlText
	cond.add(`EXISTS (SELECT 1 FROM page_links l WHERE l.version = x.version AND l.kind = ? AND (l.target = ?`, kind, target)
	switch {
	case name != "" && kind == "page":
		none, a := rr.sql("x.path = l.lookup")
		cond.add(` OR (l.target = '' AND (l.lookup = ? OR (l.lookup <> '' AND l.lookup_alt = ? AND NOT EXISTS (SELECT 1 FROM (`, name, name)
		cond.add(none+`) z))))`, a...)
	case name != "":
		cond.add(` OR (l.target = '' AND l.lookup = ?)`, name)
	}
	cond.add(`))`)
	from, args := rr.sql(cond.b.String(), cond.args...)
	spec := listSpec{Select: `rp.page_id, rp.path`, From: `FROM (` + from + `) rp WHERE 1 = 1`,
		Args: args, SortCol: "rp.path", IDCol: "rp.page_id", Text: true}
	return runList(ctx, db, spec, pq, func(rows *sql.Rows) (string, Cursor, error) {
		var id, path string
		err := rows.Scan(&id, &path)
		return id, Cursor{S: path, ID: id}, err
	})
}
