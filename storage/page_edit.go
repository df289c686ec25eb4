package storage

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"

	"docsapi/positions"
)

// PageTree is a revision's page tree as a page edit (create, move, delete,
// rename, content) sees it: the resolver decides (does the parent exist,
// may it hold pages, is the new parent under the page) and the storage
// places (positions, unique slugs, paths). CreateRevision gives an edit of
// a space's main content or of a change request a view that reads only
// what the edit touches (partialTree), or the whole loaded tree
// (wholeTree: a given base, a head stored whole, and the tests'
// reference): both make the same revision.
type PageTree interface {
	// Page is the page with id (nil when the revision has none), with its
	// body; changes to its content, settings or slug are written when the
	// page is marked Dirty (SetBody does).
	Page(id string) (*TreePage, error)
	// IsUnder tells whether page id is a descendant of ancestor.
	IsUnder(id, ancestor string) (bool, error)
	// Files are the revision's files (cover images name them).
	Files() []*File
	// Insert adds the new page p (without children) under parentID (""
	// for the top level) at index among its siblings (nil or past the
	// end: last).
	Insert(p *TreePage, parentID string, index *int) error
	// Move puts page id (with its subtree) under parentID at index among
	// its new siblings (itself left out); it takes a new position there.
	Move(id, parentID string, index *int) error
	// Delete removes page id and its subtree.
	Delete(id string) error
	// AddFile adds the new file f (with its Bytes) to the revision's files.
	AddFile(f *File) error
}

// insertAt puts p at index of list (the end when index is nil or past it).
func insertAt(list []*TreePage, index *int, p *TreePage) []*TreePage {
	if index == nil || *index >= len(list) {
		return append(list, p)
	}
	return slices.Insert(list, max(*index, 0), p)
}

// wholeTree is PageTree over a loaded tree: placeTree then places what
// changed.
type wholeTree struct{ t *Tree }

func (w wholeTree) Page(id string) (*TreePage, error) {
	p, _, _ := w.t.Find(id)
	return p, nil
}

func (w wholeTree) IsUnder(id, ancestor string) (bool, error) {
	a, _, _ := w.t.Find(ancestor)
	if a == nil {
		return false, nil
	}
	p, _, _ := (&Tree{Pages: a.Children}).Find(id)
	return p != nil, nil
}

func (w wholeTree) Files() []*File { return w.t.Files }

func (w wholeTree) children(parentID string) (*[]*TreePage, error) {
	if parentID == "" {
		return &w.t.Pages, nil
	}
	p, _, _ := w.t.Find(parentID)
	if p == nil {
		return nil, ErrNotFound
	}
	return &p.Children, nil
}

func (w wholeTree) Insert(p *TreePage, parentID string, index *int) error {
	list, err := w.children(parentID)
	if err != nil {
		return err
	}
	*list = insertAt(*list, index, p)
	return nil
}

func (w wholeTree) Move(id, parentID string, index *int) error {
	p, siblings, i := w.t.Find(id)
	if p == nil {
		return ErrNotFound
	}
	*siblings = slices.Delete(*siblings, i, i+1)
	list, err := w.children(parentID)
	if err != nil {
		return err
	}
	p.moved = true
	*list = insertAt(*list, index, p)
	return nil
}

func (w wholeTree) AddFile(f *File) error {
	w.t.Files = append(w.t.Files, f)
	return nil
}

func (w wholeTree) Delete(id string) error {
	p, siblings, i := w.t.Find(id)
	if p == nil {
		return ErrNotFound
	}
	*siblings = slices.Delete(*siblings, i, i+1)
	return nil
}

// errOneChange: the partial path places one page per revision (what the
// resolvers' edits do); an edit that does more goes through the whole tree.
var errOneChange = errors.New("storage: a partial page edit places one page")

// pageOp is the structural change of a partial page edit.
type pageOp struct {
	kind   string // insert | move | delete
	page   *TreePage
	id     string
	parent string
	index  *int
}

// partialTree is PageTree over a revision that has a main line under it:
// the active revision of a space's main line (its alive main_pages rows),
// or a change request's head (main@base_seq, with the head's overlay rows
// over it). It reads only what the edit touches: the pages it asks for,
// the neighbours of a new position (one ordered index probe), the paths a
// slug would take (a probe each), the ancestors of a move's new parent,
// the subtree a move, rename or delete changes.
type partialTree struct {
	tx    *Tx
	space string
	// on is where the edited revision's rows are; alive: on is the main
	// line's active revision, whose rows are the alive rows (one index
	// range per read instead of the overlay and the two main-line ranges).
	on    revisionRows
	alive bool
	t     *Tree                // the pages read or added (no children) and the revision's files
	pages map[string]*TreePage // read by Page (nil: no such page)
	// before are the alive rows read that the edit may change; extra are
	// the new rows of those among them that are not in t (siblings
	// numbered again, a moved subtree's descendants).
	before, extra map[string]pageRow
	op            *pageOp
	reads         *PageReads
	// filesErr is a failed read of the file list or of a file by name.
	filesErr error
}

