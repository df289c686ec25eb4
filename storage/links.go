package storage

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
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
// The stats need every link of the scope, so the targets are read once,
// with one join and no subquery per link (scopeTargets), grouped as they
// stream, and kept: a revision's pages, files and links never change, so
// a later read (the next page, another status) costs its limit; only
// whether the spaces and collections they name exist is asked again on
// each read. (revisionLinks ran its subqueries for every link, in four
// statements: 1.8 s for 100,000 URLs at limit 1, 6 s when a third were
// relative page links.)
//
// linksList is the List of ListLinks' cursors (see Cursor).
const linksList = "links"

func (db *DB) ListLinks(ctx context.Context, revID, pageID, status string, pq PageQuery) (Page[LinkUsage], LinkStats, error) {
	if err := checkCursor(pq, linksList); err != nil {
		return Page[LinkUsage]{}, LinkStats{}, err
	}
	pages, err := db.linksOf(ctx, revID, []string{pageID}, status, pq)
	if err != nil {
		return Page[LinkUsage]{}, LinkStats{}, err
	}
	return pages[0].Page, pages[0].Stats, nil
}

// PageLinks is one page's answer of ListLinksOfPages.
type PageLinks struct {
	Page  Page[LinkUsage]
	Stats LinkStats
}

// MaxLinkPages bounds the pages one ListLinksOfPages reads (a revision
// tree the cache keeps is at most 5,000 pages).
const MaxLinkPages = 5000

// ListLinksOfPages is ListLinks for each of pageIDs (each a page id, none
// empty), with the same status and page query: the same answers, in the
// order asked, read with the statements of one ListLinks whatever the
// number of pages (the link rows of all pages not in the cache in one
// join, each lookup of names and ids once for all of them).
func (db *DB) ListLinksOfPages(ctx context.Context, revID string, pageIDs []string, status string, pq PageQuery) ([]PageLinks, error) {
	if err := checkCursor(pq, linksList); err != nil {
		return nil, err
	}
	if len(pageIDs) > MaxLinkPages {
		return nil, fmt.Errorf("storage: links of %d pages at once, more than %d", len(pageIDs), MaxLinkPages)
	}
	for _, id := range pageIDs {
		if id == "" {
			return nil, errors.New("storage: ListLinksOfPages needs page ids")
		}
	}
	return db.linksOf(ctx, revID, pageIDs, status, pq)
}

// linksOf answers ListLinks for each scope of scopes (a page id, or ""
// for the whole revision).
func (db *DB) linksOf(ctx context.Context, revID string, scopes []string, status string, pq PageQuery) ([]PageLinks, error) {
	rr, err := revisionRowsOf(ctx, db.r(), revID)
	if err != nil {
		return nil, err
	}
	groups := make(map[string]*scopeGroups, len(scopes))
	var missing []string
	for _, sc := range scopes {
		if g := db.linkGroups.get(revID + "/" + sc); g != nil {
			groups[sc] = g
		} else if _, seen := groups[sc]; !seen {
			groups[sc] = nil
			missing = append(missing, sc)
		}
	}
	var exists map[string]bool
	err = db.ReadTx(ctx, func(q queryer) error {
		if len(missing) > 0 {
			read, err := scopeTargetsOf(ctx, q, rr, revID, missing)
			if err != nil {
				return err
			}
			for _, sc := range missing {
				groups[sc] = read[sc]
				db.linkGroups.put(revID+"/"+sc, read[sc])
			}
		}
		var outside []string
		for _, sc := range scopes {
			outside = append(outside, groups[sc].outside...)
		}
		exists, err = outsideExisting(ctx, q, rr, distinct(outside))
		return err
	})
	if err != nil {
		return nil, err
	}
	out := make([]PageLinks, len(scopes))
	for i, sc := range scopes {
		out[i].Page, out[i].Stats = linksPage(groups[sc], exists, status, pq)
	}
	return out, nil
}

