package storage

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"strings"
	"time"
)

// PageMeta is everything about a page beyond its title, slug and body.
type PageMeta struct {
	Emoji         string         `json:"emoji,omitempty"`
	Icon          string         `json:"icon,omitempty"`
	Description   string         `json:"description,omitempty"`
	Layout        map[string]any `json:"layout,omitempty"`
	Cover         map[string]any `json:"cover,omitempty"`
	Variables     map[string]any `json:"variables,omitempty"`
	Hidden        bool           `json:"hidden,omitempty"`
	NoIndex       bool           `json:"noIndex,omitempty"`
	NoRobotsIndex bool           `json:"noRobotsIndex,omitempty"`
	Target        map[string]any `json:"target,omitempty"` // link pages: the ContentRef
	Href          string         `json:"href,omitempty"`
	Computed      map[string]any `json:"computed,omitempty"` // computed pages: the computed content source
	// Git is where a Git (or zip) repository import read the page, for
	// exports to write it back there; internal, never in API output.
	Git *PageGitSource `json:"git,omitempty"`
}

// PageGitSource is the file a repository import read a page from (File,
// relative to the repository's root) and the page's path in the tree
// then (TreePath, its slugs from the top): an export writes the page at
// File while its tree path is still TreePath (not moved nor renamed).
type PageGitSource struct {
	File     string `json:"file"`
	TreePath string `json:"treePath"`
}

// ContentPage is one page of a revision: its content (shared between revisions
// through its Version) and its place in the tree.
type ContentPage struct {
	ID        string
	Type      string // document | group | link | computed
	Title     string
	Slug      string
	Markdown  string // loaded only by single-page reads and edits
	Meta      PageMeta
	CreatedAt time.Time
	UpdatedAt time.Time

	Version  string // content address
	ParentID string
	Position int
	Path     string
}

// TreePage is a page in an editable tree. Edits set Dirty on pages whose
// content they change; only those get a new version.
type TreePage struct {
	ContentPage
	Children []*TreePage
	Dirty    bool
	// bodySet: Markdown holds the page's body. Trees are loaded without
	// bodies (a one-page edit of a large space must not read them all);
	// the body of a dirty page is read back before its new version is
	// written unless an edit set it with SetBody.
	bodySet bool
	// storedSlug is the slug the page was read with (loadTree, Page):
	// placeTree lets a page that keeps it, under the same parent, keep its
	// slug, and gives a page that arrives (new, moved, renamed) the suffix.
	storedSlug string
	// moved: PageTree.Move put the page here; it takes a new position
	// between its new neighbours (as the partial path gives it).
	moved bool
}

// BodyLoaded tells whether Markdown holds the page's body (merges load the
// bodies of changed pages only).
func (p *TreePage) BodyLoaded() bool { return p.bodySet }

// SetBody replaces a page's Markdown body and marks the page changed.
func (p *TreePage) SetBody(md string) { p.Markdown, p.bodySet, p.Dirty = md, true, true }

// File is a file of a revision.
type File struct {
	ID          string
	Name        string
	ContentType string
	Blob        string // content address of the bytes
	Size        int64
	Width       *int
	Height      *int
	Bytes       []byte // set on new files only (CreateRevision stores them)
}

// Tree is the editable content of a revision: the page tree, the files,
// the revision's variables and its reusable contents (both carried over
// from the base revision unless an edit changes them).
type Tree struct {
	Pages            []*TreePage
	Files            []*File
	Variables        map[string]any
	ReusableContents []map[string]any
	// LookupFile is set instead of Files on a tree whose file list was not
	// read (a partial page edit: PageTree.Files reads it when asked): it
	// finds the file a relative link naming name resolves to, the one the
	// list would give (the last of that name, the list being in name then
	// id order).
	LookupFile func(name string) (id string, ok bool)
	// filesFrom is the revision Files were read from (loadTreeData), and
	// filesRead what they were then: a revision written with the same
	// files shares that revision's rows (writeFiles).
	filesFrom string
	filesRead []File
}

