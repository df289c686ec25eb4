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
// linksList is the List of ListLinks' cursors (see Cursor).
const linksList = "links"

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
	if err := checkCursor(pq, linksList); err != nil {
		return page, stats, err
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
				page.Next = &Cursor{ID: keys[len(keys)-1], List: linksList}
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
//
// It starts from the links' side: the link rows that name the target
// (linkingVersions, through page_links' indexes), then the revision's rows
// of those versions (rowsOfVersions): rows read in proportion to the links
// that name the target, whatever the size of the space.
func (db *DB) Backlinks(ctx context.Context, revID, kind, target string, pq PageQuery) (Page[string], error) {
	q := db.r()
	rr, err := revisionRowsOf(ctx, q, revID)
	if err != nil {
		return Page[string]{}, err
	}
	if target == "" {
		// No page or file has the empty id (an unresolved link's target
		// is '': it must not count as naming it).
		return Page[string]{}, nil
	}
	name, err := relativeName(ctx, q, rr, revID, kind, target)
	if err != nil {
		return Page[string]{}, err
	}
	versions, vargs := linkingVersions(rr, kind, target, name)
	from, args := rowsOfVersions(rr, versions, vargs)
	spec := listSpec{Select: `rp.page_id, rp.path`, From: `FROM (` + from + `) rp WHERE 1 = 1`,
		Args: args, SortCol: "rp.path", IDCol: "rp.page_id", Text: true}
	return runList(ctx, db, spec, pq, func(rows *sql.Rows) (string, Cursor, error) {
		var id, path string
		err := rows.Scan(&id, &path)
		return id, Cursor{S: path, ID: id}, err
	})
}

// relativeName is what a relative link names when it means target (a page
// or file of revision revID, whose rows are rr): the page's path, the
// file's name when it is the revision's first file of that name; "" when
// no relative link means it (one probe by primary key or name).
func relativeName(ctx context.Context, q queryer, rr revisionRows, revID, kind, target string) (string, error) {
	var name string
	var err error
	switch kind {
	case "page":
		s, a := rr.sql("x.page_id = ?", target)
		err = q.QueryRowContext(ctx, `SELECT y.path FROM (`+s+`) y`, a...).Scan(&name)
	case "file":
		err = q.QueryRowContext(ctx, `SELECT f.name FROM revision_files f WHERE f.revision_id = `+filesOwner+` AND f.file_id = ?
 AND f.file_id = (SELECT MIN(g.file_id) FROM revision_files g WHERE g.revision_id = f.revision_id AND g.name = f.name)`, revID, target).Scan(&name)
	}
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	return name, err
}

// linkingVersions is a SELECT of the page versions with a link of kind that
// means target in revision rr, name being what a relative link names when
// it means target there (the page's path, the file's name when it is the
// first of that name; "" for nothing): a link resolved to it when written
// (page_links_target), or unresolved then and naming it (page_links_lookup:
// its lookup; page_links_lookup_alt: its alternative path, while its lookup
// names no page of the revision). A version may come more than once.
func linkingVersions(rr revisionRows, kind, target, name string) (string, []any) {
	var s sqlText
	s.add(`SELECT l.version FROM page_links l WHERE l.kind = ? AND l.target = ?`, kind, target)
	if name == "" {
		return s.b.String(), s.args
	}
	s.add(` UNION ALL SELECT l.version FROM page_links l WHERE l.kind = ? AND l.target = '' AND l.lookup = ?`, kind, name)
	if kind == "page" {
		none, a := rr.sql("x.path = l.lookup")
		s.add(` UNION ALL SELECT l.version FROM page_links l WHERE l.kind = ? AND l.target = '' AND l.lookup_alt = ? AND l.lookup <> ''`, kind, name)
		s.add(` AND NOT EXISTS (SELECT 1 FROM (`+none+`) z)`, a...)
	}
	return s.b.String(), s.args
}

// rowsOfVersions is a SELECT of revision rr's page rows (page_id, path)
// whose version is one of versions (a SELECT of versions, with its
// arguments): the rows revisionRows.sql gives, found by version instead of
// through the space's pages (main_pages_version on (version, space_id),
// overlay_pages_version on (version, revision_id)). The unary + on the
// sequence numbers keeps SQLite (no statistics) off the index of alive rows.
func rowsOfVersions(rr revisionRows, versions string, vargs []any) (string, []any) {
	var parts []string
	var out []any
	// The versions drive the join (CROSS JOIN: SQLite keeps that order),
	// each once. The path is an expression (|| ''): SQLite pushes the
	// keyset of a later page ((path, page_id) > cursor) down into this
	// SELECT, and on the path column itself it walked the space's paths
	// after the cursor (main_pages_path) instead of seeking the versions.
	from := `SELECT x.page_id, x.path || '' AS path FROM (SELECT DISTINCT c.version FROM (` + versions + `) c) v CROSS JOIN `
	if rr.Overlay != "" {
		parts = append(parts, from+`overlay_pages x WHERE x.version = v.version AND x.revision_id = ?`)
		out = append(append(out, vargs...), rr.Overlay)
	}
	if rr.Seq > 0 {
		// The rows of main@Seq: from_seq <= Seq < to_seq (the alive rows
		// and those closed after Seq), not overridden by the overlay.
		q := from + `main_pages x WHERE x.version = v.version AND x.space_id = ? AND +x.from_seq <= ? AND +x.to_seq > ?`
		out = append(append(out, vargs...), rr.Space, rr.Seq, rr.Seq)
		if rr.Overlay != "" {
			q += ` AND NOT EXISTS (SELECT 1 FROM overlay_pages o WHERE o.revision_id = ? AND o.page_id = x.page_id)`
			out = append(out, rr.Overlay)
		}
		parts = append(parts, q)
	}
	if len(parts) == 0 {
		return `SELECT x.page_id, x.path FROM overlay_pages x WHERE 1 = 0`, nil
	}
	return strings.Join(parts, ` UNION ALL `), out
}