// linksPage is the page pq of a scope's targets of status ("" for all),
// with the stats of all its targets.
func linksPage(sc *scopeGroups, exists map[string]bool, status string, pq PageQuery) (Page[LinkUsage], LinkStats) {
	var page Page[LinkUsage]
	var stats LinkStats
	var keys []*linkGroup // of the status asked, sorted
	for _, g := range sc.sorted {
		st := g.statusWith(exists)
		stats.Total++
		if st == "broken" {
			stats.Broken++
		}
		if status == "" || st == status {
			keys = append(keys, g)
		}
	}
	page.Count = len(keys)
	from := 0
	if pq.After != nil {
		from, _ = slices.BinarySearchFunc(keys, pq.After.ID, func(g *linkGroup, k string) int { return strings.Compare(g.key, k) })
		if from < len(keys) && keys[from].key == pq.After.ID {
			from++
		}
	}
	for i, g := range keys[from:] {
		if i == pq.Limit {
			next := Cursor{Start: true} // limit 0: the next page starts where this one did (runList's rule)
			if pq.After != nil {
				next = *pq.After
			}
			if i > 0 {
				next = Cursor{ID: keys[from+i-1].key}
			}
			next.List = linksList
			page.Next = &next
			break
		}
		page.Items = append(page.Items, LinkUsage{Kind: g.kind, Target: g.target, Dest: g.dest, Status: g.statusWith(exists),
			PageIDs: slices.Compact(slices.Sorted(slices.Values(g.pageIDs)))})
	}
	return page, stats
}

// linkGroup is one target of a scope's links: kind and target, or the
// destination as written for a link that resolves to nothing (key is
// "kind:target-or-dest", the list's order and cursor).
type linkGroup struct {
	key, kind, target, dest string
	inApp                   bool // one of its links is in-app
	broken                  bool // a page or file target not in the revision
	pageIDs                 []string
}

// statusWith is g's status (broken > in-app > ok), a space or
// collection target being broken unless exists names it.
func (g *linkGroup) statusWith(exists map[string]bool) string {
	switch {
	case g.broken, (g.kind == "space" || g.kind == "collection") && !exists[g.kind+":"+g.target]:
		return "broken"
	case g.inApp:
		return "in-app"
	}
	return "ok"
}

// scopeGroups are the targets of a revision's links (of one page).
type scopeGroups struct {
	sorted  []*linkGroup
	outside []string // "kind:id" of space and collection targets
}

// outsideExisting asks which of the space and collection targets outside
// ("kind:id") exist now in the space's organization (alive spaces,
// collections).
func outsideExisting(ctx context.Context, q queryer, rr revisionRows, outside []string) (map[string]bool, error) {
	exists := map[string]bool{}
	for kind, from := range map[string]string{"space": "spaces s WHERE s.deleted_at IS NULL AND", "collection": "collections s WHERE"} {
		var ids []string
		for _, t := range outside {
			if id, ok := strings.CutPrefix(t, kind+":"); ok {
				ids = append(ids, id)
			}
		}
		found, err := lookupIn(ctx, q, ids, func(chunk []string) (string, []any) {
			return `SELECT s.id, s.id FROM ` + from + ` s.organization_id = (SELECT o.organization_id FROM spaces o WHERE o.id = ?)
 AND s.id IN (` + placeholders(len(chunk)) + `)`, append([]any{rr.Space}, anySlice(chunk)...)
		})
		if err != nil {
			return nil, err
		}
		for id := range found {
			exists[kind+":"+id] = true
		}
	}
	return exists, nil
}

