package storage

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// linkSpecAnalyzer reads a page's links from its body, one token each:
// "P=id" a page link resolved to id, "R=lookup|alt" a relative page link
// that matched nothing when written, "F=id" a file link resolved to id,
// "N=name" one to a file name that matched nothing, "U=url" a URL.
type linkSpecAnalyzer struct{}

func (linkSpecAnalyzer) Links(p *TreePage, _ *Tree) []PageLink {
	var out []PageLink
	for _, tok := range strings.Fields(p.Markdown) {
		k, v, ok := strings.Cut(tok, "=")
		if !ok {
			continue
		}
		switch k {
		case "P":
			out = append(out, PageLink{Kind: "page", Target: v, Dest: v})
		case "R":
			lookup, alt, _ := strings.Cut(v, "|")
			out = append(out, PageLink{Kind: "page", Dest: v, Lookup: lookup, LookupAlt: alt})
		case "F":
			out = append(out, PageLink{Kind: "file", Target: v, Dest: v})
		case "N":
			out = append(out, PageLink{Kind: "file", Dest: v, Lookup: v})
		case "U":
			out = append(out, PageLink{Kind: "url", Target: v, Dest: v})
		}
	}
	return out
}

func (linkSpecAnalyzer) Sections(p *TreePage) []SearchSection { return nil }

