package storage

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"sort"
	"time"
)

// Imports and translations in batches. A RevisionChange marked
// Batched (an import, a translation run: many new pages at once) is not
// written in one transaction holding the writer for the whole tree:
//
//  1. outside any transaction, the base revision is read, the edit runs,
//     the tree is placed and each new or changed page gets its version
//     (hash, links, search sections: the CPU work);
//  2. the new page versions and file bytes are stored batch by batch
//     (ImportBatchPages pages a batch), each batch its own short write;
//     they are content-addressed rows no revision refers to yet, invisible
//     to readers, listed in a stage (import_stages, migration 0030f);
//  3. one last write publishes the revision (rows, files, search index,
//     activation or the change request's head, the recorded change: audit,
//     webhooks, live) if the base is still the space's content (else the
//     run starts over on the new base), and drops the stage.
//
// Other writes run between the batches. A run that fails or is cancelled
// drops its stage at once; one that dies leaves it to the sweep
// (DropExpiredImportStages), once its lease has run out. A batch renews the
// lease and the publishing write requires the stage to still be there and
// not being dropped (the drop's first write marks it), so a stage swept
// under a slow run makes that run start over, never publish rows whose
// versions are gone.

// DefaultImportBatchPages is the number of pages a batch stores when
// Options.ImportBatchPages is 0 (docs/performance.md, "Imports in batches").
const DefaultImportBatchPages = 500

// stagedAttempts is how many times a batched write starts over because the
// base moved under it before it gives up on batches and writes in one
// transaction (so that a space edited without pause still gets its import).
const stagedAttempts = 3

// errBaseMoved: the space's content (or the change request's head) changed
// while the batches were written, or the stage was swept.
var errBaseMoved = errors.New("storage: the base revision moved during a batched write")

// ImportBatchPages is the number of page versions a batched write stores
// per transaction (0: batched writes are written in one transaction).
func (db *DB) ImportBatchPages() int { return db.importBatch }

// createStaged is CreateRevision for a Batched change.
func (db *DB) createStaged(ctx context.Context, id string, c RevisionChange) error {
	for range stagedAttempts {
		err := db.stageAndPublish(ctx, id, c)
		if !errors.Is(err, errBaseMoved) {
			return err
		}
	}
	c.Batched = false
	c.ID = id
	_, err := db.CreateRevision(ctx, c)
	return err
}

// stagedTree is the new revision prepared outside the writer.
type stagedTree struct {
	base   string
	tree   *Tree
	loaded map[string]pageRow
	pages  []*TreePage // the pages that need a new version, in tree order
	files  []*File     // the new files (with bytes)
	an     *preAnalyzed
	// onMain: the revision becomes the space's content, the next of its
	// main line: rows are its rows that differ from the base's (staged,
	// then copied into main_pages in one statement), closed the base's
	// pages whose row they replace or that go, changed the pages whose
	// version changed (writeMainLine's diff, computed before the writer).
	onMain  bool
	rows    []pageRow
	closed  []string
	changed map[string]string
}