// Walk visits every page in pre-order with its parent (nil at top level).
func (t *Tree) Walk(fn func(p, parent *TreePage) bool) {
	var walk func(list []*TreePage, parent *TreePage) bool
	walk = func(list []*TreePage, parent *TreePage) bool {
		for _, p := range list {
			if !fn(p, parent) || !walk(p.Children, p) {
				return false
			}
		}
		return true
	}
	walk(t.Pages, nil)
}

// Find returns the page with id and the slice holding it.
func (t *Tree) Find(id string) (page *TreePage, siblings *[]*TreePage, index int) {
	var find func(list *[]*TreePage) bool
	find = func(list *[]*TreePage) bool {
		for i, p := range *list {
			if p.ID == id {
				page, siblings, index = p, list, i
				return true
			}
			if find(&p.Children) {
				return true
			}
		}
		return false
	}
	find(&t.Pages)
	return
}

// PageLink is a link a page makes, resolved against the tree it is written in.
type PageLink struct {
	Kind   string // page | file | url | space | collection
	Target string // id or URL; "" when a relative link matched nothing
	Dest   string
	InApp  bool
	// Lookup (and LookupAlt, a second candidate) is what an unresolved
	// relative link names: a page path (kind page) or a file name (kind
	// file). Each later revision looks them up among its own pages and
	// files, so the link resolves once its target exists.
	Lookup    string
	LookupAlt string
}

// SearchSection is one indexed section of a page.
type SearchSection struct {
	ID    string
	Title string
	Body  string
}

// Analyzer reads page bodies for the storage: the links of a new page
// version (resolved against the tree being written) and its search sections.
// The graph layer provides it (Markdown parsing is not storage's business).
type Analyzer interface {
	Links(p *TreePage, t *Tree) []PageLink
	Sections(p *TreePage) []SearchSection
}

// RevisionChange is one new revision: Edit changes the tree of Base (the
// space's active revision when Base is ""). With Activate the revision
// becomes the space's content (Space.revision) and the search index follows;
// change requests create revisions without activating them: with
// ChangeRequest set, Base is that change request's head (read in the same
// transaction), the new revision becomes its head and Author is recorded as
// a contributor.
type RevisionChange struct {
	SpaceID       string
	Base          string
	Type          string
	Activate      bool
	ChangeRequest string
	Author        string
	Analyzer      Analyzer
	Edit          func(t *Tree) error
	// Also, when set, runs in the same transaction once the revision is
	// written (a translation run records its outcome with its revision).
	Also func(tx *Tx, revID string) error
	// ID is the new revision's id ("" takes a new one; a caller chooses it
	// to describe the change before the write: Recording).
	ID string
	// Page, when set, promises that Edit changes only the content of that
	// page (title, body, metadata: not its slug, place or children). An
	// activated edit of the space's active revision, or an edit of a
	// change request's head, then reads that page (and the pages its links
	// name) and writes one row (writePartial) instead of loading the whole
	// tree; Edit sees a tree holding that page alone, with the revision's
	// files. Breaking the promise is an error.
	Page string
	// Pages, instead of Edit, is an edit of pages through PageTree: on an
	// activated edit of the space's active revision or an edit of a change
	// request's head it reads and writes only what it touches
	// (writePartial); elsewhere (a given Base, a head stored whole,
	// WholeTree) it runs on the whole loaded tree.
	Pages func(t PageTree) error
	// WholeTree runs Pages on the whole loaded tree even where the partial
	// path applies (tests compare the two).
	WholeTree bool
	// Batched (imports, translations: an Edit adding many pages) lets the
	// revision be written in batches of Options.ImportBatchPages pages,
	// each its own transaction, then published by a last one
	// (import_batch.go); Edit then runs outside the writer and may run
	// again if the base moves meanwhile.
	Batched bool
	// inOneWrite: a Batched change written in one transaction all the
	// same (after its batched attempts), numbered as an import still.
	inOneWrite bool
}