// backlinksByScan is Backlinks as it was before it started from the links'
// side: every page of the revision, in path order, tested with an EXISTS
// on its version's links. The reference the new query must agree with.
func backlinksByScan(ctx context.Context, db *DB, revID, kind, target string, pq PageQuery) (Page[string], error) {
	q := db.r()
	rr, err := revisionRowsOf(ctx, q, revID)
	if err != nil {
		return Page[string]{}, err
	}
	name, err := relativeName(ctx, q, rr, revID, kind, target) // unchanged
	if err != nil {
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

// allBacklinks pages through a target's backlinks limit at a time with
// list, and writes down every page: its items, count and cursor.
func allBacklinks(t *testing.T, list func(PageQuery) (Page[string], error), limit int) string {
	t.Helper()
	var b strings.Builder
	pq := PageQuery{Limit: limit}
	for range 100 {
		p, err := list(pq)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "%v #%d", p.Items, p.Count)
		if p.Next == nil {
			return b.String()
		}
		fmt.Fprintf(&b, " next %q/%q; ", p.Next.S, p.Next.ID)
		pq.After = p.Next
	}
	t.Fatal("more than 100 pages of backlinks")
	return ""
}

// Backlinks from the links' side gives what the scan of every page gave:
// on random revisions of the main line (the active one and older ones), on
// change requests based on older main-line revisions, on a duplicate of
// the space (sharing page versions) that then goes its own way; pages
// added, deleted, moved and renamed (paths change under relative links),
// relative links resolving through lookup and lookup_alt, links to files
// (several of one name), deleted targets, cursors through several pages.
func TestBacklinksMatchThePageScan(t *testing.T) {
	ctx := context.Background()
	db, err := Open(testTarget(t), Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	org, err := db.CreateOrganizationWithAdmin(ctx, "Org", "a@example.com", "A", "h1")
	if err != nil {
		t.Fatal(err)
	}
	sp := Space{OrganizationID: org.Organization.ID, Title: "S", Visibility: "private", EditMode: "live"}
	if err := db.CreateSpace(ctx, &sp); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(15, 24))
	slugs := []string{"a", "b", "c", "d"}
	fileNames := []string{"x.png", "y.png"}
	var pageIDs, fileIDs []string
	var paths []string // the paths of the tree being edited
	randomPath := func() string {
		if len(paths) > 0 && rng.IntN(2) == 0 {
			return paths[rng.IntN(len(paths))]
		}
		parts := make([]string, 1+rng.IntN(3))
		for i := range parts {
			parts[i] = slugs[rng.IntN(len(slugs))]
		}
		return strings.Join(parts, "/")
	}
	randomBody := func() string {
		var toks []string
		for range rng.IntN(5) {
			switch rng.IntN(6) {
			case 0:
				if len(pageIDs) > 0 {
					toks = append(toks, "P="+pageIDs[rng.IntN(len(pageIDs))])
				}
			case 1, 2:
				lookup, alt := randomPath(), ""
				if rng.IntN(3) > 0 {
					alt = randomPath()
				}
				if rng.IntN(8) == 0 {
					lookup = ""
				}
				toks = append(toks, "R="+lookup+"|"+alt)
			case 3:
				if len(fileIDs) > 0 {
					toks = append(toks, "F="+fileIDs[rng.IntN(len(fileIDs))])
				}
			case 4:
				toks = append(toks, "N="+fileNames[rng.IntN(len(fileNames))])
			case 5:
				toks = append(toks, "U=https://example.com/"+randomPath())
			}
		}
		return strings.Join(toks, " ")
	}
	// editTree makes n random changes to a tree.
	editTree := func(tr *Tree, n int) {
		for range n {
			var all []*TreePage
			paths = paths[:0]
			tr.Walk(func(p, _ *TreePage) bool {
				all = append(all, p)
				if p.Path != "" {
					paths = append(paths, p.Path)
				}
				return true
			})
			pick := func() *TreePage { return all[rng.IntN(len(all))] }
			op := rng.IntN(8)
			if len(all) < 3 {
				op = 0
			}
			switch op {
			case 0, 1: // add
				id := fmt.Sprint("p", len(pageIDs))
				pageIDs = append(pageIDs, id)
				np := &TreePage{ContentPage: ContentPage{ID: id, Type: "document", Title: id, Slug: slugs[rng.IntN(len(slugs))]}}
				np.SetBody(randomBody())
				list := &tr.Pages
				if len(all) > 0 && rng.IntN(3) > 0 {
					list = &pick().Children
				}
				*list = slices.Insert(*list, rng.IntN(len(*list)+1), np)
			case 2: // delete (with its subtree)
				_, list, i := tr.Find(pick().ID)
				*list = slices.Delete(*list, i, i+1)
			case 3: // move
				p, list, i := tr.Find(pick().ID)
				*list = slices.Delete(*list, i, i+1)
				var rest []*TreePage
				tr.Walk(func(q, _ *TreePage) bool { rest = append(rest, q); return true })
				to := &tr.Pages
				if len(rest) > 0 && rng.IntN(3) > 0 {
					to = &rest[rng.IntN(len(rest))].Children
				}
				*to = slices.Insert(*to, rng.IntN(len(*to)+1), p)
			case 4: // rename
				p := pick()
				p.Slug, p.Dirty = slugs[rng.IntN(len(slugs))], true
			case 5, 6: // new body, new links
				pick().SetBody(randomBody())
			case 7: // files
				if len(tr.Files) > 0 && rng.IntN(2) == 0 {
					i := rng.IntN(len(tr.Files))
					tr.Files = slices.Delete(tr.Files, i, i+1)
					continue
				}
				id := fmt.Sprint("f", len(fileIDs))
				fileIDs = append(fileIDs, id)
				tr.Files = append(tr.Files, &File{ID: id, Name: fileNames[rng.IntN(len(fileNames))], ContentType: "image/png", Bytes: []byte(id)})
			}
		}
	}
	write := func(c RevisionChange, n int) string {
		t.Helper()
		c.Analyzer = linkSpecAnalyzer{}
		c.Edit = func(tr *Tree) error { editTree(tr, n); return nil }
		rev, err := db.CreateRevision(ctx, c)
		if err != nil {
			t.Fatal(err)
		}
		return rev
	}
	type crState struct{ id, space, head string }
	var revs []string
	var crs []*crState
	spaces := []string{sp.ID}
	mainRevs := map[string][]string{}
	rounds := 24
	if raceDetector {
		rounds = 12
	}
	compare := func(round int) {
		t.Helper()
		checked := 0
		pick := slices.Clone(revs)
		rng.Shuffle(len(pick), func(i, j int) { pick[i], pick[j] = pick[j], pick[i] })
		for _, rev := range pick[:min(len(pick), 5)] {
			for _, target := range append(append([]string{}, pageIDs...), fileIDs...) {
				kind := "page"
				if target[0] == 'f' {
					kind = "file"
				}
				limit := 1 + rng.IntN(3)
				want := allBacklinks(t, func(pq PageQuery) (Page[string], error) { return backlinksByScan(ctx, db, rev, kind, target, pq) }, limit)
				got := allBacklinks(t, func(pq PageQuery) (Page[string], error) { return db.Backlinks(ctx, rev, kind, target, pq) }, limit)
				if got != want {
					t.Fatalf("round %d, revision %s, %s %s, limit %d:\n got %s\nwant %s", round, rev, kind, target, limit, got, want)
				}
				if want != "[] #0" {
					checked++
				}
			}
		}
		if checked == 0 {
			t.Errorf("round %d: no target with backlinks: the comparison proves nothing", round)
		}
	}
	for round := range rounds {
		// The main line of each space.
		for _, space := range spaces {
			for range 1 + rng.IntN(2) {
				rev := write(RevisionChange{SpaceID: space, Activate: true}, 2+rng.IntN(6))
				revs = append(revs, rev)
				mainRevs[space] = append(mainRevs[space], rev)
			}
		}
		// Change requests: opened on the main line as it is now, edited
		// again rounds later (their base stays older).
		if rng.IntN(3) == 0 {
			space := spaces[rng.IntN(len(spaces))]
			cr, err := db.CreateChangeRequest(ctx, "", space, org.User.ID, "cr", nil)
			if err != nil {
				t.Fatal(err)
			}
			crs = append(crs, &crState{id: cr.ID, space: space})
		}
		for _, cr := range crs {
			if rng.IntN(2) == 0 {
				cr.head = write(RevisionChange{SpaceID: cr.space, ChangeRequest: cr.id, Author: org.User.ID}, 1+rng.IntN(4))
				revs = append(revs, cr.head)
			}
		}
		// A duplicate shares every page version with its source.
		if round == rounds/3 {
			dup, err := db.DuplicateSpace(ctx, sp.ID, "copy")
			if err != nil {
				t.Fatal(err)
			}
			spaces = append(spaces, dup)
			head, err := db.spaceHeadRevision(dup)
			if err != nil {
				t.Fatal(err)
			}
			revs = append(revs, head)
		}
		compare(round)
	}
	if len(crs) == 0 || len(spaces) < 2 {
		t.Fatalf("the random rounds made %d change requests and %d spaces", len(crs), len(spaces))
	}
}

// backlinksSpace opens a database with a space of pages pages (ten parts
// of pages/10 document children, the shape of BenchmarkOnePageEdit's) in
// which page-3-7 has 3 backlinks: a link resolved to it, a relative link
// whose lookup is its path, one whose lookup_alt is (its lookup naming no
// page); and file f1 (the first of two named "x.png") 2: one resolved,
// one by name. The other pages link to each other, so that the space has
// a link per page.
type linkedSpace struct {
	db                  *DB
	space, user, active string
}

func backlinksSpace(tb testing.TB, pages int) linkedSpace {
	tb.Helper()
	ctx := context.Background()
	db, err := Open(testTarget(tb), Options{})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close() })
	org, err := db.CreateOrganizationWithAdmin(ctx, "Org", "a@example.com", "A", "h1")
	if err != nil {
		tb.Fatal(err)
	}
	sp := Space{OrganizationID: org.Organization.ID, Title: "S", Visibility: "private", EditMode: "live"}
	if err := db.CreateSpace(ctx, &sp); err != nil {
		tb.Fatal(err)
	}
	rev, err := db.CreateRevision(ctx, RevisionChange{SpaceID: sp.ID, Activate: true, Analyzer: linkSpecAnalyzer{}, Edit: func(t *Tree) error {
		per := pages / 10
		for part := range 10 {
			id := fmt.Sprintf("part-%d", part)
			pp := &TreePage{ContentPage: ContentPage{ID: id, Type: "document", Title: id, Slug: id}}
			pp.SetBody("")
			for i := range per - 1 {
				cid := fmt.Sprintf("page-%d-%d", part, i)
				c := &TreePage{ContentPage: ContentPage{ID: cid, Type: "document", Title: cid, Slug: cid}}
				// Each page links to its next sibling and to a missing page.
				c.SetBody(fmt.Sprintf("P=page-%d-%d R=part-%d/missing-%d|", part, i+1, part, i))
				pp.Children = append(pp.Children, c)
			}
			t.Pages = append(t.Pages, pp)
		}
		_, list, _ := t.Find("page-1-1")
		(*list)[1].SetBody("P=page-3-7 F=f1")
		(*list)[2].SetBody("R=part-3/page-3-7|")
		(*list)[3].SetBody("R=nowhere|part-3/page-3-7 N=x.png")
		_, list, _ = t.Find("page-3-6")
		(*list)[6].SetBody("") // page-3-6 no longer links to page-3-7
		t.Files = []*File{{ID: "f1", Name: "x.png", ContentType: "image/png", Bytes: []byte("1")},
			{ID: "f2", Name: "x.png", ContentType: "image/png", Bytes: []byte("2")}}
		return nil
	}})
	if err != nil {
		tb.Fatal(err)
	}
	return linkedSpace{db: db, space: sp.ID, user: org.User.ID, active: rev}
}