// prepareStaged reads the base and runs the edit through the reader pool:
// the tree the one-transaction path would write, computed without the writer.
func (db *DB) prepareStaged(ctx context.Context, c RevisionChange) (*stagedTree, error) {
	base := c.Base
	q := db.r()
	switch {
	case c.ChangeRequest != "":
		var status string
		if err := q.QueryRowContext(ctx, `SELECT revision_id, status FROM change_requests WHERE id = ? AND space_id = ?`, c.ChangeRequest, c.SpaceID).Scan(&base, &status); err != nil {
			return nil, notFound(err)
		}
		if status == "merged" || status == "archived" {
			return nil, ErrChangeRequestClosed
		}
	case base == "":
		head, err := spaceHead(ctx, q, c.SpaceID)
		if err != nil {
			return nil, err
		}
		base = head.Revision
	}
	tree, err := loadTree(ctx, q, base, false)
	if err != nil {
		return nil, err
	}
	st := &stagedTree{base: base, tree: tree, loaded: rowMap(treeRows(tree)), an: &preAnalyzed{Analyzer: c.Analyzer}}
	if err := c.Edit(tree); err != nil {
		return nil, err
	}
	placeTree(tree)
	now := FromMillis(ms(db.Now())) // as a transaction's clock would stamp it
	var bodyErr error
	tree.Walk(func(p, _ *TreePage) bool {
		if !p.Dirty && p.Version != "" {
			return true
		}
		if p.Version != "" && !p.bodySet {
			if bodyErr = q.QueryRowContext(ctx, `SELECT markdown FROM page_versions WHERE hash = ?`, p.Version).Scan(&p.Markdown); bodyErr != nil {
				return false
			}
			p.bodySet = true
		}
		if p.CreatedAt.IsZero() {
			p.CreatedAt = now
		}
		p.UpdatedAt = now
		p.Version = versionHash(p)
		st.pages = append(st.pages, p)
		return true
	})
	if bodyErr != nil {
		return nil, bodyErr
	}
	if st.onMain = c.Activate && c.ChangeRequest == "" && c.Base == ""; st.onMain {
		st.rows, st.closed, st.changed = mainLineDiff(treeRows(tree), st.loaded)
	}
	for _, f := range tree.Files {
		if f.Bytes != nil {
			sum := sha256.Sum256(f.Bytes)
			f.Blob, f.Size = hex.EncodeToString(sum[:]), int64(len(f.Bytes))
			st.files = append(st.files, f)
		}
	}
	return st, nil
}

// mainLineDiff is writeMainLine's comparison of rows with alive, the
// base's: the rows to insert, the pages whose alive row closes, and the
// pages whose version changed with their old version ("" when new).
func mainLineDiff(rows []pageRow, alive map[string]pageRow) (inserts []pageRow, closed []string, changed map[string]string) {
	changed = map[string]string{}
	seen := make(map[string]bool, len(rows))
	for _, r := range rows {
		seen[r.ID] = true
		old, had := alive[r.ID]
		if had && old == r {
			continue
		}
		if had {
			closed = append(closed, r.ID)
		}
		if !had || old.Version != r.Version {
			changed[r.ID] = old.Version
		}
		inserts = append(inserts, r)
	}
	for id, old := range alive {
		if !seen[id] {
			closed = append(closed, id)
			changed[id] = old.Version
		}
	}
	sort.Strings(closed)
	return inserts, closed, changed
}

// preAnalyzed hands writeRevision the search sections computed before the
// publishing write (so that it does not parse bodies while holding the
// writer); pages it has none for go to the analyzer.
type preAnalyzed struct {
	Analyzer
	sections map[*TreePage][]SearchSection
}

func (a *preAnalyzed) Sections(p *TreePage) []SearchSection {
	if s, ok := a.sections[p]; ok {
		return s
	}
	return a.Analyzer.Sections(p)
}