// ErrChangeRequestClosed: the change request is merged or archived, so its
// content no longer changes.
var ErrChangeRequestClosed = errors.New("storage: the change request is merged or archived")

// CreateRevision writes a new revision in one transaction and returns its id.
func (db *DB) CreateRevision(ctx context.Context, c RevisionChange) (string, error) {
	id := c.ID
	if id == "" {
		id = NewID()
	}
	if c.Batched && !c.inOneWrite && db.importBatch > 0 && c.Edit != nil && c.Page == "" && c.Pages == nil {
		return id, db.createStaged(ctx, id, c)
	}
	write := db.Write
	if c.Also == nil {
		// Also (Git Sync, translations) finishes a job whose queue is the
		// installation's: unscoped.
		write = func(ctx context.Context, fn func(*Tx) error) error { return db.writeSpace(ctx, c.SpaceID, fn) }
	}
	// A batched import of the space publishing: wait, then again.
	once := write
	write = func(ctx context.Context, fn func(*Tx) error) error {
		return db.retryClosing(ctx, c.SpaceID, func() error { return once(ctx, fn) })
	}
	err := write(ctx, func(tx *Tx) error {
		base := c.Base
		switch {
		case c.ChangeRequest != "":
			var status string
			if err := tx.QueryRowContext(tx.ctx, `SELECT revision_id, status FROM change_requests WHERE id = ? AND space_id = ?`, c.ChangeRequest, c.SpaceID).Scan(&base, &status); err != nil {
				return notFound(err)
			}
			if status == "merged" || status == "archived" {
				return ErrChangeRequestClosed
			}
		case base == "":
			head, err := spaceHead(ctx, tx, c.SpaceID)
			if err != nil {
				return err
			}
			base = head.Revision
		}
		// Once the revision is written: what runs with it, and a change
		// request's head moves.
		finish := func() error {
			if c.Also != nil {
				if err := c.Also(tx, id); err != nil {
					return err
				}
			}
			if c.ChangeRequest != "" {
				return moveChangeRequestHead(tx, c.ChangeRequest, id, c.Author)
			}
			return nil
		}
		onMain := c.Activate && c.ChangeRequest == ""
		inChangeRequest := !c.Activate && c.ChangeRequest != ""
		if (c.Page != "" || c.Pages != nil) && (onMain || inChangeRequest) && c.Base == "" && !c.WholeTree {
			done, err := writePartial(tx, id, base, c)
			if err != nil {
				return err
			}
			if done {
				return finish()
			}
		}
		if r, _ := ctx.Value(pageReadsKey{}).(*PageReads); r != nil {
			r.WholeTrees++
		}
		tree, err := loadTree(ctx, tx, base, false)
		if err != nil {
			return err
		}
		loaded := rowMap(treeRows(tree)) // the base's rows, to write only what the edit changes
		edit := c.Edit
		if c.Pages != nil {
			edit = func(t *Tree) error { return c.Pages(wholeTree{t}) }
		}
		if err := edit(tree); err != nil {
			return err
		}
		typ := c.Type
		if typ == "" {
			typ = "edits"
		}
		if err := writeRevision(tx, newRevision{ID: id, SpaceID: c.SpaceID, Parents: []string{base}, Type: typ, Activate: c.Activate, Analyzer: c.Analyzer,
			Known: loaded, KnownRev: base, renumber: c.Batched}, tree); err != nil {
			return err
		}
		return finish()
	})
	return id, err
}

// newRevision is what writeRevision needs beside the tree.
type newRevision struct {
	ID, SpaceID string
	Parents     []string
	// From is the revision the tree was derived from (Parents[0] when
	// empty): an overlay is written against the main line it is on.
	From       string
	Type       string
	MergedFrom string
	Activate   bool
	Analyzer   Analyzer
	// Known, when set, are the rows of revision KnownRev as they were read
	// (the tree before the edit): the write compares with them instead of
	// reading them again.
	Known    map[string]pageRow
	KnownRev string
	// placed: the tree was placed already (placeTree); stored: pages whose
	// versions are stored already (a batched write's batches).
	placed bool
	stored map[*TreePage]bool
	// renumber: an import's revision (a Batched change, written in one
	// transaction): its changed pages take new docs (changeIndex).
	renumber bool
}