// Backlinks reads what names the target, not the space: in a 1,000- and a
// 10,000-page space the answer is the same 3 pages (2 for the file) and,
// on SQLite, every table of the statement is searched through an index
// (EXPLAIN QUERY PLAN: no scan, no search by the space alone). The other
// revision reads of links.go and pages.go (a page by id and by path, a
// page's children, a page's links) are held to the same plans.
func TestBacklinksReadWhatNamesTheTarget(t *testing.T) {
	ctx := context.Background()
	for _, pages := range []int{1_000, 10_000} {
		ls := backlinksSpace(t, pages)
		db := ls.db
		// A change request's revision (an overlay on the main line)
		// changing a page near the target.
		cr, err := db.CreateChangeRequest(ctx, "", ls.space, ls.user, "cr", nil)
		if err != nil {
			t.Fatal(err)
		}
		head, err := db.CreateRevision(ctx, RevisionChange{SpaceID: ls.space, ChangeRequest: cr.ID, Author: ls.user, Analyzer: linkSpecAnalyzer{},
			Edit: func(tr *Tree) error {
				p, _, _ := tr.Find("page-1-5")
				p.SetBody("P=page-3-7")
				return nil
			}})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct{ rev, kind, target, want string }{
			{ls.active, "page", "page-3-7", `[page-1-1 page-1-2] #3 next "part-1/page-1-2"/"page-1-2"; [page-1-3] #3`},
			{ls.active, "file", "f1", "[page-1-1 page-1-3] #2"},
			{ls.active, "file", "f2", "[] #0"},
			{head, "page", "page-3-7", `[page-1-1 page-1-2] #4 next "part-1/page-1-2"/"page-1-2"; [page-1-3 page-1-5] #4`},
		} {
			got := allBacklinks(t, func(pq PageQuery) (Page[string], error) { return db.Backlinks(ctx, c.rev, c.kind, c.target, pq) }, 2)
			if got != c.want {
				t.Errorf("%d pages: backlinks of %s %s: %s, want %s", pages, c.kind, c.target, got, c.want)
			}
		}
		if db.Engine() != "sqlite" {
			continue
		}
		for _, rev := range []string{ls.active, head} {
			rr, err := revisionRowsOf(ctx, db.r(), rev)
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range readStatements(rr, rev) {
				checkReadPlan(t, db, s.what, s.sql, s.args)
			}
		}
	}
}

