package storage

import (
	"context"
	"database/sql"
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

// linkStatus is the SQL of a link's status in revision rp.revision_id.
const linkStatus = `CASE WHEN EXISTS (SELECT 1 FROM revision_broken_links b WHERE b.revision_id = rp.revision_id AND b.version = l.version AND b.ordinal = l.ordinal) THEN 'broken'
 WHEN l.in_app = 1 THEN 'in-app' ELSE 'ok' END`

// linkTarget is a link's target in revision rp.revision_id: what it
// resolved to when written, else what the revision's lookup found
// (revision_link_targets r, left-joined).
const linkTarget = `COALESCE(r.target, l.target)`

// linkKey groups the links of a revision by target (unresolved relative
// links by what was written).
const linkKey = `l.kind || ':' || CASE WHEN ` + linkTarget + ` = '' THEN l.dest ELSE ` + linkTarget + ` END`

// revisionLinks joins the links of a revision's pages with the revision's
// lookups.
const revisionLinks = `FROM revision_pages rp JOIN page_links l ON l.version = rp.version
 LEFT JOIN revision_link_targets r ON r.revision_id = rp.revision_id AND r.version = l.version AND r.ordinal = l.ordinal`

// ListLinks pages through the link targets of a revision (of one page when
// pageID is set), optionally of one status, ordered by target. Stats count
// all targets of the same scope regardless of status.
func (db *DB) ListLinks(ctx context.Context, revID, pageID, status string, pq PageQuery) (Page[LinkUsage], LinkStats, error) {
	var page Page[LinkUsage]
	var stats LinkStats
	base := `SELECT ` + linkKey + ` AS k, l.kind, ` + linkTarget + ` AS target, l.dest, ` + linkStatus + ` AS status, rp.page_id
 ` + revisionLinks + ` WHERE rp.revision_id = ?`
	args := []any{revID}
	if pageID != "" {
		base += ` AND rp.page_id = ?`
		args = append(args, pageID)
	}
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
	err := db.ReadTx(ctx, func(q queryer) error {
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
// file (kind "page" or "file"), in tree order: links resolved when written,
// and links the revision's lookups resolved.
func (db *DB) Backlinks(ctx context.Context, revID, kind, target string, pq PageQuery) (Page[string], error) {
	spec := listSpec{Select: `rp.page_id, rp.position`,
		From: `FROM revision_pages rp WHERE rp.revision_id = ? AND (EXISTS (SELECT 1 FROM page_links l WHERE l.version = rp.version AND l.kind = ? AND l.target = ?)
 OR EXISTS (SELECT 1 FROM revision_link_targets r JOIN page_links l ON l.version = r.version AND l.ordinal = r.ordinal
   WHERE r.revision_id = rp.revision_id AND r.target = ? AND r.version = rp.version AND l.kind = ?))`,
		Args: []any{revID, kind, target, target, kind}, SortCol: "rp.position", IDCol: "rp.page_id"}
	return runList(ctx, db, spec, pq, func(rows *sql.Rows) (string, Cursor, error) {
		var id string
		var pos int64
		err := rows.Scan(&id, &pos)
		return id, Cursor{N: pos, ID: id}, err
	})
}