// writeRevision stores tree as a new revision: activated, the next
// revision of the space's main line (re-indexing only the pages that
// changed); else an overlay on the main line. Either way it writes a row
// per page that differs, not per page of the space.
func writeRevision(tx *Tx, r newRevision, tree *Tree) error {
	if !r.placed {
		placeTree(tree)
	}
	if err := insertRevision(tx, r.ID, r.SpaceID, r.Parents, r.Type, tx.Now); err != nil {
		return err
	}
	if r.MergedFrom != "" {
		if _, err := tx.exec(`UPDATE revisions SET merged_from = ? WHERE id = ?`, r.MergedFrom, r.ID); err != nil {
			return err
		}
	}
	if err := writeVersionsExcept(tx, tree, r.Analyzer, r.stored); err != nil {
		return err
	}
	if err := writeFiles(tx, r.ID, r.SpaceID, tree); err != nil {
		return err
	}
	if err := writeRevisionData(tx, r.ID, tree); err != nil {
		return err
	}
	rows := treeRows(tree)
	if !r.Activate {
		ref := r.From
		if ref == "" && len(r.Parents) > 0 {
			ref = r.Parents[0]
		}
		return writeOverlay(tx, r.SpaceID, r.ID, ref, rows, r.Known, r.KnownRev)
	}
	var active string
	if err := tx.QueryRowContext(tx.ctx, `SELECT revision_id FROM spaces WHERE id = ?`, r.SpaceID).Scan(&active); err != nil {
		return notFound(err)
	}
	alive := r.Known // the active revision's rows are the main line's alive rows
	if r.KnownRev != active {
		alive = nil
	}
	changed, err := writeMainLine(tx, r.SpaceID, r.ID, rows, alive)
	if err != nil {
		return err
	}
	if err := reindexSpace(tx, r.SpaceID, changed, tree, r.Analyzer, r.renumber); err != nil {
		return err
	}
	return setActiveRevision(tx, r.SpaceID, r.ID)
}

const pageCols = `rp.page_id, v.type, v.title, v.slug, v.meta, v.created_at, v.updated_at, rp.version, rp.parent_id, rp.position, rp.path`

// scanPageWith scans leading columns into lead, then the page columns.
func scanPageWith(sc interface{ Scan(...any) error }, lead ...any) (ContentPage, error) {
	return scanPageCols(sc, lead, nil)
}

func scanPage(sc interface{ Scan(...any) error }, extra ...any) (ContentPage, error) {
	return scanPageCols(sc, nil, extra)
}

func scanPageCols(sc interface{ Scan(...any) error }, lead, extra []any) (ContentPage, error) {
	var p ContentPage
	var meta string
	var created, updated int64
	err := sc.Scan(append(append(lead, &p.ID, &p.Type, &p.Title, &p.Slug, &meta, &created, &updated, &p.Version, &p.ParentID, &p.Position, &p.Path), extra...)...)
	if err != nil {
		return p, notFound(err)
	}
	json.Unmarshal([]byte(meta), &p.Meta)
	p.CreatedAt, p.UpdatedAt = FromMillis(created), FromMillis(updated)
	return p, nil
}