// scopeTargetsOf reads the link rows of revision rr's pages for each scope
// of scopes (a page id, or "" for all the revision's pages) in one join
// (a chunk of page ids each) and groups them by scope and target as they
// stream.
// A relative link unresolved when written is resolved here (revisionLinks'
// rule: the page at its path, else at its alternative path; the
// revision's first file of its name), and page and file targets are
// checked, each with one batched lookup of the distinct names or ids.
func scopeTargetsOf(ctx context.Context, q queryer, rr revisionRows, revID string, scopes []string) (map[string]*scopeGroups, error) {
	type unresolved struct {
		pageID, kind, dest, lookup, lookupAlt string
		inApp                                 bool
	}
	var pending []unresolved
	whole := slices.Contains(scopes, "")
	byScope := map[string]map[string]*linkGroup{}
	for _, sc := range scopes {
		byScope[sc] = map[string]*linkGroup{}
	}
	interned := map[string]string{} // page ids and kinds: one string each, not one a link
	intern := func(b []byte) string {
		if s, ok := interned[string(b)]; ok {
			return s
		}
		s := string(b)
		interned[s] = s
		return s
	}
	addTo := func(byKey map[string]*linkGroup, pageID, kind, target, dest string, inApp bool) {
		if byKey == nil {
			return
		}
		id := target
		if id == "" {
			id = dest
		}
		k := kind + ":" + id
		g := byKey[k]
		if g == nil {
			g = &linkGroup{key: k, kind: kind, target: target, dest: dest}
			byKey[k] = g
		}
		g.dest = min(g.dest, dest)
		g.inApp = g.inApp || inApp
		if n := len(g.pageIDs); n == 0 || g.pageIDs[n-1] != pageID {
			g.pageIDs = append(g.pageIDs, pageID)
		}
	}
	add := func(pageID, kind, target, dest string, inApp bool) {
		if whole {
			addTo(byScope[""], pageID, kind, target, dest, inApp)
		}
		addTo(byScope[pageID], pageID, kind, target, dest, inApp)
	}
	read := func(cond string, args ...any) error {
		pages, pargs := rr.sql(cond, args...)
		rows, err := q.QueryContext(ctx, `SELECT rp.page_id, l.kind, l.target, l.dest, l.in_app, l.lookup, l.lookup_alt
 FROM (`+pages+`) rp JOIN page_links l ON l.version = rp.version`, pargs...)
		if err != nil {
			return err
		}
		defer rows.Close()
		var rawPage, rawKind sql.RawBytes
		for rows.Next() {
			var target, dest, lookup, lookupAlt string
			var inApp int
			if err := rows.Scan(&rawPage, &rawKind, &target, &dest, &inApp, &lookup, &lookupAlt); err != nil {
				return err
			}
			pid, kind := intern(rawPage), intern(rawKind)
			if !whole && byScope[pid] == nil {
				continue // a page not asked (the whole revision is read for many pages)
			}
			if target == "" && lookup != "" && (kind == "page" || kind == "file") {
				pending = append(pending, unresolved{pid, kind, dest, lookup, lookupAlt, inApp == 1})
				continue
			}
			if kind == "url" && target == dest {
				target = dest // one string for both
			}
			add(pid, kind, target, dest, inApp == 1)
		}
		return rows.Err()
	}
	if whole || len(scopes) > inListMax {
		// More pages than one IN list takes: one read of the revision's
		// links, keeping those of the pages asked.
		if err := read(""); err != nil {
			return nil, err
		}
	} else if err := inChunks(scopes, func(chunk []string) error {
		return read("x.page_id IN ("+placeholders(len(chunk))+")", anySlice(chunk)...)
	}); err != nil {
		return nil, err
	}
	names := func(kind string, alt bool) []string {
		set := map[string]bool{}
		for _, u := range pending {
			if u.kind == kind {
				set[u.lookup] = true
				if alt && u.lookupAlt != "" {
					set[u.lookupAlt] = true
				}
			}
		}
		return slices.Sorted(maps.Keys(set))
	}
	pageAt, err := lookupIn(ctx, q, names("page", true), func(chunk []string) (string, []any) {
		s, a := rr.sql("x.path IN ("+placeholders(len(chunk))+")", anySlice(chunk)...)
		return `SELECT y.path, y.page_id FROM (` + s + `) y`, a
	})
	if err != nil {
		return nil, err
	}
	fileNamed, err := lookupIn(ctx, q, names("file", false), func(chunk []string) (string, []any) {
		return `SELECT f.name, MIN(f.file_id) FROM revision_files f WHERE f.revision_id = ` + filesOwner + ` AND f.name IN (` + placeholders(len(chunk)) + `) GROUP BY f.name`,
			append([]any{revID}, anySlice(chunk)...)
	})
	if err != nil {
		return nil, err
	}
	for _, u := range pending {
		var target string
		if u.kind == "file" {
			target = fileNamed[u.lookup]
		} else if target = pageAt[u.lookup]; target == "" && u.lookupAlt != "" {
			target = pageAt[u.lookupAlt]
		}
		add(u.pageID, u.kind, target, u.dest, u.inApp)
	}
	pending = nil
	out := make(map[string]*scopeGroups, len(byScope))
	for sc, byKey := range byScope {
		g := &scopeGroups{sorted: slices.Collect(maps.Values(byKey))}
		slices.SortFunc(g.sorted, func(a, b *linkGroup) int { return strings.Compare(a.key, b.key) })
		out[sc] = g
	}
	targets := func(kind string) []string {
		var ids []string
		for _, sg := range out {
			for _, g := range sg.sorted {
				if g.kind == kind && g.target != "" {
					ids = append(ids, g.target)
				}
			}
		}
		return distinct(ids)
	}
	pagesThere, err := lookupIn(ctx, q, targets("page"), func(chunk []string) (string, []any) {
		s, a := rr.sql("x.page_id IN ("+placeholders(len(chunk))+")", anySlice(chunk)...)
		return `SELECT y.page_id, y.page_id FROM (` + s + `) y`, a
	})
	if err != nil {
		return nil, err
	}
	filesThere, err := lookupIn(ctx, q, targets("file"), func(chunk []string) (string, []any) {
		return `SELECT f.file_id, f.file_id FROM revision_files f WHERE f.revision_id = ` + filesOwner + ` AND f.file_id IN (` + placeholders(len(chunk)) + `)`,
			append([]any{revID}, anySlice(chunk)...)
	})
	if err != nil {
		return nil, err
	}
	for _, sg := range out {
		for _, g := range sg.sorted {
			switch g.kind {
			case "page":
				g.broken = pagesThere[g.target] == ""
			case "file":
				g.broken = filesThere[g.target] == ""
			case "space", "collection":
				sg.outside = append(sg.outside, g.kind+":"+g.target)
			}
		}
	}
	return out, nil
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

// linkGroupCache keeps the scopeGroups of recent reads, up to
// maxCachedTargets targets in all (the oldest go first).
type linkGroupCache struct {
	mu      sync.Mutex
	byKey   map[string]*scopeGroups
	order   []string
	targets int
}

// maxCachedTargets bounds the link targets kept between reads (about
// 150 bytes each).
const maxCachedTargets = 300_000

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
	if _, ok := c.byKey[key]; ok || len(s.sorted) > maxCachedTargets/2 {
		return
	}
	c.byKey[key], c.order, c.targets = s, append(c.order, key), c.targets+len(s.sorted)
	for c.targets > maxCachedTargets {
		old := c.order[0]
		c.order = c.order[1:]
		c.targets -= len(c.byKey[old].sorted)
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
		// A sharing duplicate's sources (space_sources.go): each one's
		// rows at min(Seq, its cap), for the pages no earlier one has.
		rr.eachSource(func(src string, seq int64, none string, nargs []any) {
			q := from + `main_pages x WHERE x.version = v.version AND x.space_id = ? AND +x.from_seq <= ? AND +x.to_seq > ? AND ` + none
			out = append(append(append(out, vargs...), src, seq, seq), nargs...)
			if rr.Overlay != "" {
				q += ` AND NOT EXISTS (SELECT 1 FROM overlay_pages o WHERE o.revision_id = ? AND o.page_id = x.page_id)`
				out = append(out, rr.Overlay)
			}
			parts = append(parts, q)
		})
	}
	if len(parts) == 0 {
		return `SELECT x.page_id, x.path FROM overlay_pages x WHERE 1 = 0`, nil
	}
	return strings.Join(parts, ` UNION ALL `), out
}