type readStatement struct {
	what, sql string
	args      []any
}

// readStatements are the statements of Backlinks and of the audited page
// reads, as storage builds them, for page-3-7 of revision rev.
func readStatements(rr revisionRows, rev string) []readStatement {
	var out []readStatement
	add := func(what, q string, args []any) { out = append(out, readStatement{what, q, args}) }
	for _, c := range []struct{ kind, target, name string }{{"page", "page-3-7", "part-3/page-3-7"}, {"file", "f1", "x.png"}} {
		versions, vargs := linkingVersions(rr, c.kind, c.target, c.name)
		from, args := rowsOfVersions(rr, versions, vargs)
		add("backlinks of a "+c.kind, `SELECT rp.page_id, rp.path FROM (`+from+`) rp WHERE 1 = 1 AND (rp.path, rp.page_id) > (?, ?) ORDER BY rp.path ASC, rp.page_id ASC LIMIT ?`,
			append(args, "a", "b", 11))
	}
	s, a := rr.sql("x.page_id = ?", "page-3-7")
	add("a page's path (backlinks)", `SELECT y.path FROM (`+s+`) y`, a)
	for _, byPath := range []bool{false, true} {
		q, args := revisionPageSQL(rr, "page-3-7", byPath)
		add(fmt.Sprint("a page, by path ", byPath), q, args)
	}
	q, args := pageChildrenSQL(rr, "part-3")
	add("a page's children", q, args)
	base, bargs := revisionLinks(rr, rev, "page-3-7")
	add("a page's links", `SELECT * FROM (`+base+`) u`, bargs)
	return out
}

// checkReadPlan asks SQLite how it runs a read: every table searched
// through an index on more than the space, none scanned (checkPlans' rule).
func checkReadPlan(t *testing.T, db *DB, what, q string, args []any) {
	t.Helper()
	plan := queryPlan(t, db, q, args)
	for _, line := range plan {
		// SCAN of a subquery (its alias) reads what the subquery found.
		table, _, _ := strings.Cut(strings.TrimPrefix(line, "SCAN "), " ")
		scan := strings.HasPrefix(line, "SCAN ") && !slices.Contains([]string{"c", "v", "y", "z", "rp", "u", "t", "e"}, table)
		// Or searched by the space (the revision) alone, or by it and a
		// range of paths (the keyset: every path after the cursor).
		bySpace := strings.Contains(line, "(space_id=?)") || strings.Contains(line, "(space_id=? AND to_seq=?)") ||
			strings.Contains(line, "(revision_id=?)") || strings.Contains(line, "AND path>") || strings.Contains(line, "AND path<")
		if scan || bySpace {
			t.Errorf("%s scans a table:\n%s\nplan: %s", what, q, strings.Join(plan, "; "))
			return
		}
	}
	if testing.Verbose() {
		t.Logf("%s: %s", what, strings.Join(plan, "; "))
	}
}