// PageReads counts what a partial page edit read (tests: it must not grow
// with the space).
type PageReads struct {
	Statements, Rows int
	// WholeTrees counts the edits that loaded the whole tree instead.
	WholeTrees int
	// WholeMerges counts the merges and updates of change requests that
	// loaded the whole trees (deltaMerge did not apply).
	WholeMerges int
	// queries are the statements run, with their arguments (a test asks
	// the engine for their plans).
	queries []loggedQuery
}

type loggedQuery struct {
	sql  string
	args []any
}

// add counts one read; without CountingPageReads (r nil: every request
// but a test's) it does nothing.
func (r *PageReads) add(sql string, args []any, rows int) {
	if r == nil {
		return
	}
	r.Statements++
	r.Rows += rows
	r.queries = append(r.queries, loggedQuery{sql, args})
}

type pageReadsKey struct{}

// CountingPageReads makes the partial page edits under ctx add their
// reads to r.
func CountingPageReads(ctx context.Context, r *PageReads) context.Context {
	return context.WithValue(ctx, pageReadsKey{}, r)
}

func newPartialTree(tx *Tx, on revisionRows, alive bool) *partialTree {
	reads, _ := tx.ctx.Value(pageReadsKey{}).(*PageReads) // nil: not counted
	// A sharing duplicate's active revision is not its alive rows alone:
	// its reads take the main-line ranges with its sources' rows.
	alive = alive && len(on.Sources) == 0
	return &partialTree{tx: tx, space: on.Space, on: on, alive: alive, t: &Tree{}, pages: map[string]*TreePage{},
		before: map[string]pageRow{}, extra: map[string]pageRow{}, reads: reads}
}

// aliveByID is the condition of a probe by page id: by the primary key
// (the unary + keeps SQLite from walking the alive index instead).
const aliveByID = `+x.to_seq = ? AND x.page_id = ?`

// aliveChildren is the condition of children in order (main_pages_alive).
const aliveChildren = `x.to_seq = ? AND x.parent_id = ? AND x.page_id <> ?`

// rowsWhere reads alive rows of the space satisfying cond (then tail:
// ORDER BY, LIMIT).
// The alive rows are those from_seq <= the active revision's seq: a
// batched import writes its new pages' rows ahead (import_batch.go).
func (pt *partialTree) rowsWhere(cond, tail string, args ...any) ([]pageRow, error) {
	return pt.query(aliveRows+cond+tail, append([]any{pt.space, pt.on.Seq}, args...))
}

// aliveRows begins a read of the space's alive rows (space, seq, then the
// condition's arguments).
const aliveRows = `SELECT x.page_id, x.version, x.parent_id, x.position, x.path FROM main_pages x WHERE x.space_id = ? AND +x.from_seq <= ? AND `

// childrenOrder orders a parent's children as the whole tree does
// (position, then page id), or the reverse. On the alive rows PostgreSQL
// reads it from main_pages_alive, which ends with both (migration 0034b);
// SQLite's ends with position and it sorts only ties (TestAliveChildrenPlan).
func childrenOrder(desc bool) string {
	if desc {
		return ` ORDER BY x.position DESC, x.page_id DESC`
	}
	return ` ORDER BY x.position, x.page_id`
}

// revRows reads the edited revision's rows satisfying cond (on x), then
// tail (a LIMIT): on the active revision one range of the alive rows, else
// the overlay's rows and the two main-line ranges (revisionRows.sql).
func (pt *partialTree) revRows(cond string, args []any, tail string) ([]pageRow, error) {
	if pt.alive {
		return pt.rowsWhere(`x.to_seq = ? AND `+cond, tail, append([]any{aliveSeq}, args...)...)
	}
	q, a := pt.on.sql(cond, args...)
	return pt.query(q+tail, a)
}

// query runs a read of page rows and counts it.
func (pt *partialTree) query(q string, args []any) ([]pageRow, error) {
	rows, err := pt.tx.QueryContext(pt.tx.ctx, q, args...)
	var out []pageRow
	err = eachRow(rows, err, func(sc interface{ Scan(...any) error }) error {
		var r pageRow
		err := sc.Scan(&r.ID, &r.Version, &r.ParentID, &r.Position, &r.Path)
		out = append(out, r)
		return err
	})
	pt.reads.add(q, args, len(out))
	return out, err
}