// stageAndPublish is one attempt: prepare, store the batches, publish.
func (db *DB) stageAndPublish(ctx context.Context, id string, c RevisionChange) (err error) {
	st, err := db.prepareStaged(ctx, c)
	if err != nil {
		return err
	}
	stage := NewID()
	defer func() {
		if err != nil {
			// Best effort: what the sweep would do later, done now.
			if derr := db.dropStage(context.WithoutCancel(ctx), stage); derr != nil {
				err = errors.Join(err, derr)
			}
		}
	}()
	per := max(db.importBatch, 1)
	batches := (len(st.pages) + per - 1) / per
	batches = max(batches, (len(st.files)+per-1)/per, (len(st.rows)+per-1)/per)
	if batches == 0 {
		batches = 1 // the stage row itself
	}
	if st.an.Analyzer != nil {
		st.an.sections = make(map[*TreePage][]SearchSection, len(st.pages))
	}
	for b := range batches {
		pages := st.pages[min(b*per, len(st.pages)):min((b+1)*per, len(st.pages))]
		files := st.files[min(b*per, len(st.files)):min((b+1)*per, len(st.files))]
		var rows [][]any
		for _, r := range st.rows[min(b*per, len(st.rows)):min((b+1)*per, len(st.rows))] {
			rows = append(rows, []any{stage, r.ID, r.Version, r.ParentID, r.Position, r.Path})
		}
		versions, links := st.versionRows(pages)
		began := time.Now()
		if err := db.Write(ctx, func(tx *Tx) error {
			if err := writeStageBatch(tx, stage, c.SpaceID, b == 0, versions, links, files); err != nil {
				return err
			}
			return insertBatch(tx, `INSERT INTO import_stage_pages (stage_id, page_id, version, parent_id, position, path) VALUES `, 6, rows)
		}); err != nil {
			return err
		}
		if db.importWrite != nil {
			db.importWrite(false, time.Since(began))
		}
		if db.afterImportBatch != nil {
			if err := db.afterImportBatch(b); err != nil {
				return err
			}
		}
	}
	for _, f := range st.files {
		f.Bytes = nil // stored: the revision's rows name the blob
	}
	stored := make(map[*TreePage]bool, len(st.pages))
	for _, p := range st.pages {
		stored[p] = true
	}
	var an Analyzer
	if c.Analyzer != nil {
		an = st.an
	}
	began := time.Now()
	err = db.Write(ctx, func(tx *Tx) error {
		if err := stillBase(tx, c, st.base, stage); err != nil {
			return err
		}
		typ := c.Type
		if typ == "" {
			typ = "edits"
		}
		r := newRevision{ID: id, SpaceID: c.SpaceID, Parents: []string{st.base}, Type: typ, Activate: c.Activate, Analyzer: an,
			Known: st.loaded, KnownRev: st.base, placed: true, stored: stored}
		if st.onMain {
			if err := publishOnMain(tx, r, st, stage); err != nil {
				return err
			}
		} else if err := writeRevision(tx, r, st.tree); err != nil {
			return err
		}
		if c.Also != nil {
			if err := c.Also(tx, id); err != nil {
				return err
			}
		}
		if c.ChangeRequest != "" {
			if err := moveChangeRequestHead(tx, c.ChangeRequest, id, c.Author); err != nil {
				return err
			}
		}
		// The stage's lists go after the publication, in bounded writes
		// (dropStage), not in this one.
		_, err := tx.exec(`UPDATE import_stages SET published = 1 WHERE id = ?`, stage)
		return err
	})
	if err != nil {
		return err
	}
	if db.importWrite != nil {
		db.importWrite(true, time.Since(began))
	}
	// The revision is out; a failure here leaves the lists to the sweep.
	_ = db.dropStage(context.WithoutCancel(ctx), stage)
	return nil
}

// publishOnMain is writeRevision's activation for a staged revision: its
// versions and files are stored, its rows staged, its diff computed; what
// is left is bounded by the change to the base's existing pages (closed
// rows) and the index, plus one statement copying the staged rows.
func publishOnMain(tx *Tx, r newRevision, st *stagedTree, stage string) error {
	if err := insertRevision(tx, r.ID, r.SpaceID, r.Parents, r.Type, tx.Now); err != nil {
		return err
	}
	if err := writeFiles(tx, r.ID, r.SpaceID, st.tree); err != nil {
		return err
	}
	if err := writeRevisionData(tx, r.ID, st.tree); err != nil {
		return err
	}
	seq, err := lastSeq(tx, r.SpaceID)
	if err != nil {
		return err
	}
	seq++
	if _, err := tx.exec(`UPDATE revisions SET seq = ? WHERE id = ?`, seq, r.ID); err != nil {
		return err
	}
	if err := ownPages(tx, r.SpaceID, changedIDs(st.closed, st.rows)); err != nil {
		return err // a sharing duplicate: copy on first write (space_sources.go)
	}
	if err := inChunks(st.closed, func(chunk []string) error {
		_, err := tx.exec(`UPDATE main_pages SET to_seq = ? WHERE space_id = ? AND +to_seq = ? AND page_id IN (`+placeholders(len(chunk))+`)`,
			append([]any{seq, r.SpaceID, aliveSeq}, anySlice(chunk)...)...)
		return err
	}); err != nil {
		return err
	}
	if _, err := tx.exec(`INSERT INTO main_pages (space_id, page_id, from_seq, to_seq, version, parent_id, position, path)
 SELECT ?, page_id, ?, ?, version, parent_id, position, path FROM import_stage_pages WHERE stage_id = ?`, r.SpaceID, seq, aliveSeq, stage); err != nil {
		return err
	}
	if err := reindexSpace(tx, r.SpaceID, st.changed, st.tree, r.Analyzer); err != nil {
		return err
	}
	return setActiveRevision(tx, r.SpaceID, r.ID)
}