// loadTree reads a revision's pages (with bodies when withBody) and files
// as an editable tree.
func loadTree(ctx context.Context, q queryer, revID string, withBody bool) (*Tree, error) {
	body := `''`
	if withBody {
		body = `v.markdown`
	}
	rr, err := revisionRowsOf(ctx, q, revID)
	if err != nil {
		return nil, err
	}
	from, args := rr.pages("")
	rows, err := q.QueryContext(ctx, `SELECT `+pageCols+`, `+body+` `+from, args...)
	var pages []ContentPage
	if err := eachRow(rows, err, func(sc interface{ Scan(...any) error }) error {
		var md string
		p, err := scanPage(sc, &md)
		p.Markdown = md
		pages = append(pages, p)
		return err
	}); err != nil {
		return nil, err
	}
	t := &Tree{}
	byID := make(map[string]*TreePage, len(pages))
	for _, p := range inTreeOrder(pages) {
		tp := &TreePage{ContentPage: p, storedSlug: p.Slug}
		byID[p.ID] = tp
		if parent := byID[p.ParentID]; parent != nil {
			parent.Children = append(parent.Children, tp)
		} else {
			t.Pages = append(t.Pages, tp)
		}
	}
	return t, loadTreeData(ctx, q, revID, t)
}

// loadTreeData reads into t a revision's files, variables and reusable
// contents.
func loadTreeData(ctx context.Context, q queryer, revID string, t *Tree) error {
	if err := loadTreeFiles(ctx, q, revID, t); err != nil {
		return err
	}
	return loadTreeVariables(ctx, q, revID, t)
}

// loadTreeFiles reads a revision's file list into t.
func loadTreeFiles(ctx context.Context, q queryer, revID string, t *Tree) error {
	files, err := revisionFiles(ctx, q, revID)
	if err != nil {
		return err
	}
	for i := range files {
		t.Files = append(t.Files, &files[i])
	}
	t.filesFrom, t.filesRead, t.LookupFile = revID, slices.Clone(files), nil
	return nil
}

// loadTreeVariables reads a revision's variables and reusable contents
// into t.
func loadTreeVariables(ctx context.Context, q queryer, revID string, t *Tree) error {
	var vars, reusable sql.NullString
	if err := q.QueryRowContext(ctx, `SELECT variables, reusable_contents FROM revisions WHERE id = ?`, revID).Scan(&vars, &reusable); err != nil {
		return notFound(err)
	}
	t.Variables = fromJSONText[map[string]any](vars)
	t.ReusableContents = fromJSONText[[]map[string]any](reusable)
	return nil
}

// placeTree derives sibling-local positions (placeSiblings) and paths from
// the tree and makes sibling slugs unique (a renamed slug makes the page
// dirty): the pages that keep the slug they were read with under the same
// parent keep it; a page that arrives (new, moved in, renamed) takes the
// first free suffix (-2, -3, ...), in list order.
func placeTree(t *Tree) {
	var place func(list []*TreePage, parentID, parentPath string)
	place = func(list []*TreePage, parentID, parentPath string) {
		placeSiblings(list, parentID)
		used := map[string]bool{}
		kept := make([]bool, len(list))
		for i, p := range list {
			if p.Type != "link" && p.Version != "" && p.ParentID == parentID && !p.moved && p.Slug != "" && p.Slug == p.storedSlug && !used[p.Slug] {
				used[p.Slug], kept[i] = true, true
			}
		}
		for i, p := range list {
			p.ParentID = parentID
			if p.Type == "link" {
				p.Path = ""
			} else {
				if !kept[i] {
					if p.Slug == "" {
						p.Slug, p.Dirty = "page", true
					}
					slug := p.Slug
					for n := 2; used[slug]; n++ {
						slug = p.Slug + "-" + strconv.Itoa(n)
					}
					if slug != p.Slug {
						p.Slug, p.Dirty = slug, true
					}
					used[slug] = true
				}
				p.Path = joinPath(parentPath, p.Slug)
			}
			place(p.Children, p.ID, p.Path)
		}
	}
	place(t.Pages, "", "")
}