func (pt *partialTree) Page(id string) (*TreePage, error) {
	if p, ok := pt.pages[id]; ok {
		return p, nil
	}
	var md string
	q := `SELECT ` + pageCols + `, v.markdown FROM (SELECT x.page_id, x.version, x.parent_id, x.position, x.path
 FROM main_pages x WHERE x.space_id = ? AND +x.from_seq <= ? AND ` + aliveByID + `) rp JOIN page_versions v ON v.hash = rp.version`
	args := []any{pt.space, pt.on.Seq, aliveSeq, id}
	if !pt.alive {
		// Its row first (overlay, else main@Seq), then that row with its
		// version, by the row's key.
		_, from, in, ok, err := pt.rowAt(id)
		if err != nil {
			return nil, err
		}
		if !ok {
			pt.pages[id] = nil
			return nil, nil
		}
		q, args = `SELECT `+pageCols+`, v.markdown FROM overlay_pages rp JOIN page_versions v ON v.hash = rp.version
 WHERE rp.revision_id = ? AND rp.page_id = ?`, []any{pt.on.Overlay, id}
		if from > 0 {
			q, args = `SELECT `+pageCols+`, v.markdown FROM main_pages rp JOIN page_versions v ON v.hash = rp.version
 WHERE rp.space_id = ? AND rp.page_id = ? AND rp.from_seq = ?`, []any{in, id, from}
		}
	}
	p, err := scanPage(pt.tx.QueryRowContext(pt.tx.ctx, q, args...), &md)
	if errors.Is(err, ErrNotFound) {
		pt.reads.add(q, args, 0)
		pt.pages[id] = nil
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	pt.reads.add(q, args, 1)
	p.Markdown = md
	tp := &TreePage{ContentPage: p, bodySet: true, storedSlug: p.Slug}
	pt.pages[id] = tp
	pt.t.Pages = append(pt.t.Pages, tp)
	pt.before[id] = rowOf(p)
	return tp, nil
}

// row is page id's row as this edit has it so far (false: no such page).
func (pt *partialTree) row(id string) (pageRow, bool, error) {
	if p, ok := pt.pages[id]; ok {
		if p == nil {
			return pageRow{}, false, nil
		}
		return rowOf(p.ContentPage), true, nil
	}
	if !pt.alive {
		r, _, _, ok, err := pt.rowAt(id)
		return r, ok, err
	}
	rows, err := pt.rowsWhere(aliveByID, "", aliveSeq, id)
	if err != nil || len(rows) == 0 {
		return pageRow{}, false, err
	}
	return rows[0], true, nil
}

// rowAt reads page id's row in an edited revision that is not the active
// one: its overlay row (a removal row: no such page), else its main-line
// row at on.Seq, the page's last row opened at or before Seq (through the
// primary key: the page's own history, not the space), when it is still
// open at Seq. from is that row's from_seq (0: the overlay's row), in the
// space whose row it is (the space's own, or for a sharing duplicate the
// first of its sources with a row of the page).
func (pt *partialTree) rowAt(id string) (r pageRow, from int64, in string, ok bool, err error) {
	if pt.on.Overlay != "" {
		rows, err := pt.query(`SELECT x.page_id, x.version, x.parent_id, x.position, x.path FROM overlay_pages x WHERE x.revision_id = ? AND x.page_id = ?`,
			[]any{pt.on.Overlay, id})
		if err != nil || len(rows) > 0 {
			return first(rows), 0, "", len(rows) > 0 && rows[0].Version != "", err
		}
	}
	if pt.on.Seq == 0 {
		return r, 0, "", false, nil
	}
	spaces := []spaceSource{{pt.space, pt.on.Seq}}
	for _, s := range pt.on.Sources {
		spaces = append(spaces, spaceSource{s.Space, min(pt.on.Seq, s.Cap)})
	}
	for i, s := range spaces {
		// The page's last row opened at or before the seq read there;
		// without any, whether the space has rows of the page at all (a
		// source is read only for the pages the earlier ones have none
		// of). The plain space (no sources) stops at the first read.
		q := `SELECT x.page_id, x.version, x.parent_id, x.position, x.path, x.from_seq, x.to_seq FROM main_pages x
 WHERE x.space_id = ? AND x.page_id = ? AND x.from_seq <= ? ORDER BY x.from_seq DESC LIMIT 1`
		args := []any{s.Space, id, s.Cap}
		var to int64
		err = pt.tx.QueryRowContext(pt.tx.ctx, q, args...).Scan(&r.ID, &r.Version, &r.ParentID, &r.Position, &r.Path, &from, &to)
		if err == nil {
			pt.reads.add(q, args, 1)
			return r, from, s.Space, to > s.Cap, nil
		}
		if !errors.Is(err, sql.ErrNoRows) {
			return r, 0, "", false, err
		}
		pt.reads.add(q, args, 0)
		if i == len(spaces)-1 {
			break
		}
		var has int
		err = pt.tx.QueryRowContext(pt.tx.ctx, `SELECT COUNT(*) FROM (SELECT 1 FROM main_pages x WHERE x.space_id = ? AND x.page_id = ? LIMIT 1) y`, s.Space, id).Scan(&has)
		if err != nil || has > 0 {
			return pageRow{}, 0, "", false, err
		}
	}
	return pageRow{}, 0, "", false, nil
}

func first(rows []pageRow) pageRow {
	if len(rows) == 0 {
		return pageRow{}
	}
	return rows[0]
}

// children reads parentID's children but exclude in order (desc: the
// reverse), at most limit of them (0: all) after skipping offset.
func (pt *partialTree) children(parentID, exclude string, desc bool, offset, limit int) ([]pageRow, error) {
	if pt.alive {
		tail, args := childrenOrder(desc), []any{aliveSeq, parentID, exclude}
		if limit > 0 {
			tail, args = tail+` LIMIT ? OFFSET ?`, append(args, limit, offset)
		}
		return pt.rowsWhere(aliveChildren, tail, args...)
	}
	// The overlay's children and main@Seq's (alive, closed after Seq),
	// each read in its index's order up to offset+limit rows and merged
	// here: an OFFSET costs index entries of each, whatever the engine
	// makes of a compound ORDER BY. By position alone, the order of the
	// indexes (with the page id PostgreSQL sorted every child of the
	// parent first): siblings' positions are distinct (every placement
	// gives increasing ones), the page id only orders them here as the
	// whole tree does.
	part := ` ORDER BY x.position`
	if desc {
		part = ` ORDER BY x.position DESC`
	}
	var all []pageRow
	for _, p := range pt.on.parts(`x.parent_id = ? AND x.page_id <> ?`, parentID, exclude) {
		q, args := p.sql+part, p.args
		if limit > 0 {
			q, args = q+` LIMIT ?`, append(slices.Clone(args), offset+limit)
		}
		rows, err := pt.query(q, args)
		if err != nil {
			return nil, err
		}
		all = append(all, rows...)
	}
	slices.SortFunc(all, func(a, b pageRow) int {
		c := cmp.Or(cmp.Compare(a.Position, b.Position), strings.Compare(a.ID, b.ID))
		if desc {
			return -c
		}
		return c
	})
	if offset >= len(all) {
		return nil, nil
	}
	all = all[offset:]
	if limit > 0 && len(all) > limit {
		all = all[:limit]
	}
	return all, nil
}

// maxDepth bounds a walk up a page's ancestors.
const maxDepth = 10_000

func (pt *partialTree) IsUnder(id, ancestor string) (bool, error) {
	r, ok, err := pt.row(id)
	for depth := 0; ok && err == nil && r.ParentID != ""; depth++ {
		if r.ParentID == ancestor {
			return true, nil
		}
		if depth > maxDepth {
			return false, errors.New("storage: a page's ancestors do not end")
		}
		r, ok, err = pt.row(r.ParentID)
	}
	return false, err
}

// Files reads the revision's file list the first time it is asked for.
func (pt *partialTree) Files() []*File {
	if pt.t.LookupFile != nil {
		pt.filesErr = loadTreeFiles(pt.tx.ctx, pt.tx, pt.t.filesFrom, pt.t)
	}
	return pt.t.Files
}

// AddFile reads the file list (the new revision writes it whole, as an
// upload through the whole tree does), then adds f: no page is read.
func (pt *partialTree) AddFile(f *File) error {
	pt.Files()
	if pt.filesErr != nil {
		return pt.filesErr
	}
	pt.t.Files = append(pt.t.Files, f)
	return nil
}

// lookupFile is Tree.LookupFile for a partial edit: the last file (by id)
// of the revision with that name, one index probe.
func (pt *partialTree) lookupFile(name string) (string, bool) {
	var id sql.NullString
	q := `SELECT MAX(f.file_id) FROM revision_files f WHERE f.revision_id = ` + filesOwner + ` AND f.name = ?`
	err := pt.tx.QueryRowContext(pt.tx.ctx, q, pt.t.filesFrom, name).Scan(&id)
	if err != nil && pt.filesErr == nil {
		pt.filesErr = err
	}
	pt.reads.add(q, []any{pt.t.filesFrom, name}, 1)
	return id.String, id.Valid
}

func (pt *partialTree) setOp(op pageOp) error {
	if pt.op != nil {
		return errOneChange
	}
	pt.op = &op
	return nil
}

func (pt *partialTree) Insert(p *TreePage, parentID string, index *int) error {
	if len(p.Children) > 0 || p.ID == "" {
		return errOneChange
	}
	if err := pt.setOp(pageOp{kind: "insert", page: p, id: p.ID, parent: parentID, index: index}); err != nil {
		return err
	}
	pt.pages[p.ID] = p
	pt.t.Pages = append(pt.t.Pages, p)
	return nil
}

func (pt *partialTree) Move(id, parentID string, index *int) error {
	p, err := pt.Page(id)
	if err != nil {
		return err
	}
	if p == nil {
		return ErrNotFound
	}
	// Under itself the parent would not be in the tree any more (what the
	// whole tree answers); the resolver refuses it before.
	if parentID != "" {
		inside, err := pt.IsUnder(parentID, id)
		if err != nil {
			return err
		}
		if inside || parentID == id {
			return ErrNotFound
		}
	}
	return pt.setOp(pageOp{kind: "move", page: p, id: id, parent: parentID, index: index})
}

func (pt *partialTree) Delete(id string) error {
	if _, ok, err := pt.row(id); err != nil || !ok {
		return errors.Join(err, ErrNotFound)
	}
	return pt.setOp(pageOp{kind: "delete", id: id})
}

// place applies the edit's structural change and renames: positions,
// slugs and paths as placeTree would give them in the whole tree.
func (pt *partialTree) place() error {
	var renamed []*TreePage
	for _, p := range pt.t.Pages {
		if p.Version != "" && p.Slug != p.storedSlug && (pt.op == nil || p != pt.op.page) {
			renamed = append(renamed, p)
		}
	}
	if len(renamed) > 1 || (len(renamed) == 1 && pt.op != nil) {
		return errOneChange
	}
	if op := pt.op; op != nil {
		switch op.kind {
		case "delete":
			return pt.remove(op.id)
		case "insert", "move":
			p := op.page
			if err := pt.position(p, op.parent, op.index); err != nil {
				return err
			}
			p.ParentID = op.parent
			// A new page has no subtree to follow it.
			return pt.settle(p, op.kind == "move")
		}
	}
	for _, p := range renamed {
		if p.Type == "link" {
			continue
		}
		if err := pt.settle(p, true); err != nil {
			return err
		}
	}
	return nil
}

// settle gives p, arriving under p.ParentID or renamed, a slug unique
// among its siblings and its path, and with subtree its descendants' paths.
func (pt *partialTree) settle(p *TreePage, subtree bool) error {
	parentPath := ""
	if p.ParentID != "" {
		r, ok, err := pt.row(p.ParentID)
		if err != nil {
			return err
		}
		if !ok {
			return ErrNotFound
		}
		parentPath = r.Path
	}
	oldPath := p.Path
	if err := pt.uniqueSlug(p, parentPath); err != nil {
		return err
	}
	if subtree && p.Path != oldPath {
		return pt.repath(p.ID, p.Path)
	}
	return nil
}

// position gives p a position among parentID's children at index (p left
// out) as placeSiblings does (positions.Between): between its neighbours (the one before and
// the one at index, read with one ordered probe of main_pages_alive: an
// OFFSET costs index entries of that index), step after the last; when
// the gap is used up, a window of neighbours is spread again (spread), or
// at the end of the list the list is numbered again.
func (pt *partialTree) position(p *TreePage, parentID string, index *int) error {
	low, next, known := 0, 0, false
	if index != nil {
		k := max(*index, 0)
		rows, err := pt.children(parentID, p.ID, false, max(k-1, 0), 2)
		if err != nil {
			return err
		}
		switch {
		case k == 0:
			known = true
			if len(rows) > 0 {
				next = rows[0].Position
			}
		case len(rows) > 0:
			known, low = true, rows[0].Position
			if len(rows) > 1 {
				next = rows[1].Position
			}
		}
	}
	if !known {
		rows, err := pt.children(parentID, p.ID, true, 0, 1)
		if err != nil {
			return err
		}
		if len(rows) > 0 {
			low = rows[0].Position
		}
	}
	pos, ok := positions.Between(low, next, positionGap, maxPagePosition)
	if !ok {
		if known && next > 0 {
			return pt.spread(p, parentID, max(*index, 0))
		}
		return pt.renumber(p, parentID, index)
	}
	p.Position = pos
	return nil
}

// spread places p at index k of parentID's children (k is before a child)
// when the gap there ran out, as positions.Gapped does in the whole tree:
// the smallest window of w children on each side (w = 1, 2, 4, ...) whose
// span spreads them with p (positions.Window) takes new positions, read
// one window at a time; a window that would reach the end of the list
// numbers the whole list again (renumber).
func (pt *partialTree) spread(p *TreePage, parentID string, k int) error {
	for w := 1; ; w *= 2 {
		a := max(k-w, 0) // the window's first child; its low neighbour is a-1
		from := max(a-1, 0)
		want := k + w - from + 1 // through the high neighbour, child k+w
		rows, err := pt.children(parentID, p.ID, false, from, want)
		if err != nil {
			return err
		}
		if len(rows) < want {
			index := k
			return pt.renumber(p, parentID, &index)
		}
		low := 0
		if a > 0 {
			low, rows = rows[0].Position, rows[1:]
		}
		next, window := rows[len(rows)-1].Position, rows[:len(rows)-1]
		pos, ok := positions.Window(low, next, len(window)+1, positionGap, maxPagePosition)
		if !ok {
			continue
		}
		at := k - a // p's place in the window
		for i, r := range window {
			j := i
			if i >= at {
				j++
			}
			pt.update(r, func(n *pageRow) { n.Position = pos[j] })
		}
		p.Position = pos[at]
		return nil
	}
}

// renumber numbers parentID's children again with p at index (the rows of
// that sibling list only).
func (pt *partialTree) renumber(p *TreePage, parentID string, index *int) error {
	rows, err := pt.children(parentID, p.ID, false, 0, 0)
	if err != nil {
		return err
	}
	list := make([]*TreePage, len(rows))
	for i, r := range rows {
		list[i] = &TreePage{ContentPage: ContentPage{ID: r.ID}}
	}
	list = insertAt(list, index, p)
	byID := rowMap(rows)
	for i, q := range list {
		pos := (i + 1) * positionGap
		if q == p {
			p.Position = pos
			continue
		}
		r := byID[q.ID]
		pt.update(r, func(n *pageRow) { n.Position = pos })
	}
	return nil
}

// keep records r, read from the database, as the row its page had before
// the edit (the first read of a page counts).
func (pt *partialTree) keep(r pageRow) {
	if _, ok := pt.before[r.ID]; !ok {
		pt.before[r.ID] = r
	}
}

// update records a new row for r (read from the database), changed by fn.
func (pt *partialTree) update(r pageRow, fn func(*pageRow)) {
	pt.keep(r)
	if tp := pt.pages[r.ID]; tp != nil {
		n := pageRow{ID: tp.ID, ParentID: tp.ParentID, Path: tp.Path, Position: tp.Position}
		fn(&n)
		tp.ParentID, tp.Path, tp.Position = n.ParentID, n.Path, n.Position
		return
	}
	if n, ok := pt.extra[r.ID]; ok {
		r = n
	}
	fn(&r)
	pt.extra[r.ID] = r
}

// uniqueSlug gives p (arriving among parentPath's children, or renamed)
// its slug, with the first free suffix (-2, -3, ...) when a sibling has
// it (a probe of main_pages_path per candidate), and its path.
func (pt *partialTree) uniqueSlug(p *TreePage, parentPath string) error {
	if p.Type == "link" {
		p.Path = ""
		return nil
	}
	if p.Slug == "" {
		p.Slug, p.Dirty = "page", true
	}
	slug := p.Slug
	for n := 2; ; n++ {
		rows, err := pt.revRows(`x.path = ? AND x.page_id <> ?`, []any{joinPath(parentPath, slug), p.ID}, ` LIMIT 1`)
		if err != nil {
			return err
		}
		if len(rows) == 0 {
			break
		}
		if n > maxDepth {
			return errors.New("storage: no free slug")
		}
		slug = p.Slug + "-" + strconv.Itoa(n)
	}
	if slug != p.Slug {
		p.Slug, p.Dirty = slug, true
	}
	p.Path = joinPath(parentPath, slug)
	return nil
}

func joinPath(parentPath, slug string) string {
	if parentPath == "" {
		return slug
	}
	return parentPath + "/" + slug
}

// descendants reads the rows of the subtree under id, level by level
// through main_pages_alive (each row once).
func (pt *partialTree) descendants(id string, each func(r pageRow, parentOld string) error) error {
	type parent struct{ id, path string }
	r, _, err := pt.row(id)
	if err != nil {
		return err
	}
	if b, ok := pt.before[id]; ok {
		r = b // the path the subtree's rows were written under
	}
	level := []parent{{id, r.Path}}
	for depth := 0; len(level) > 0; depth++ {
		if depth > maxDepth {
			return errors.New("storage: a page's subtree does not end")
		}
		var next []parent
		if err := inChunks(level, func(chunk []parent) error {
			paths := map[string]string{}
			var ids []any
			for _, p := range chunk {
				paths[p.id] = p.path
				ids = append(ids, p.id)
			}
			// No ORDER BY: by page id SQLite would walk the space's rows
			// in primary-key order rather than seek main_pages_alive.
			rows, err := pt.revRows(`x.parent_id IN (`+placeholders(len(chunk))+`)`, ids, "")
			if err != nil {
				return err
			}
			for _, c := range rows {
				if err := each(c, paths[c.ParentID]); err != nil {
					return err
				}
				next = append(next, parent{c.ID, c.Path})
			}
			return nil
		}); err != nil {
			return err
		}
		level = next
	}
	return nil
}

// repath rewrites the paths of the subtree under id, whose path is now
// newPath.
func (pt *partialTree) repath(id, newPath string) error {
	newPaths := map[string]string{id: newPath}
	return pt.descendants(id, func(r pageRow, parentOld string) error {
		if r.Path == "" { // a link page
			return nil
		}
		slug, ok := strings.CutPrefix(r.Path, parentOld+"/")
		if !ok || parentOld == "" {
			slug = r.Path[strings.LastIndex(r.Path, "/")+1:]
		}
		np := joinPath(newPaths[r.ParentID], slug)
		newPaths[r.ID] = np
		pt.update(r, func(n *pageRow) { n.Path = np })
		return nil
	})
}

// remove takes page id and its subtree out.
func (pt *partialTree) remove(id string) error {
	gone := []string{id}
	r, _, err := pt.row(id)
	if err != nil {
		return err
	}
	pt.keep(r)
	if err := pt.descendants(id, func(r pageRow, _ string) error {
		pt.keep(r)
		gone = append(gone, r.ID)
		return nil
	}); err != nil {
		return err
	}
	for _, g := range gone {
		delete(pt.extra, g)
		if tp := pt.pages[g]; tp != nil {
			pt.t.Pages = slices.DeleteFunc(pt.t.Pages, func(p *TreePage) bool { return p == tp })
		}
		pt.pages[g] = nil
	}
	return nil
}

// rows are the new rows of the pages the edit keeps or adds (once their
// versions are written); a page in before without a row goes away.
func (pt *partialTree) rows() []pageRow {
	var out []pageRow
	for _, p := range pt.t.Pages {
		out = append(out, rowOf(p.ContentPage))
	}
	ids := make([]string, 0, len(pt.extra))
	for id := range pt.extra {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		out = append(out, pt.extra[id])
	}
	return out
}

// placed are the new paths of the pages whose rows the edit writes or
// removes ("" for removed), for the analyzer of new versions.
func (pt *partialTree) placed() map[string]string {
	m := map[string]string{}
	for id := range pt.before {
		m[id] = ""
	}
	for _, r := range pt.rows() {
		m[r.ID] = r.Path
	}
	return m
}

// writePartial writes c, an edit of head through partialTree: c.Pages, or
// for c.Page the content edit c.Edit of that page alone. Activated, head
// is the active revision on the main line and the edit its next revision
// (writeMainLine); on a change request, head is its head and the edit an
// overlay on the same base (writeOverlay). It reports false, having
// written nothing, when it does not apply: head has no main line under it
// (a space's empty first revision, a change request's head stored whole
// by an older migration), or c.Page is not in it (the whole tree then
// lets the edit answer).
func writePartial(tx *Tx, revID, head string, c RevisionChange) (bool, error) {
	rr, err := revisionRowsOf(tx.ctx, tx, head)
	onMain := c.ChangeRequest == ""
	if err != nil || rr.Seq == 0 || (onMain && rr.Overlay != "") {
		return false, err
	}
	pt := newPartialTree(tx, rr, onMain)
	load := loadTreeData
	if c.Pages != nil {
		// The file list is read only if the edit asks for it (a cover
		// image): links find their files by name (lookupFile).
		load = loadTreeVariables
		pt.t.filesFrom, pt.t.LookupFile = head, pt.lookupFile
	}
	if err := load(tx.ctx, tx, head, pt.t); err != nil {
		return false, err
	}
	if c.Pages != nil {
		err := c.Pages(pt)
		if pt.filesErr != nil {
			// The edit saw no file list: its own answer (a cover naming
			// no file, say) would misstate the failure.
			err = pt.filesErr
		}
		if err != nil {
			return false, err
		}
	} else {
		tp, err := pt.Page(c.Page)
		if err != nil || tp == nil {
			return false, err
		}
		was := tp.ContentPage
		if err := c.Edit(pt.t); err != nil {
			return false, err
		}
		if len(pt.t.Pages) != 1 || pt.t.Pages[0] != tp || len(tp.Children) != 0 || tp.ID != was.ID || tp.Slug != was.Slug || tp.Type != was.Type {
			return false, errors.New("storage: a one-page edit changed more than the page's content")
		}
	}
	if err := pt.place(); err != nil {
		return false, err
	}
	typ := c.Type
	if typ == "" {
		typ = "edits"
	}
	if err := insertRevision(tx, revID, c.SpaceID, []string{head}, typ, tx.Now); err != nil {
		return false, err
	}
	var an Analyzer
	if c.Analyzer != nil {
		an = onePageAnalyzer{Analyzer: c.Analyzer, tx: tx, rows: rr, placed: pt.placed(), reads: pt.reads}
	}
	if err := writeVersions(tx, pt.t, an); err != nil {
		return false, err
	}
	if pt.filesErr != nil {
		return false, pt.filesErr
	}
	if err := writeFiles(tx, revID, c.SpaceID, pt.t); err != nil {
		return false, err
	}
	if err := writeRevisionData(tx, revID, pt.t); err != nil {
		return false, err
	}
	if !onMain {
		return true, pt.writeOverlay(revID)
	}
	changed, err := writeMainLine(tx, c.SpaceID, revID, pt.rows(), pt.before)
	if err != nil {
		return false, err
	}
	if err := reindexSpace(tx, c.SpaceID, changed, pt.t, c.Analyzer, false); err != nil {
		return false, err
	}
	return true, setActiveRevision(tx, c.SpaceID, revID)
}

// writeOverlay stores revID, the edit of a change request's head, as an
// overlay on the head's base (main@on.Seq): the head's overlay rows copied
// (one INSERT ... SELECT: rows in proportion to the change request's
// difference, not to the space), then the rows of the pages the edit
// touched replaced. As the whole tree's writeOverlay writes them: a row
// equal to main@Seq's is left out, a page main@Seq has that the edit
// removed gets a removal row (empty version), one it does not have is simply
// absent; so both paths store the same rows.
func (pt *partialTree) writeOverlay(revID string) error {
	tx := pt.tx
	if _, err := tx.exec(`UPDATE revisions SET base_seq = ? WHERE id = ?`, pt.on.Seq, revID); err != nil {
		return err
	}
	rows := pt.rows()
	ids := slices.Sorted(maps.Keys(pt.placed())) // every page the edit touched
	onMain, err := pt.mainRows(ids)
	if err != nil {
		return err
	}
	if pt.on.Overlay != "" {
		if _, err := tx.exec(`INSERT INTO overlay_pages (revision_id, page_id, version, parent_id, position, path)
 SELECT CAST(? AS TEXT), x.page_id, x.version, x.parent_id, x.position, x.path FROM overlay_pages x WHERE x.revision_id = ?`, revID, pt.on.Overlay); err != nil {
			return err
		}
		if err := inChunks(ids, func(chunk []string) error {
			_, err := tx.exec(`DELETE FROM overlay_pages WHERE revision_id = ? AND page_id IN (`+placeholders(len(chunk))+`)`,
				append([]any{revID}, anySlice(chunk)...)...)
			return err
		}); err != nil {
			return err
		}
	}
	var inserts [][]any
	kept := make(map[string]bool, len(rows))
	for _, r := range rows {
		kept[r.ID] = true
		if m, ok := onMain[r.ID]; ok && m == r {
			continue
		}
		inserts = append(inserts, []any{revID, r.ID, r.Version, r.ParentID, r.Position, r.Path})
	}
	for _, id := range ids {
		if _, ok := onMain[id]; ok && !kept[id] {
			inserts = append(inserts, []any{revID, id, "", "", 0, ""})
		}
	}
	return insertBatch(tx, `INSERT INTO overlay_pages (revision_id, page_id, version, parent_id, position, path) VALUES `, 6, inserts)
}

// mainRows reads the rows of main@on.Seq of the pages ids (by the primary
// key: each page's history up to Seq).
func (pt *partialTree) mainRows(ids []string) (map[string]pageRow, error) {
	out := map[string]pageRow{}
	if len(pt.on.Sources) > 0 {
		// A sharing duplicate: main@Seq with its sources' rows.
		main := revisionRows{Space: pt.space, Seq: pt.on.Seq, Sources: pt.on.Sources}
		return out, inChunks(ids, func(chunk []string) error {
			q, a := main.sql(`x.page_id IN (`+placeholders(len(chunk))+`)`, anySlice(chunk)...)
			rows, err := pt.query(q, a)
			for _, r := range rows {
				out[r.ID] = r
			}
			return err
		})
	}
	return out, inChunks(ids, func(chunk []string) error {
		rows, err := pt.query(`SELECT x.page_id, x.version, x.parent_id, x.position, x.path FROM main_pages x
 WHERE x.space_id = ? AND x.page_id IN (`+placeholders(len(chunk))+`) AND x.from_seq <= ? AND +x.to_seq > ?`,
			append(append([]any{pt.space}, anySlice(chunk)...), pt.on.Seq, pt.on.Seq))
		for _, r := range rows {
			out[r.ID] = r
		}
		return err
	})
}