// versionRows are the page_versions and page_links rows of pages, computed
// outside the writer (the sections for the index too).
func (st *stagedTree) versionRows(pages []*TreePage) (versions, links [][]any) {
	an := st.an.Analyzer
	for _, p := range pages {
		versions = append(versions, []any{p.Version, p.ID, p.Type, p.Title, p.Slug, p.Markdown, jsonText(p.Meta), ms(p.CreatedAt), ms(p.UpdatedAt)})
		if an == nil || p.Type != "document" {
			continue
		}
		for i, l := range an.Links(p, st.tree) {
			links = append(links, []any{p.Version, i, l.Kind, l.Target, l.Dest, boolInt(l.InApp), l.Lookup, l.LookupAlt})
		}
		if !p.Meta.NoIndex {
			st.an.sections[p] = an.Sections(p)
		}
	}
	return versions, links
}

// writeStageBatch stores one batch: page versions (a version already
// stored keeps its row and links, as insertVersion does), file bytes, and
// their names in the stage, whose lease it starts or renews.
func writeStageBatch(tx *Tx, stage, spaceID string, first bool, versions, links [][]any, files []*File) error {
	until := tx.db.leaseUntil(tx.Now)
	if first {
		if _, err := tx.exec(`INSERT INTO import_stages (id, space_id, lease_until) VALUES (?, ?, ?)`, stage, spaceID, until); err != nil {
			return err
		}
	} else if res, err := tx.exec(`UPDATE import_stages SET lease_until = ? WHERE id = ? AND lease_until >= 0`, until, stage); err != nil {
		return err
	} else if n, _ := res.RowsAffected(); n == 0 {
		return errBaseMoved // swept under us: start over
	}
	// Versions first (links refer to them), and only the links of
	// versions this batch is the first to store.
	fresh := make(map[string]bool, len(versions))
	var staged [][]any
	for _, v := range versions {
		staged = append(staged, []any{stage, "version", v[0]})
	}
	if err := upsertBatch(tx, `INSERT INTO import_stage_rows (stage_id, kind, hash) VALUES `, 3, staged, ` ON CONFLICT DO NOTHING`); err != nil {
		return err
	}
	if err := insertVersionsReturning(tx, versions, fresh); err != nil {
		return err
	}
	var newLinks [][]any
	for _, l := range links {
		if fresh[l[0].(string)] {
			newLinks = append(newLinks, l)
		}
	}
	if err := insertBatch(tx, `INSERT INTO page_links (version, ordinal, kind, target, dest, in_app, lookup, lookup_alt) VALUES `, 8, newLinks); err != nil {
		return err
	}
	for _, f := range files {
		if _, err := tx.exec(`INSERT INTO file_blobs (hash, size, width, height) VALUES (?, ?, ?, ?) ON CONFLICT (hash) DO NOTHING`,
			f.Blob, f.Size, intOrNil(f.Width), intOrNil(f.Height)); err != nil {
			return err
		}
		if _, err := tx.exec(`INSERT INTO file_bytes (hash, bytes) VALUES (?, ?) ON CONFLICT (hash) DO NOTHING`, f.Blob, f.Bytes); err != nil {
			return err
		}
		if _, err := tx.exec(`INSERT INTO import_stage_rows (stage_id, kind, hash) VALUES (?, 'blob', ?) ON CONFLICT DO NOTHING`, stage, f.Blob); err != nil {
			return err
		}
	}
	return nil
}