// BacklinksOfPages is Backlinks of each page of targets (kind "page"), with
// the same page query: the same answers, in the order asked, taken from the
// revision's link targets (the scope of ListLinks without a page, kept
// between reads: a revision's links never change) and its cached page
// tree, so that asking for the backlinks of a thousand pages costs the
// statements of one read of the revision's links, none once it is kept.
// Backlinks and ListLinks resolve links by the same rule (revisionLinks').
func (db *DB) BacklinksOfPages(ctx context.Context, revID string, targets []string, pq PageQuery) ([]Page[string], error) {
	if err := checkCursor(pq, backlinksTag); err != nil {
		return nil, err
	}
	if len(targets) > MaxLinkPages {
		return nil, fmt.Errorf("storage: backlinks of %d pages at once, more than %d", len(targets), MaxLinkPages)
	}
	out := make([]Page[string], len(targets))
	if len(targets) == 0 {
		return out, nil
	}
	rr, err := revisionRowsOf(ctx, db.r(), revID)
	if err != nil {
		return nil, err
	}
	sc := db.linkGroups.get(revID + "/")
	if sc == nil {
		// The levels of one tree ask at once: one of them reads.
		v, err, _ := db.linkScopeLoads.Do(revID, func() (any, error) {
			if sc := db.linkGroups.get(revID + "/"); sc != nil {
				return sc, nil
			}
			var sc *scopeGroups
			err := db.ReadTx(ctx, func(q queryer) error {
				read, err := scopeTargetsOf(ctx, q, rr, revID, []string{""})
				sc = read[""]
				return err
			})
			if err != nil {
				return nil, err
			}
			db.linkGroups.put(revID+"/", sc)
			return sc, nil
		})
		if err != nil {
			return nil, err
		}
		sc = v.(*scopeGroups)
	}
	pages, err := db.RevisionPages(ctx, revID)
	if err != nil {
		return nil, err
	}
	pathOf := make(map[string]string, len(pages))
	for _, p := range pages {
		pathOf[p.ID] = p.Path
	}
	for i, target := range targets {
		if target == "" {
			continue // no page has the empty id (Backlinks' rule)
		}
		k := "page:" + target
		j, found := slices.BinarySearchFunc(sc.sorted, k, func(g *linkGroup, k string) int { return strings.Compare(g.key, k) })
		if !found || sc.sorted[j].target != target {
			continue
		}
		type linking struct{ path, id string }
		var from []linking
		for _, id := range slices.Compact(slices.Sorted(slices.Values(sc.sorted[j].pageIDs))) {
			from = append(from, linking{pathOf[id], id})
		}
		slices.SortFunc(from, func(a, b linking) int {
			if c := strings.Compare(a.path, b.path); c != 0 {
				return c
			}
			return strings.Compare(a.id, b.id)
		})
		p := &out[i]
		p.Count = len(from)
		start := 0
		if pq.After != nil {
			start, _ = slices.BinarySearchFunc(from, *pq.After, func(l linking, c Cursor) int {
				if d := strings.Compare(l.path, c.S); d != 0 {
					return d
				}
				return strings.Compare(l.id, c.ID)
			})
			if start < len(from) && from[start].path == pq.After.S && from[start].id == pq.After.ID {
				start++
			}
		}
		for n, l := range from[start:] {
			if n == pq.Limit {
				next := Cursor{Start: true} // limit 0: the next page starts where this one did (runList's rule)
				if pq.After != nil {
					next = *pq.After
				}
				if n > 0 {
					next = Cursor{S: from[start+n-1].path, ID: from[start+n-1].id}
				}
				next.List = backlinksTag
				p.Next = &next
				break
			}
			p.Items = append(p.Items, l.id)
		}
	}
	return out, nil
}

