package storage

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"
)

// The model test of revision storage (main line, overlays, sibling-local
// positions, links resolved when read): random operations on a space and
// its change requests, checked against an in-memory reference that keeps
// every revision's whole tree. After each operation every revision written
// so far must read back as the reference says: pages in tree order with
// parents and paths, single pages by id and by path, children, links and
// their status, backlinks, files.

// mPage is a page of the reference tree. link is the path its body links
// to ("" for none); linkTarget is the page that path named when the page's
// current version was written ("" when it named none: resolved when read).
type mPage struct {
	id, title, slug, body string
	link, linkTarget      string
	children              []*mPage
}

type mTree struct {
	pages []*mPage
	files map[string]string // file id -> name
}

func (m *mTree) clone() *mTree {
	var cp func(list []*mPage) []*mPage
	cp = func(list []*mPage) []*mPage {
		out := make([]*mPage, 0, len(list))
		for _, p := range list {
			c := *p
			c.children = cp(p.children)
			out = append(out, &c)
		}
		return out
	}
	files := map[string]string{}
	for k, v := range m.files {
		files[k] = v
	}
	return &mTree{pages: cp(m.pages), files: files}
}

// mRow is a page of a revision as the reference expects it read.
type mRow struct {
	p            *mPage
	parent, path string
}

func (m *mTree) rows() []mRow {
	var out []mRow
	var walk func(list []*mPage, parent, path string)
	walk = func(list []*mPage, parent, path string) {
		for _, p := range list {
			pp := p.slug
			if path != "" {
				pp = path + "/" + p.slug
			}
			out = append(out, mRow{p, parent, pp})
			walk(p.children, p.id, pp)
		}
	}
	walk(m.pages, "", "")
	return out
}

// find returns the page with id, the list holding it and its index.
func (m *mTree) find(id string) (*mPage, *[]*mPage, int) {
	var found *mPage
	var holder *[]*mPage
	idx := -1
	var walk func(list *[]*mPage)
	walk = func(list *[]*mPage) {
		for i, p := range *list {
			if found != nil {
				return
			}
			if p.id == id {
				found, holder, idx = p, list, i
				return
			}
			walk(&p.children)
		}
	}
	walk(&m.pages)
	return found, holder, idx
}

// modelAnalyzer: a body's "link:PATH" is a page link, resolved when the
// version is written if the tree has a page at PATH, else looked up when read.
type modelAnalyzer struct{}

func bodyLink(body string) string {
	if _, after, ok := strings.Cut(body, "link:"); ok {
		return after
	}
	return ""
}

func (modelAnalyzer) Links(p *TreePage, t *Tree) []PageLink {
	path := bodyLink(p.Markdown)
	if path == "" {
		return nil
	}
	l := PageLink{Kind: "page", Dest: path}
	t.Walk(func(q, _ *TreePage) bool {
		if q.Path == path {
			l.Target = q.ID
			return false
		}
		return true
	})
	if l.Target == "" {
		l.Lookup = path
	}
	return []PageLink{l}
}

func (modelAnalyzer) Sections(p *TreePage) []SearchSection {
	return []SearchSection{{Title: p.Title, Body: p.Markdown}}
}

// syncTree makes a loaded tree hold the reference m: pages are reused by id
// (keeping their loaded versions and positions), new ones created; the ones
// whose title, slug or body (bodies: ids in edited) changed are dirtied. It
// returns the ids that get a new version.
func syncTree(t *Tree, m *mTree, edited map[string]bool, created time.Time) map[string]bool {
	byID := map[string]*TreePage{}
	t.Walk(func(p, _ *TreePage) bool { byID[p.ID] = p; return true })
	versioned := map[string]bool{}
	var build func(list []*mPage) []*TreePage
	build = func(list []*mPage) []*TreePage {
		var out []*TreePage
		for _, mp := range list {
			tp := byID[mp.id]
			if tp == nil {
				tp = &TreePage{ContentPage: ContentPage{ID: mp.id, Type: "document", Title: mp.title, Slug: mp.slug, CreatedAt: created}}
				tp.SetBody(mp.body)
				versioned[mp.id] = true
			} else {
				if tp.Title != mp.title || tp.Slug != mp.slug {
					tp.Title, tp.Slug, tp.Dirty = mp.title, mp.slug, true
					versioned[mp.id] = true
				}
				if edited[mp.id] {
					tp.SetBody(mp.body)
					versioned[mp.id] = true
				}
			}
			tp.Children = build(mp.children)
			out = append(out, tp)
		}
		return out
	}
	t.Pages = build(m.pages)
	files := map[string]*File{}
	for _, f := range t.Files {
		files[f.ID] = f
	}
	t.Files = nil
	ids := make([]string, 0, len(m.files))
	for id := range m.files {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		f := files[id]
		if f == nil {
			f = &File{ID: id, Name: m.files[id], ContentType: "text/plain", Bytes: []byte("file " + id)}
		}
		t.Files = append(t.Files, f)
	}
	return versioned
}