// versionHash is the content address of a page version.
func versionHash(p *TreePage) string {
	meta, _ := json.Marshal(p.Meta)
	h := sha256.New()
	for _, part := range []string{p.ID, p.Type, p.Title, p.Slug, p.Markdown, string(meta),
		strconv.FormatInt(p.CreatedAt.UnixMilli(), 10), strconv.FormatInt(p.UpdatedAt.UnixMilli(), 10)} {
		h.Write([]byte(strconv.Itoa(len(part))))
		h.Write([]byte{':'})
		h.Write([]byte(part))
	}
	return hex.EncodeToString(h.Sum(nil))
}

// writeVersions stores new versions of dirty (and new) pages, with their
// links.
func writeVersions(tx *Tx, t *Tree, an Analyzer) error {
	return writeVersionsExcept(tx, t, an, nil)
}

// writeVersionsExcept is writeVersions but for the pages in stored.
func writeVersionsExcept(tx *Tx, t *Tree, an Analyzer, stored map[*TreePage]bool) error {
	var err error
	t.Walk(func(p, _ *TreePage) bool {
		if (p.Dirty || p.Version == "") && !stored[p] {
			if p.Version != "" && !p.bodySet {
				if err = tx.QueryRowContext(tx.ctx, `SELECT markdown FROM page_versions WHERE hash = ?`, p.Version).Scan(&p.Markdown); err != nil {
					return false
				}
			}
			if p.CreatedAt.IsZero() {
				p.CreatedAt = tx.Now
			}
			p.UpdatedAt = tx.Now
			p.Version = versionHash(p)
			if err = insertVersion(tx, p, t, an); err != nil {
				return false
			}
		}
		return true
	})
	return err
}

func insertVersion(tx *Tx, p *TreePage, t *Tree, an Analyzer) error {
	res, err := tx.exec(`INSERT INTO page_versions (hash, page_id, type, title, slug, markdown, meta, created_at, updated_at)
 VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (hash) DO NOTHING`,
		p.Version, p.ID, p.Type, p.Title, p.Slug, p.Markdown, jsonText(p.Meta), ms(p.CreatedAt), ms(p.UpdatedAt))
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 || an == nil || p.Type != "document" {
		return nil
	}
	var rows [][]any
	for i, l := range an.Links(p, t) {
		rows = append(rows, []any{p.Version, i, l.Kind, l.Target, l.Dest, boolInt(l.InApp), l.Lookup, l.LookupAlt})
	}
	return insertBatch(tx, `INSERT INTO page_links (version, ordinal, kind, target, dest, in_app, lookup, lookup_alt) VALUES `, 8, rows)
}

// insertBatch inserts rows with multi-row VALUES statements.
func insertBatch(tx *Tx, head string, cols int, rows [][]any) error {
	return upsertBatch(tx, head, cols, rows, "")
}

// upsertBatch is insertBatch with tail after each statement's rows (an ON
// CONFLICT clause).
func upsertBatch(tx *Tx, head string, cols int, rows [][]any, tail string) error {
	const per = 100
	one := "(" + strings.TrimSuffix(strings.Repeat("?, ", cols), ", ") + ")"
	for start := 0; start < len(rows); start += per {
		chunk := rows[start:min(start+per, len(rows))]
		args := make([]any, 0, len(chunk)*cols)
		for _, r := range chunk {
			args = append(args, r...)
		}
		q := head + strings.TrimSuffix(strings.Repeat(one+", ", len(chunk)), ", ") + tail
		if _, err := tx.exec(q, args...); err != nil {
			return err
		}
	}
	return nil
}