// insertVersionsReturning inserts page_versions rows (100 a statement),
// skipping those stored already, and marks in fresh the hashes it stored.
func insertVersionsReturning(tx *Tx, rows [][]any, fresh map[string]bool) error {
	const per, cols = 100, 9
	one := "(" + placeholders(cols) + ")"
	for start := 0; start < len(rows); start += per {
		chunk := rows[start:min(start+per, len(rows))]
		args := make([]any, 0, len(chunk)*cols)
		list := ""
		for i, r := range chunk {
			args = append(args, r...)
			if i > 0 {
				list += ", "
			}
			list += one
		}
		res, err := tx.QueryContext(tx.ctx, `INSERT INTO page_versions (hash, page_id, type, title, slug, markdown, meta, created_at, updated_at) VALUES `+
			list+` ON CONFLICT (hash) DO NOTHING RETURNING hash`, args...)
		if err := eachRow(res, err, func(sc interface{ Scan(...any) error }) error {
			var h string
			err := sc.Scan(&h)
			fresh[h] = true
			return err
		}); err != nil {
			return err
		}
	}
	return nil
}

// stillBase checks, in the publishing write, that the batches were
// written against what is still the base, and that the stage is still there.
func stillBase(tx *Tx, c RevisionChange, base, stage string) error {
	var n int
	if err := tx.QueryRowContext(tx.ctx, `SELECT COUNT(*) FROM import_stages WHERE id = ? AND lease_until >= 0`, stage).Scan(&n); err != nil {
		return err
	}
	if n == 0 {
		return errBaseMoved
	}
	var now string
	switch {
	case c.ChangeRequest != "":
		var status string
		if err := tx.QueryRowContext(tx.ctx, `SELECT revision_id, status FROM change_requests WHERE id = ? AND space_id = ?`, c.ChangeRequest, c.SpaceID).Scan(&now, &status); err != nil {
			return notFound(err)
		}
		if status == "merged" || status == "archived" {
			return ErrChangeRequestClosed
		}
	case c.Base != "":
		return nil // the caller named it: the same base whatever happened meanwhile
	default:
		head, err := spaceHead(tx.ctx, tx, c.SpaceID)
		if err != nil {
			return err
		}
		now = head.Revision
	}
	if now != base {
		return errBaseMoved
	}
	return nil
}

// DropExpiredImportStages removes the stages whose lease ended before now
// (runs that died between their batches) with what only they stored, and
// returns how many it removed.
func (db *DB) DropExpiredImportStages(ctx context.Context, now int64) (int, error) {
	ids, err := queryIDsCtx(ctx, db.r(), `SELECT id FROM import_stages WHERE lease_until < ? OR published = 1 ORDER BY lease_until LIMIT 100`, now)
	if err != nil {
		return 0, err
	}
	for _, id := range ids {
		if err := db.dropStage(ctx, id); err != nil {
			return 0, err
		}
	}
	return len(ids), nil
}