// backlinksTag is the List of Backlinks' cursors: the tag of its listSpec
// (a FROM of a subquery, by path then page id).
var backlinksTag = listSpec{From: "FROM (SELECT", SortCol: "rp.path", IDCol: "rp.page_id"}.tag()

// LinkTarget is the page or file of the revision a link destination of a
// page resolves to.
type LinkTarget struct {
	Kind   string // page | file
	Target string
}

// PageLinkTargets maps the destinations of pageID's links (as written in
// its Markdown) that resolve to a page or a file of revID to that page or
// file, in one statement (revisionLinks scoped to the page): what a
// document read turns into page and file references.
func (db *DB) PageLinkTargets(ctx context.Context, revID, pageID string) (map[string]LinkTarget, error) {
	return keptRead(ctx, db, keptKey("page link targets", revID, pageID), rowsOf(func(m map[string]LinkTarget) int { return len(m) }),
		func() (map[string]LinkTarget, error) { return db.pageLinkTargets(ctx, revID, pageID) })
}

func (db *DB) pageLinkTargets(ctx context.Context, revID, pageID string) (map[string]LinkTarget, error) {
	rr, err := revisionRowsOf(ctx, db.r(), revID)
	if err != nil {
		return nil, err
	}
	q, args := revisionLinks(rr, revID, pageID)
	rows, err := db.r().QueryContext(ctx, `SELECT l.kind, l.target, l.dest FROM (`+q+`) l
 WHERE l.kind IN ('page', 'file') AND l.target <> '' AND l.status <> 'broken'`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]LinkTarget{}
	for rows.Next() {
		var dest string
		var t LinkTarget
		if err := rows.Scan(&t.Kind, &t.Target, &dest); err != nil {
			return nil, err
		}
		out[dest] = t
	}
	return out, rows.Err()
}

// maxPathLookups bounds the page paths one PagesAtPaths call looks up: a
// document names at most this many distinct pages by path.
const maxPathLookups = 1000

// PagesAtPaths maps those of paths that are page paths of revID to their
// page ids, in one statement: how the links of content that is not a page
// (a reusable content's body) find the pages they name when read. At most
// maxPathLookups paths are looked up; the rest are left unresolved.
func (db *DB) PagesAtPaths(ctx context.Context, revID string, paths []string) (map[string]string, error) {
	out := map[string]string{}
	if len(paths) == 0 {
		return out, nil
	}
	if len(paths) > maxPathLookups {
		paths = paths[:maxPathLookups]
	}
	rr, err := revisionRowsOf(ctx, db.r(), revID)
	if err != nil {
		return nil, err
	}
	q, args := pagesAtPathsSQL(rr, paths)
	rows, err := db.r().QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var id, p string
		if err := rows.Scan(&id, &p); err != nil {
			return nil, err
		}
		out[p] = id
	}
	return out, rows.Err()
}

// pagesAtPathsSQL is PagesAtPaths' statement: revision rr's rows at paths
// (revisionRows.sql, through the path indexes).
func pagesAtPathsSQL(rr revisionRows, paths []string) (string, []any) {
	q, args := rr.sql("x.path IN ("+placeholders(len(paths))+")", anySlice(paths)...)
	return `SELECT y.page_id, y.path FROM (` + q + `) y`, args
}
