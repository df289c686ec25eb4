package storage

import (
	"context"
	"database/sql"
	"errors"
	"maps"
	"slices"
	"strings"
	"sync"
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
//
// The stats need every link of the scope, so it reads the scope's link
// rows once, with one join and no subquery per row, and resolves and
// checks them (revisionLinks' rules) through batched lookups of the
// distinct paths, names and ids they mention; grouping, stats, the count
// and the page are made from that one read. (revisionLinks ran its
// subqueries for every link in four statements: 6 s for one page of
// 100,000 links at limit 1.)
func (db *DB) ListLinks(ctx context.Context, revID, pageID, status string, pq PageQuery) (Page[LinkUsage], LinkStats, error) {
	var page Page[LinkUsage]
	var stats LinkStats
	rr, err := revisionRowsOf(ctx, db.r(), revID)
	if err != nil {
		return page, stats, err
	}
	// A revision's pages, files and links never change: its resolved
	// targets are read once and kept; only whether the spaces and
	// collections they name still exist is asked again on each read.
	cacheKey := revID + "/" + pageID
	sc := db.linkGroups.get(cacheKey)
	err = db.ReadTx(ctx, func(q queryer) error {
		if sc == nil {
			links, err := scopeLinks(ctx, q, rr, pageID)
			if err != nil {
				return err
			}
			if err := resolveLinks(ctx, q, rr, revID, links); err != nil {
				return err
			}
			sc = groupLinks(links)
			db.linkGroups.put(cacheKey, sc)
		}
		return sc.checkOutside(ctx, q, rr)
	})
	if err != nil {
		return page, stats, err
	}
	groups := sc.groups
	keys := make([]string, 0, len(groups))
	for _, k := range sc.keys {
		g := groups[k]
		st := sc.statusOf(g)
		stats.Total++
		if st == "broken" {
			stats.Broken++
		}
		if status == "" || st == status {
			keys = append(keys, k)
		}
	}
	page.Count = len(keys)
	from := 0
	if pq.After != nil {
		from, _ = slices.BinarySearch(keys, pq.After.ID)
		if from < len(keys) && keys[from] == pq.After.ID {
			from++
		}
	}
	for _, k := range keys[from:] {
		if len(page.Items) == pq.Limit {
			next := Cursor{Start: true} // limit 0: the next page starts where this one did (runList's rule)
			if pq.After != nil {
				next = *pq.After
			}
			if len(page.Items) > 0 {
				next = Cursor{ID: keys[from+len(page.Items)-1]}
			}
			page.Next = &next
			break
		}
		g := groups[k]
		u := g.LinkUsage
		u.Status = sc.statusOf(g)
		page.Items = append(page.Items, u)
	}
	return page, stats, nil
}

// scopeLink is one link row of a page of the scope.
type scopeLink struct {
	pageID, kind, target, dest, lookup, lookupAlt string
	inApp                                         bool
	status                                        string
}

// scopeLinks reads the link rows of revision rr's pages (of one page when
// pageID is set).
func scopeLinks(ctx context.Context, q queryer, rr revisionRows, pageID string) ([]scopeLink, error) {
	cond, args := "", []any{}
	if pageID != "" {
		cond, args = "x.page_id = ?", []any{pageID}
	}
	pages, pargs := rr.sql(cond, args...)
	rows, err := q.QueryContext(ctx, `SELECT rp.page_id, l.kind, l.target, l.dest, l.in_app, l.lookup, l.lookup_alt
 FROM (`+pages+`) rp JOIN page_links l ON l.version = rp.version`, pargs...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []scopeLink
	for rows.Next() {
		var l scopeLink
		var inApp int
		if err := rows.Scan(&l.pageID, &l.kind, &l.target, &l.dest, &inApp, &l.lookup, &l.lookupAlt); err != nil {
			return nil, err
		}
		l.inApp = inApp == 1
		out = append(out, l)
	}
	return out, rows.Err()
}

// resolveLinks sets each link's target (a relative link unresolved when
// written: the page of the revision at its path, else at its alternative
// path; the revision's first file of its name) and status (broken when its
// page or file is not in the revision; in-app; ok: spaces and collections
// are checked on each read, checkOutside), with one batched lookup per
// kind of name or id.
func resolveLinks(ctx context.Context, q queryer, rr revisionRows, revID string, links []scopeLink) error {
	want := func(kind string, pick func(l scopeLink) []string) []string {
		set := map[string]bool{}
		for _, l := range links {
			if l.kind == kind {
				for _, v := range pick(l) {
					if v != "" {
						set[v] = true
					}
				}
			}
		}
		return slices.Sorted(maps.Keys(set))
	}
	unresolved := func(l scopeLink) bool { return l.target == "" && l.lookup != "" }
	pathOf, err := lookupIn(ctx, q, want("page", func(l scopeLink) []string {
		if unresolved(l) {
			return []string{l.lookup, l.lookupAlt}
		}
		return nil
	}), func(chunk []string) (string, []any) {
		s, a := rr.sql("x.path IN ("+placeholders(len(chunk))+")", anySlice(chunk)...)
		return `SELECT y.path, y.page_id FROM (` + s + `) y`, a
	})
	if err != nil {
		return err
	}
	fileNamed, err := lookupIn(ctx, q, want("file", func(l scopeLink) []string {
		if unresolved(l) {
			return []string{l.lookup}
		}
		return nil
	}), func(chunk []string) (string, []any) {
		return `SELECT f.name, MIN(f.file_id) FROM revision_files f WHERE f.revision_id = ` + filesOwner + ` AND f.name IN (` + placeholders(len(chunk)) + `) GROUP BY f.name`,
			append([]any{revID}, anySlice(chunk)...)
	})
	if err != nil {
		return err
	}
	for i := range links {
		l := &links[i]
		if !unresolved(*l) {
			continue
		}
		switch l.kind {
		case "page":
			l.target = pathOf[l.lookup]
			if l.target == "" && l.lookupAlt != "" {
				l.target = pathOf[l.lookupAlt]
			}
		case "file":
			l.target = fileNamed[l.lookup]
		}
	}
	target := func(l scopeLink) []string { return []string{l.target} }
	exists := map[string]map[string]string{}
	for kind, sel := range map[string]func(chunk []string) (string, []any){
		"page": func(chunk []string) (string, []any) {
			s, a := rr.sql("x.page_id IN ("+placeholders(len(chunk))+")", anySlice(chunk)...)
			return `SELECT y.page_id, y.page_id FROM (` + s + `) y`, a
		},
		"file": func(chunk []string) (string, []any) {
			return `SELECT f.file_id, f.file_id FROM revision_files f WHERE f.revision_id = ` + filesOwner + ` AND f.file_id IN (` + placeholders(len(chunk)) + `)`,
				append([]any{revID}, anySlice(chunk)...)
		},
	} {
		if exists[kind], err = lookupIn(ctx, q, want(kind, target), sel); err != nil {
			return err
		}
	}
	for i := range links {
		l := &links[i]
		switch {
		case exists[l.kind] != nil && exists[l.kind][l.target] == "":
			l.status = "broken"
		case l.inApp:
			l.status = "in-app"
		default:
			l.status = "ok"
		}
	}
	return nil
}

// lookupIn maps each of names to what sel's statement answers for it
// (its first two columns: name, value), in chunks of IN lists; sel makes
// the statement and its arguments for a chunk.
func lookupIn(ctx context.Context, q queryer, names []string, sel func(chunk []string) (string, []any)) (map[string]string, error) {
	out := map[string]string{}
	err := inChunks(names, func(chunk []string) error {
		query, args := sel(chunk)
		rows, err := q.QueryContext(ctx, query, args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var name, value string
			if err := rows.Scan(&name, &value); err != nil {
				return err
			}
			if _, seen := out[name]; !seen {
				out[name] = value
			}
		}
		return rows.Err()
	})
	return out, err
}

// linkGroup is one target of the list: its links' worst status (broken >
// in-app > ok) and the pages making them.
type linkGroup struct {
	LinkUsage
	inApp bool // one of its links is in-app
}

// scopeGroups are the targets of a revision's links (of one page), kept
// between reads; outside says which space and collection targets exist
// now (checkOutside, on each read).
type scopeGroups struct {
	groups  map[string]*linkGroup
	keys    []string // sorted
	outside []string // space and collection targets
	mu      sync.Mutex
	exists  map[string]bool
	links   int
}

// statusOf is g's status, a space or collection target's as checked last.
func (s *scopeGroups) statusOf(g *linkGroup) string {
	if g.Kind != "space" && g.Kind != "collection" {
		return g.Status
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case !s.exists[g.Kind+":"+g.Target]:
		return "broken"
	case g.inApp:
		return "in-app"
	}
	return "ok"
}

// checkOutside asks which of the space and collection targets exist in
// the space's organization (alive spaces, collections).
func (s *scopeGroups) checkOutside(ctx context.Context, q queryer, rr revisionRows) error {
	exists := map[string]bool{}
	for kind, table := range map[string]string{"space": "spaces s WHERE s.deleted_at IS NULL AND", "collection": "collections s WHERE"} {
		var ids []string
		for _, t := range s.outside {
			if id, ok := strings.CutPrefix(t, kind+":"); ok {
				ids = append(ids, id)
			}
		}
		found, err := lookupIn(ctx, q, ids, func(chunk []string) (string, []any) {
			return `SELECT s.id, s.id FROM ` + table + ` s.organization_id = (SELECT o.organization_id FROM spaces o WHERE o.id = ?)
 AND s.id IN (` + placeholders(len(chunk)) + `)`, append([]any{rr.Space}, anySlice(chunk)...)
		})
		if err != nil {
			return err
		}
		for id := range found {
			exists[kind+":"+id] = true
		}
	}
	s.mu.Lock()
	s.exists = exists
	s.mu.Unlock()
	return nil
}

// groupLinks groups links by target (kind and target, or the destination
// as written for a link that resolves to nothing).
func groupLinks(links []scopeLink) *scopeGroups {
	rank := map[string]int{"ok": 0, "in-app": 1, "broken": 2}
	out := &scopeGroups{groups: map[string]*linkGroup{}, links: len(links)}
	for _, l := range links {
		k := l.kind + ":" + l.target
		if l.target == "" {
			k = l.kind + ":" + l.dest
		}
		g := out.groups[k]
		if g == nil {
			g = &linkGroup{LinkUsage: LinkUsage{Kind: l.kind, Target: l.target, Dest: l.dest, Status: l.status}}
			out.groups[k] = g
			out.keys = append(out.keys, k)
			if l.kind == "space" || l.kind == "collection" {
				out.outside = append(out.outside, l.kind+":"+l.target)
			}
		}
		g.Target, g.Dest = min(g.Target, l.target), min(g.Dest, l.dest)
		g.inApp = g.inApp || l.inApp
		if rank[l.status] > rank[g.Status] {
			g.Status = l.status
		}
		g.PageIDs = append(g.PageIDs, l.pageID)
	}
	slices.Sort(out.keys)
	for _, g := range out.groups {
		g.PageIDs = slices.Compact(slices.Sorted(slices.Values(g.PageIDs)))
	}
	return out
}

// linkGroupCache keeps the scopeGroups of recent reads, up to
// maxCachedLinks links in all (the oldest go first).
type linkGroupCache struct {
	mu    sync.Mutex
	byKey map[string]*scopeGroups
	order []string
	links int
}

const maxCachedLinks = 1_000_000

func (c *linkGroupCache) get(key string) *scopeGroups {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.byKey[key]
}

func (c *linkGroupCache) put(key string, s *scopeGroups) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.byKey == nil {
		c.byKey = map[string]*scopeGroups{}
	}
	if _, ok := c.byKey[key]; ok || s.links > maxCachedLinks/4 {
		return
	}
	c.byKey[key], c.order, c.links = s, append(c.order, key), c.links+s.links
	for c.links > maxCachedLinks {
		old := c.order[0]
		c.order = c.order[1:]
		c.links -= c.byKey[old].links
		delete(c.byKey, old)
	}
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