// writeFiles stores the files of revision revID (of space spaceID): when
// they are the files t was read with, from a revision of the same space,
// the new revision shares that revision's rows (revisions.files_of: a page
// edit writes no row per file); else a row per file.
func writeFiles(tx *Tx, revID, spaceID string, t *Tree) error {
	if t.LookupFile != nil && !filesUnchanged(t) {
		return errors.New("storage: files added to a tree whose file list was not read")
	}
	if t.filesFrom != "" && filesUnchanged(t) {
		var owner, space string
		if err := tx.QueryRowContext(tx.ctx, `SELECT COALESCE(files_of, id), space_id FROM revisions WHERE id = ?`, t.filesFrom).Scan(&owner, &space); err != nil {
			return notFound(err)
		}
		if space == spaceID {
			_, err := tx.exec(`UPDATE revisions SET files_of = ? WHERE id = ?`, owner, revID)
			return err
		}
	}
	var rows [][]any
	for _, f := range t.Files {
		if f.Bytes != nil {
			sum := sha256.Sum256(f.Bytes)
			f.Blob, f.Size = hex.EncodeToString(sum[:]), int64(len(f.Bytes))
			if _, err := tx.exec(`INSERT INTO file_blobs (hash, size, width, height) VALUES (?, ?, ?, ?) ON CONFLICT (hash) DO NOTHING`,
				f.Blob, f.Size, intOrNil(f.Width), intOrNil(f.Height)); err != nil {
				return err
			}
			if _, err := tx.exec(`INSERT INTO file_bytes (hash, bytes) VALUES (?, ?) ON CONFLICT (hash) DO NOTHING`, f.Blob, f.Bytes); err != nil {
				return err
			}
		}
		rows = append(rows, []any{revID, f.ID, f.Name, f.ContentType, f.Blob})
	}
	return insertBatch(tx, `INSERT INTO revision_files (revision_id, file_id, name, content_type, blob) VALUES `, 5, rows)
}

// filesUnchanged tells whether t's files are still those it was read
// with, in the same order (none added, removed, renamed or replaced).
func filesUnchanged(t *Tree) bool {
	return slices.EqualFunc(t.Files, t.filesRead, func(f *File, read File) bool {
		return f.Bytes == nil && f.ID == read.ID && f.Name == read.Name && f.ContentType == read.ContentType && f.Blob == read.Blob
	})
}

func intOrNil(p *int) any {
	if p == nil {
		return nil
	}
	return *p
}

// writeRevisionData stores the revision's variables and reusable contents
// (the columns keep their empty defaults when there are none).
func writeRevisionData(tx *Tx, revID string, t *Tree) error {
	if len(t.Variables) == 0 && len(t.ReusableContents) == 0 {
		return nil
	}
	vars, reusable := t.Variables, t.ReusableContents
	if vars == nil {
		vars = map[string]any{}
	}
	if reusable == nil {
		reusable = []map[string]any{}
	}
	_, err := tx.exec(`UPDATE revisions SET variables = ?, reusable_contents = ? WHERE id = ?`, jsonText(vars), jsonText(reusable), revID)
	return err
}

// RevisionByID reads a revision of spaceID.
func (db *DB) RevisionByID(ctx context.Context, spaceID, revID string) (Revision, error) {
	return keptRead(ctx, db, keptKey("revision", spaceID, revID), one, func() (Revision, error) { return db.revisionByID(ctx, spaceID, revID) })
}

func (db *DB) revisionByID(ctx context.Context, spaceID, revID string) (Revision, error) {
	var r Revision
	var parents, vars, reusable sql.NullString
	var created int64
	var mergedFrom sql.NullString
	err := db.r().QueryRowContext(ctx, `SELECT id, space_id, parents, type, created_at, merged_from, variables, reusable_contents FROM revisions WHERE id = ? AND space_id = ? AND type <> '`+stagedType+`'`, revID, spaceID).
		Scan(&r.ID, &r.SpaceID, &parents, &r.Type, &created, &mergedFrom, &vars, &reusable)
	r.MergedFrom = mergedFrom.String
	if err != nil {
		return r, notFound(err)
	}
	r.Parents = fromJSONText[[]string](parents)
	if r.Parents == nil {
		r.Parents = []string{}
	}
	r.Variables = fromJSONText[map[string]any](vars)
	if r.Variables == nil {
		r.Variables = map[string]any{}
	}
	r.ReusableContents = fromJSONText[[]map[string]any](reusable)
	if r.ReusableContents == nil {
		r.ReusableContents = []map[string]any{}
	}
	r.CreatedAt = FromMillis(created)
	return r, nil
}