// dropStage deletes a stage and the versions and blobs it stored that no
// revision, nor another stage, refers to, a bounded number per write.
func (db *DB) dropStage(ctx context.Context, stage string) error {
	const per = 500
	for {
		var more bool
		err := db.Write(ctx, func(tx *Tx) error {
			var published int
			if err := tx.QueryRowContext(tx.ctx, `SELECT published FROM import_stages WHERE id = ?`, stage).Scan(&published); err != nil {
				if errors.Is(notFound(err), ErrNotFound) {
					return nil // dropped already
				}
				return err
			}
			if published == 0 {
				// Being dropped: its run, if alive, can neither renew
				// it nor publish (lease_until < 0), so no revision ever
				// refers to what the chunks below delete.
				if _, err := tx.exec(`UPDATE import_stages SET lease_until = -1 WHERE id = ?`, stage); err != nil {
					return err
				}
			}
			res, err := tx.exec(`DELETE FROM import_stage_pages WHERE stage_id = ? AND page_id IN
 (SELECT page_id FROM import_stage_pages WHERE stage_id = ? ORDER BY page_id LIMIT `+fmt.Sprint(per)+`)`, stage, stage)
			if err != nil {
				return err
			}
			if n, _ := res.RowsAffected(); n > 0 {
				more = true
				return nil
			}
			rows, err := tx.QueryContext(tx.ctx, `SELECT kind, hash FROM import_stage_rows WHERE stage_id = ? ORDER BY kind, hash LIMIT `+fmt.Sprint(per), stage)
			var versions, blobs []string
			if err := eachRow(rows, err, func(sc interface{ Scan(...any) error }) error {
				var kind, h string
				err := sc.Scan(&kind, &h)
				if kind == "version" {
					versions = append(versions, h)
				} else {
					blobs = append(blobs, h)
				}
				return err
			}); err != nil {
				return err
			}
			more = len(versions)+len(blobs) == per
			if published == 1 {
				versions, blobs = nil, nil // the revision refers to them
			}
			orphans, err := unreferenced(tx, stage, "version", versions,
				`EXISTS (SELECT 1 FROM main_pages m WHERE m.version = s.hash) OR EXISTS (SELECT 1 FROM overlay_pages o WHERE o.version = s.hash)`)
			if err != nil {
				return err
			}
			if err := deleteIn(tx, `DELETE FROM page_links WHERE version IN `, orphans); err != nil {
				return err
			}
			if err := deleteIn(tx, `DELETE FROM page_versions WHERE hash IN `, orphans); err != nil {
				return err
			}
			gone, err := unreferenced(tx, stage, "blob", blobs, `EXISTS (SELECT 1 FROM revision_files f WHERE f.blob = s.hash)`)
			if err != nil {
				return err
			}
			if err := deleteIn(tx, `DELETE FROM file_bytes WHERE hash IN `, gone); err != nil {
				return err
			}
			if err := deleteIn(tx, `DELETE FROM file_blobs WHERE hash IN `, gone); err != nil {
				return err
			}
			listed := map[string][]string{"version": versions, "blob": blobs}
			if published == 1 {
				listed = nil
				if _, err := tx.exec(`DELETE FROM import_stage_rows WHERE stage_id = ? AND hash IN
 (SELECT hash FROM import_stage_rows WHERE stage_id = ? ORDER BY kind, hash LIMIT `+fmt.Sprint(per)+`)`, stage, stage); err != nil {
					return err
				}
			}
			for _, kh := range listed {
				if err := inChunks(kh, func(chunk []string) error {
					_, err := tx.exec(`DELETE FROM import_stage_rows WHERE stage_id = ? AND hash IN (`+placeholders(len(chunk))+`)`, append([]any{stage}, anySlice(chunk)...)...)
					return err
				}); err != nil {
					return err
				}
			}
			if !more {
				_, err := tx.exec(`DELETE FROM import_stages WHERE id = ?`, stage)
				return err
			}
			return nil
		})
		if err != nil || !more {
			return err
		}
	}
}

// unreferenced keeps, of the stage's hashes of kind, those that no row
// found by used (a condition on s.hash) refers to and no other stage
// lists: one statement per chunk of hashes.
func unreferenced(tx *Tx, stage, kind string, hashes []string, used string) ([]string, error) {
	var out []string
	err := inChunks(hashes, func(chunk []string) error {
		ids, err := queryIDs(tx, `SELECT s.hash FROM import_stage_rows s WHERE s.stage_id = ? AND s.kind = ? AND s.hash IN (`+placeholders(len(chunk))+`)
 AND NOT (`+used+`) AND NOT EXISTS (SELECT 1 FROM import_stage_rows x WHERE x.hash = s.hash AND x.stage_id <> s.stage_id)`,
			append([]any{stage, kind}, anySlice(chunk)...)...)
		out = append(out, ids...)
		return err
	})
	return out, err
}