// refreshLinks resolves, as the analyzer does when it writes a version, the
// links of the pages that got one, against the tree they are written in.
func refreshLinks(m *mTree, versioned map[string]bool) {
	byPath := map[string]string{}
	for _, r := range m.rows() {
		byPath[r.path] = r.p.id
	}
	for _, r := range m.rows() {
		if versioned[r.p.id] {
			r.p.linkTarget = byPath[r.p.link]
		}
	}
}

func TestRevisionStorageModel(t *testing.T) {
	var partial PageReads
	ctx := CountingPageReads(context.Background(), &partial)
	db, err := Open(testTarget(t), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	b, err := db.CreateOrganizationWithAdmin(ctx, "o", "a@b.c", "a", "h")
	if err != nil {
		t.Fatal(err)
	}
	sp := &Space{OrganizationID: b.Organization.ID, Title: "s", Visibility: "private", EditMode: "live"}
	if err := db.CreateSpace(ctx, sp); err != nil {
		t.Fatal(err)
	}
	space := sp.ID
	rng := rand.New(rand.NewPCG(15, 22))
	revisions := map[string]*mTree{sp.RevisionID: {files: map[string]string{}}}
	order := []string{sp.RevisionID}
	head := sp.RevisionID
	type cr struct{ id, head string }
	var open []*cr
	seq := 0

	record := func(rev string, m *mTree) {
		if _, dup := revisions[rev]; !dup {
			order = append(order, rev)
		}
		revisions[rev] = m.clone()
	}

	// mutate applies one random edit to m (a fresh copy) and returns the
	// ids whose bodies it changed, and for an edit of pages the same edit
	// through PageTree (nil for files) with the ids it gives a version.
	mutate := func(m *mTree) (map[string]bool, func(pt PageTree, created time.Time) error, map[string]bool) {
		seq++
		rows := m.rows()
		edited := map[string]bool{}
		randomPath := func() string {
			if len(rows) == 0 || rng.IntN(4) == 0 {
				return fmt.Sprintf("nowhere-%d", rng.IntN(3))
			}
			return rows[rng.IntN(len(rows))].path
		}
		insertAt := func(p *mPage, exclude string) (string, int) {
			list, parentID := &m.pages, ""
			if cand := m.rows(); len(cand) > 0 && rng.IntN(3) > 0 {
				parent := cand[rng.IntN(len(cand))].p
				if exclude == "" || !inSubtree(m, exclude, parent.id) {
					list, parentID = &parent.children, parent.id
				}
			}
			i := rng.IntN(len(*list) + 1)
			*list = slices.Insert(*list, i, p)
			return parentID, i
		}
		var pageOp func(pt PageTree, created time.Time) error
		versioned := map[string]bool{}
		loaded := func(pt PageTree, id string) (*TreePage, error) {
			p, err := pt.Page(id)
			if err == nil && p == nil {
				err = fmt.Errorf("page %s not found", id)
			}
			return p, err
		}
		switch op := rng.IntN(10); {
		case op < 3 || len(rows) < 3: // insert a page
			id := fmt.Sprintf("p%d", seq)
			p := &mPage{id: id, title: "Page " + id, slug: "s" + id, link: randomPath()}
			p.body = fmt.Sprintf("body %d link:%s", seq, p.link)
			parent, i := insertAt(p, "")
			versioned[id] = true
			pageOp = func(pt PageTree, created time.Time) error {
				tp := &TreePage{ContentPage: ContentPage{ID: id, Type: "document", Title: p.title, Slug: p.slug, CreatedAt: created}}
				tp.SetBody(p.body)
				return pt.Insert(tp, parent, &i)
			}
		case op == 3: // move a page (with its subtree)
			p := rows[rng.IntN(len(rows))].p
			_, list, i := m.find(p.id)
			*list = slices.Delete(*list, i, i+1)
			parent, at := insertAt(p, p.id)
			pageOp = func(pt PageTree, _ time.Time) error { return pt.Move(p.id, parent, &at) }
		case op == 4: // rename a slug: the subtree's paths change
			p := rows[rng.IntN(len(rows))].p
			p.slug = fmt.Sprintf("r%d-%s", seq, p.id)
			versioned[p.id] = true
			pageOp = func(pt PageTree, _ time.Time) error {
				tp, err := loaded(pt, p.id)
				if err == nil {
					tp.Slug, tp.Dirty = p.slug, true
				}
				return err
			}
		case op == 5 || op == 6: // edit a body
			p := rows[rng.IntN(len(rows))].p
			p.link = randomPath()
			p.body = fmt.Sprintf("body %d link:%s", seq, p.link)
			edited[p.id] = true
			versioned[p.id] = true
			pageOp = func(pt PageTree, _ time.Time) error {
				tp, err := loaded(pt, p.id)
				if err == nil {
					tp.SetBody(p.body)
				}
				return err
			}
		case op == 7: // delete a subtree
			p := rows[rng.IntN(len(rows))].p
			_, list, i := m.find(p.id)
			*list = slices.Delete(*list, i, i+1)
			pageOp = func(pt PageTree, _ time.Time) error { return pt.Delete(p.id) }
		case op == 8: // add a file
			m.files[fmt.Sprintf("f%d", seq)] = fmt.Sprintf("file-%d.txt", rng.IntN(4))
		default: // remove a file
			for id := range m.files {
				delete(m.files, id)
				break
			}
		}
		return edited, pageOp, versioned
	}

	// write runs one edit of the revision base as a new revision; with
	// pages, an edit of pages goes through PageTree (the resolvers' way:
	// on the main content the partial path).
	write := func(c RevisionChange, base *mTree, pages bool) (string, *mTree) {
		t.Helper()
		m := base.clone()
		edited, pageOp, versioned := mutate(m)
		created := time.UnixMilli(int64(seq) * 1000)
		c.SpaceID, c.Analyzer = space, modelAnalyzer{}
		c.Edit = func(tr *Tree) error {
			refreshLinks(m, syncTree(tr, m, edited, created))
			return nil
		}
		if pages && pageOp != nil {
			refreshLinks(m, versioned)
			c.Edit, c.Pages = nil, func(pt PageTree) error { return pageOp(pt, created) }
		}
		rev, err := db.CreateRevision(ctx, c)
		if err != nil {
			t.Fatal(err)
		}
		return rev, m
	}

	// Every revision is read back after every step, so the time grows with
	// the square of the steps: under -race (ten times slower) 50 of them.
	ops := 160
	if raceDetector {
		ops = 50
	}
	for step := range ops {
		switch k := rng.IntN(20); {
		case k < 8: // edit the main content (half of them through PageTree)
			rev, m := write(RevisionChange{Activate: true}, revisions[head], rng.IntN(2) == 0)
			record(rev, m)
			head = rev
		case k == 8 && len(revisions[head].rows()) > 0: // a one-page edit (RevisionChange.Page)
			m := revisions[head].clone()
			seq++
			rows := m.rows()
			p := rows[rng.IntN(len(rows))].p
			p.link = rows[rng.IntN(len(rows))].path
			if rng.IntN(3) == 0 {
				p.link = fmt.Sprintf("nowhere-%d", seq)
			}
			p.body = fmt.Sprintf("body %d link:%s", seq, p.link)
			p.title = fmt.Sprintf("Title %d", seq)
			refreshLinks(m, map[string]bool{p.id: true})
			rev, err := db.CreateRevision(ctx, RevisionChange{SpaceID: space, Activate: true, Analyzer: modelAnalyzer{}, Page: p.id,
				Edit: func(tr *Tree) error {
					tp, _, _ := tr.Find(p.id)
					tp.SetBody(p.body)
					tp.Title = p.title
					return nil
				}})
			if err != nil {
				t.Fatal(err)
			}
			record(rev, m)
			head = rev
		case k == 9: // a revision of the main content, not activated
			rev, m := write(RevisionChange{}, revisions[head], false)
			record(rev, m)
		case k == 10: // activate an edit of an older revision
			base := order[rng.IntN(len(order))]
			rev, m := write(RevisionChange{Base: base, Activate: true}, revisions[base], rng.IntN(2) == 0)
			record(rev, m)
			head = rev
		case k == 11 || len(open) == 0: // open a change request
			c, err := db.CreateChangeRequest(ctx, "", space, b.User.ID, "cr", nil)
			if err != nil {
				t.Fatal(err)
			}
			open = append(open, &cr{id: c.ID, head: c.Revision})
		case k < 16: // edit a change request
			c := open[rng.IntN(len(open))]
			rev, m := write(RevisionChange{ChangeRequest: c.id, Author: b.User.ID}, revisions[c.head], rng.IntN(2) == 0)
			record(rev, m)
			c.head = rev
		case k < 18: // update a change request from the main content
			c := open[rng.IntN(len(open))]
			var m *mTree
			seq++
			created := time.UnixMilli(int64(seq) * 1000)
			rev, err := db.MergeChangeRequest(ctx, MergeChange{SpaceID: space, ChangeRequest: c.id, Update: true, Analyzer: modelAnalyzer{},
				Merge: func(_, main, _ *Tree) (*Tree, error) {
					m = rebased(revisions[head], revisions[c.head])
					refreshLinks(m, syncTree(main, m, nil, created))
					return main, nil
				}})
			if err != nil {
				t.Fatal(err)
			}
			if m != nil {
				record(rev, m)
				c.head = rev
			} else if rev != c.head {
				t.Fatalf("update without a merge moved the head: %s -> %s", c.head, rev)
			}
		default: // merge a change request
			i := rng.IntN(len(open))
			c := open[i]
			rev, err := db.MergeChangeRequest(ctx, MergeChange{SpaceID: space, ChangeRequest: c.id, Analyzer: modelAnalyzer{},
				Merge: func(_, _, branch *Tree) (*Tree, error) { return branch, nil }})
			if err != nil {
				t.Fatal(err)
			}
			record(rev, revisions[c.head])
			head = rev
			open = slices.Delete(open, i, i+1)
		}
		if h, err := db.SpaceHead(ctx, space); err != nil || h.Revision != head {
			t.Fatalf("step %d: active revision %q, want %q (%v)", step, h.Revision, head, err)
		}
		// Every revision's tree and files after every operation; the point
		// reads (page by id and path, children, links, backlinks) on the
		// newest revision and two others drawn at random, to bound the
		// test's time (O(steps x revisions) whole-tree reads already).
		deep := map[string]bool{order[len(order)-1]: true}
		for range 2 {
			deep[order[rng.IntN(len(order))]] = true
		}
		for _, rev := range order {
			checkRevision(t, db, rng, fmt.Sprintf("step %d, revision %s", step, rev), rev, revisions[rev], deep[rev])
		}
	}
	// Both kinds were written (the test would not cover the overlay rule
	// otherwise).
	if n := count(t, db, `SELECT COUNT(*) FROM overlay_pages`); n == 0 {
		t.Fatal("no overlay rows were written")
	}
	if n := count(t, db, `SELECT COUNT(*) FROM main_pages WHERE to_seq < ?`, aliveSeq); n == 0 {
		t.Fatal("no main-line row was closed")
	}
	if partial.Statements == 0 {
		t.Fatal("no edit went through the partial path")
	}
}

// inSubtree tells whether id is root or below it.
func inSubtree(m *mTree, root, id string) bool {
	p, _, _ := m.find(root)
	found := false
	var walk func(list []*mPage)
	walk = func(list []*mPage) {
		for _, q := range list {
			if q.id == id {
				found = true
			}
			walk(q.children)
		}
	}
	if p != nil {
		found = p.id == id
		walk(p.children)
	}
	return found
}

// rebased is the reference's update of a change request: the main content
// plus the branch's top-level subtrees that share no page with it.
func rebased(main, branch *mTree) *mTree {
	m := main.clone()
	inMain := map[string]bool{}
	for _, r := range m.rows() {
		inMain[r.p.id] = true
	}
	b := branch.clone()
	for _, p := range b.pages {
		sub := &mTree{pages: []*mPage{p}}
		shared := false
		for _, r := range sub.rows() {
			shared = shared || inMain[r.p.id]
		}
		if !shared {
			m.pages = append(m.pages, p)
		}
	}
	return m
}

// checkRevision reads revision rev back and compares it with m: its pages
// and files, and with deep, one page read by id and by path, its children,
// its links and its backlinks.
func checkRevision(t *testing.T, db *DB, rng *rand.Rand, where, rev string, m *mTree, deep bool) {
	t.Helper()
	ctx := context.Background()
	want := m.rows()
	got, err := db.RevisionPages(ctx, rev)
	if err != nil {
		t.Fatalf("%s: %v", where, err)
	}
	var gs, ws []string
	for _, p := range got {
		gs = append(gs, p.ID+"<"+p.ParentID+">"+p.Path+":"+p.Title)
	}
	byPath := map[string]string{}
	byID := map[string]mRow{}
	for _, r := range want {
		ws = append(ws, r.p.id+"<"+r.parent+">"+r.path+":"+r.p.title)
		byPath[r.path] = r.p.id
		byID[r.p.id] = r
	}
	if strings.Join(gs, " ") != strings.Join(ws, " ") {
		t.Fatalf("%s: pages\n got %v\nwant %v", where, gs, ws)
	}
	if deep && len(want) > 0 {
		r := want[rng.IntN(len(want))]
		p, err := db.RevisionPage(ctx, rev, r.p.id, false)
		if err != nil || p.Markdown != r.p.body || p.Path != r.path || p.ParentID != r.parent {
			t.Fatalf("%s: page %s: %+v %v, want %q at %q", where, r.p.id, p, err, r.p.body, r.path)
		}
		if p, err := db.RevisionPage(ctx, rev, r.path, true); err != nil || p.ID != r.p.id {
			t.Fatalf("%s: by path %s: %q %v, want %s", where, r.path, p.ID, err, r.p.id)
		}
		var kids, wantKids []string
		children, err := db.PageChildren(ctx, rev, r.p.id)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range children {
			kids = append(kids, c.ID)
		}
		for _, c := range r.p.children {
			wantKids = append(wantKids, c.id)
		}
		if fmt.Sprint(kids) != fmt.Sprint(wantKids) {
			t.Fatalf("%s: children of %s: %v, want %v", where, r.p.id, kids, wantKids)
		}
		// Its link: resolved when written, else by path in this revision.
		links, _, err := db.ListLinks(ctx, rev, r.p.id, "", PageQuery{Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		target, status := r.p.linkTarget, "ok"
		if target == "" {
			target = byPath[r.p.link]
		}
		if _, ok := byID[target]; !ok {
			status = "broken"
		}
		if r.p.link == "" {
			if len(links.Items) != 0 {
				t.Fatalf("%s: links of %s: %+v", where, r.p.id, links.Items)
			}
		} else if len(links.Items) != 1 || links.Items[0].Status != status || links.Items[0].Target != target {
			t.Fatalf("%s: link of %s to %q: %+v, want %s %q", where, r.p.id, r.p.link, links.Items, status, target)
		}
		// Every link of the revision, grouped by target.
		type group struct {
			status string
			pages  []string
		}
		wantLinks := map[string]group{}
		for _, q := range want {
			if q.p.link == "" {
				continue
			}
			target := q.p.linkTarget
			if target == "" {
				target = byPath[q.p.link]
			}
			key, status := "page:"+target, "ok"
			if _, ok := byID[target]; !ok {
				status = "broken"
			}
			if target == "" {
				key = "page:" + q.p.link
			}
			g, seen := wantLinks[key]
			if !seen || status == "broken" {
				g.status = status
			}
			g.pages = append(g.pages, q.p.id)
			slices.Sort(g.pages)
			wantLinks[key] = g
		}
		all, stats, err := db.ListLinks(ctx, rev, "", "", PageQuery{Limit: 1000})
		if err != nil {
			t.Fatal(err)
		}
		gotLinks := map[string]group{}
		for _, l := range all.Items {
			key := "page:" + l.Target
			if l.Target == "" {
				key = "page:" + l.Dest
			}
			gotLinks[key] = group{status: l.Status, pages: l.PageIDs}
		}
		if fmt.Sprint(gotLinks) != fmt.Sprint(wantLinks) || stats.Total != len(wantLinks) {
			t.Fatalf("%s: links %v, want %v", where, gotLinks, wantLinks)
		}
		// Its backlinks.
		var wantBack []string
		for _, q := range want {
			if q.p.linkTarget == r.p.id || (q.p.linkTarget == "" && byPath[q.p.link] == r.p.id) {
				wantBack = append(wantBack, q.p.id)
			}
		}
		back, err := db.Backlinks(ctx, rev, "page", r.p.id, PageQuery{Limit: 1000})
		if err != nil {
			t.Fatal(err)
		}
		gotBack := slices.Clone(back.Items)
		slices.Sort(gotBack)
		slices.Sort(wantBack)
		if fmt.Sprint(gotBack) != fmt.Sprint(wantBack) || back.Count != len(wantBack) {
			t.Fatalf("%s: backlinks of %s: %v (%d), want %v", where, r.p.id, gotBack, back.Count, wantBack)
		}
	}
	if _, err := db.RevisionPage(ctx, rev, "no-such-page", false); err == nil {
		t.Fatalf("%s: a page that is not there was found", where)
	}
	files, err := db.RevisionFiles(ctx, rev)
	if err != nil {
		t.Fatal(err)
	}
	gotFiles := map[string]string{}
	for _, f := range files {
		gotFiles[f.ID] = f.Name
	}
	if fmt.Sprint(gotFiles) != fmt.Sprint(m.files) {
		t.Fatalf("%s: files %v, want %v", where, gotFiles, m.files)
	}
}

// A one-page edit writes the same rows whatever the size of the space: one
// main-line row closed and one inserted for a body edit (through the whole
// tree or the one-page write), an insert between two siblings or a move of
// a leaf; one overlay row for a change request's one-page edit.
func TestRevisionRowsPerEditDoNotGrow(t *testing.T) {
	ctx := context.Background()
	written := func(pages int) string {
		db, err := Open(testTarget(t), Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		b, err := db.CreateOrganizationWithAdmin(ctx, "o", "a@b.c", "a", "h")
		if err != nil {
			t.Fatal(err)
		}
		sp := &Space{OrganizationID: b.Organization.ID, Title: "s", Visibility: "private", EditMode: "live"}
		if err := db.CreateSpace(ctx, sp); err != nil {
			t.Fatal(err)
		}
		edit := func(c RevisionChange, fn func(tr *Tree)) string {
			t.Helper()
			c.SpaceID, c.Analyzer = sp.ID, testAnalyzer{}
			c.Edit = func(tr *Tree) error { fn(tr); return nil }
			rev, err := db.CreateRevision(ctx, c)
			if err != nil {
				t.Fatal(err)
			}
			return rev
		}
		edit(RevisionChange{Activate: true}, func(tr *Tree) {
			for part := range 10 {
				pp := &TreePage{ContentPage: ContentPage{ID: fmt.Sprint("part-", part), Type: "group", Title: "part", Slug: fmt.Sprint("part-", part)}}
				for i := range pages/10 - 1 {
					id := fmt.Sprintf("page-%d-%d", part, i)
					c := &TreePage{ContentPage: ContentPage{ID: id, Type: "document", Title: id, Slug: id}}
					c.SetBody("body")
					pp.Children = append(pp.Children, c)
				}
				tr.Pages = append(tr.Pages, pp)
			}
		})
		rows := func(rev string) string {
			return fmt.Sprintf("%d closed, %d inserted, %d overlay",
				count(t, db, `SELECT COUNT(*) FROM main_pages m JOIN revisions r ON r.id = ? WHERE m.space_id = r.space_id AND m.to_seq = r.seq`, rev),
				count(t, db, `SELECT COUNT(*) FROM main_pages m JOIN revisions r ON r.id = ? WHERE m.space_id = r.space_id AND m.from_seq = r.seq`, rev),
				count(t, db, `SELECT COUNT(*) FROM overlay_pages WHERE revision_id = ?`, rev))
		}
		var out []string
		out = append(out, rows(edit(RevisionChange{Activate: true}, func(tr *Tree) {
			p, _, _ := tr.Find("page-3-7")
			p.SetBody("edited")
		})))
		out = append(out, rows(edit(RevisionChange{Activate: true}, func(tr *Tree) {
			_, list, i := tr.Find("page-4-5")
			np := &TreePage{ContentPage: ContentPage{ID: "new", Type: "document", Title: "new", Slug: "new"}}
			np.SetBody("new")
			*list = slices.Insert(*list, i, np)
		})))
		out = append(out, rows(edit(RevisionChange{Activate: true}, func(tr *Tree) {
			p, list, i := tr.Find("page-5-2")
			*list = slices.Delete(*list, i, i+1)
			_, to, j := tr.Find("page-6-3")
			*to = slices.Insert(*to, j+1, p)
		})))
		out = append(out, rows(edit(RevisionChange{Activate: true, Page: "page-8-8"}, func(tr *Tree) {
			if len(tr.Pages) != 1 {
				t.Fatalf("a one-page edit sees %d pages", len(tr.Pages))
			}
			tr.Pages[0].SetBody("one page")
		})))
		cr, err := db.CreateChangeRequest(ctx, "", sp.ID, b.User.ID, "cr", nil)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, rows(edit(RevisionChange{ChangeRequest: cr.ID, Author: b.User.ID}, func(tr *Tree) {
			p, _, _ := tr.Find("page-7-1")
			p.SetBody("in the change request")
		})))
		// The page edits of the resolvers on the main content (partial
		// path): rows written, and rows read, do not grow either.
		var reads []string
		pageEdit := func(fn func(pt PageTree) error) {
			t.Helper()
			var r PageReads
			rev, err := db.CreateRevision(CountingPageReads(ctx, &r), RevisionChange{SpaceID: sp.ID, Activate: true, Analyzer: testAnalyzer{}, Pages: fn})
			if err != nil {
				t.Fatal(err)
			}
			if r.Statements == 0 {
				t.Fatalf("a page edit of %d pages did not take the partial path", pages)
			}
			out = append(out, rows(rev))
			checkPlans(t, db, r)
			reads = append(reads, fmt.Sprintf("%d statements %d rows", r.Statements, r.Rows))
		}
		newPage := func(id, slug string) *TreePage {
			p := &TreePage{ContentPage: ContentPage{ID: id, Type: "document", Title: id, Slug: slug}}
			p.SetBody("new")
			return p
		}
		three := 3
		pageEdit(func(pt PageTree) error { return pt.Insert(newPage("appended", "appended"), "part-4", nil) })
		pageEdit(func(pt PageTree) error { return pt.Insert(newPage("inserted", "page-4-1"), "part-4", &three) }) // takes page-4-1-2
		pageEdit(func(pt PageTree) error { return pt.Move("page-5-2", "part-6", &three) })
		pageEdit(func(pt PageTree) error {
			p, err := pt.Page("page-2-2")
			p.Slug, p.Dirty = "renamed", true
			return err
		})
		pageEdit(func(pt PageTree) error { return pt.Delete("page-1-1") })
		pageEdit(func(pt PageTree) error {
			p, err := pt.Page("page-8-9")
			p.SetBody("content")
			return err
		})
		// The same edits in the change request, whose base is now behind
		// the main line (the pages moved, renamed and deleted above are
		// closed rows of main@base_seq): each adds one row to its
		// overlay (the previous head's rows are copied).
		crEdit := func(fn func(pt PageTree) error) {
			t.Helper()
			var r PageReads
			rev, err := db.CreateRevision(CountingPageReads(ctx, &r), RevisionChange{SpaceID: sp.ID, ChangeRequest: cr.ID, Author: b.User.ID, Analyzer: testAnalyzer{}, Pages: fn})
			if err != nil {
				t.Fatal(err)
			}
			if r.Statements == 0 {
				t.Fatalf("a change request's page edit of %d pages did not take the partial path", pages)
			}
			out = append(out, rows(rev))
			checkPlans(t, db, r)
			reads = append(reads, fmt.Sprintf("%d statements %d rows", r.Statements, r.Rows))
		}
		crEdit(func(pt PageTree) error { return pt.Insert(newPage("cr-appended", "appended"), "part-4", nil) })
		crEdit(func(pt PageTree) error { return pt.Insert(newPage("cr-inserted", "page-4-1"), "part-4", &three) })
		crEdit(func(pt PageTree) error { return pt.Move("page-5-2", "part-7", &three) })
		crEdit(func(pt PageTree) error {
			p, err := pt.Page("page-2-2")
			p.Slug, p.Dirty = "renamed-in-cr", true
			return err
		})
		crEdit(func(pt PageTree) error { return pt.Delete("page-1-1") })
		crEdit(func(pt PageTree) error {
			p, err := pt.Page("page-8-9")
			p.SetBody("content in the change request")
			return err
		})
		return strings.Join(out, "; ") + " | " + strings.Join(reads, "; ")
	}
	want := "1 closed, 1 inserted, 0 overlay; 0 closed, 1 inserted, 0 overlay; 1 closed, 1 inserted, 0 overlay; 1 closed, 1 inserted, 0 overlay; 0 closed, 0 inserted, 1 overlay; " +
		"0 closed, 1 inserted, 0 overlay; 0 closed, 1 inserted, 0 overlay; 1 closed, 1 inserted, 0 overlay; 1 closed, 1 inserted, 0 overlay; 1 closed, 0 inserted, 0 overlay; 1 closed, 1 inserted, 0 overlay; " +
		"0 closed, 0 inserted, 2 overlay; 0 closed, 0 inserted, 3 overlay; 0 closed, 0 inserted, 4 overlay; 0 closed, 0 inserted, 5 overlay; 0 closed, 0 inserted, 6 overlay; 0 closed, 0 inserted, 7 overlay"
	var reads []string
	for _, pages := range []int{1_000, 10_000} {
		got, read, _ := strings.Cut(written(pages), " | ")
		if got != want {
			t.Errorf("%d pages: %s, want %s", pages, got, want)
		}
		reads = append(reads, read)
	}
	if reads[0] != reads[1] {
		t.Errorf("rows read per page edit grow: 1,000 pages: %s; 10,000 pages: %s", reads[0], reads[1])
	}
	t.Logf("reads per page edit (append, insert at 3, move, rename, delete, body; on the main content, then in a change request): %s", reads[1])
}

// A one-page edit resolves its page's links as the whole tree would: a link
// to an existing page is pinned to that page (it stays ok when the page is
// renamed later), a link to nothing is looked up when read.
func TestOnePageEditResolvesLinksAsTheWholeTree(t *testing.T) {
	ctx := context.Background()
	db, sp := testSpace(t)
	write := func(c RevisionChange, edit func(tr *Tree)) string {
		t.Helper()
		c.SpaceID, c.Activate, c.Analyzer = sp.ID, true, modelAnalyzer{}
		c.Edit = func(tr *Tree) error { edit(tr); return nil }
		rev, err := db.CreateRevision(ctx, c)
		if err != nil {
			t.Fatal(err)
		}
		return rev
	}
	write(RevisionChange{}, func(tr *Tree) {
		for _, id := range []string{"a", "b", "c"} {
			p := &TreePage{ContentPage: ContentPage{ID: id, Type: "document", Title: id, Slug: id}}
			p.SetBody("plain")
			tr.Pages = append(tr.Pages, p)
		}
		tr.Pages[1].Children = []*TreePage{{ContentPage: ContentPage{ID: "d", Type: "document", Title: "d", Slug: "d"}, Dirty: true}}
	})
	write(RevisionChange{Page: "a"}, func(tr *Tree) { tr.Pages[0].SetBody("link:b/d") })
	write(RevisionChange{Page: "c"}, func(tr *Tree) { tr.Pages[0].SetBody("link:later") })
	head := write(RevisionChange{}, func(tr *Tree) {
		tr.Pages[1].Slug, tr.Pages[1].Dirty = "renamed", true // b/d is now renamed/d
		p := &TreePage{ContentPage: ContentPage{ID: "e", Type: "document", Title: "e", Slug: "later"}}
		p.SetBody("new")
		tr.Pages = append(tr.Pages, p)
	})
	for page, want := range map[string]string{"a": "d ok", "c": "e ok"} {
		links, _, err := db.ListLinks(ctx, head, page, "", PageQuery{Limit: 10})
		if err != nil || len(links.Items) != 1 || links.Items[0].Target+" "+links.Items[0].Status != want {
			t.Errorf("link of %s: %+v %v, want %s", page, links.Items, err, want)
		}
	}
}

// checkPlans asks SQLite how it runs each statement a partial page edit
// ran: every table is searched through an index on more than the space
// (a seek), none scanned: what would cost rows in proportion to the space.
func checkPlans(t *testing.T, db *DB, r PageReads) {
	t.Helper()
	if db.Engine() != "sqlite" {
		return
	}
	for _, q := range r.queries {
		plan := queryPlan(t, db, q.sql, q.args)
		for _, line := range plan {
			// A table scanned, or searched by the space alone (or by the
			// rows opened by a seq: behind the main line, every row of
			// the space): rows in proportion to the space.
			scan := strings.HasPrefix(line, "SCAN ") && !strings.HasPrefix(line, "SCAN y") && !strings.HasPrefix(line, "SCAN rp")
			if scan || strings.Contains(line, "(space_id=?)") || strings.Contains(line, "(space_id=? AND to_seq=?)") ||
				strings.Contains(line, "(space_id=? AND from_seq<?)") {
				t.Errorf("a page edit's statement scans a table:\n%s\nplan: %s", q.sql, strings.Join(plan, "; "))
			}
		}
		if testing.Verbose() {
			t.Logf("%s\n  %s", q.sql, strings.Join(plan, "; "))
		}
	}
}
