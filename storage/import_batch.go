package storage

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
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
//     to readers, listed in a stage (import_stages, migration 0030f). On
//     the main line the batches also write the pages new to the space
//     ahead (migration 0031b): their main_pages rows at a seq far past the
//     space's last (ahead_seq; readers read rows up to their revision's
//     seq) and, for a batch or more of changed pages, the search-index
//     entries of every page the import adds or changes in doc numbers
//     reserved past the space's next_doc (readers read the chunks below
//     it), reading the live docs of the base's changed pages. The rows of
//     the base's pages the import changes are closed and written ahead by
//     the closing batches (closeAhead);
//  3. one last write publishes the revision (its seq ahead_seq, files, the
//     index's stats row, which makes the docs written ahead visible and
//     retires the changed pages' old docs; activation or the change
//     request's head, the recorded change: audit, webhooks, live) if the
//     base is still the space's content (else the run starts over on the
//     new base), and drops the stage; the run then sweeps the retired docs out of the
//     index, a batch of them per write. What the publishing write does
//     follows neither the pages the import adds nor those it changes.
//
// Other writes run between the batches. A run that fails or is cancelled
// drops its stage at once (dropAhead first takes out what it wrote
// ahead); one that dies leaves it to the sweep
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

// stagedType is the type of a revision an import into a change request
// writes ahead (its overlay rows in the batches): no list, lookup or
// duplicate reads it until the publishing write gives it its type.
const stagedType = "staged"

// errImportClosing: a batched import has closed rows of the space's main
// line ahead (closeAhead) and is not yet published or dropped; a write of
// that main line waits for it (awaitImportClosing) and runs again.
var errImportClosing = errors.New("storage: a batched import of the space is publishing")

// ImportBatchPages is the number of page versions a batched write stores
// per transaction (0: batched writes are written in one transaction).
func (db *DB) ImportBatchPages() int { return db.importBatch }

// createStaged is CreateRevision for a Batched change.
func (db *DB) createStaged(ctx context.Context, id string, c RevisionChange) error {
	for range stagedAttempts {
		err := db.stageAndPublish(ctx, id, c)
		if errors.Is(err, errImportClosing) {
			// Another import of the space is publishing: after it, this
			// one's base has moved.
			if err := db.awaitImportClosing(ctx, c.SpaceID); err != nil {
				return err
			}
			continue
		}
		if !errors.Is(err, errBaseMoved) {
			return err
		}
	}
	c.inOneWrite = true
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
	// ahead are the pages the batches index (on the main line, with an
	// analyzer): every page the import adds or changes that the index
	// holds, in page id order, the order an import's changeIndex gives
	// them their doc numbers. Their docs are [docFrom,
	// docFrom+len(ahead)), reserved by the first batch in chunks past the
	// space's next_doc; aheadLen is their total length. leaving are the
	// other changed pages the base had (gone, or no longer indexed). The
	// batches read the live docs of both that the index has (retire, their
	// total length retireLen), which the publishing write retires.
	// indexAhead: the batches index (else the publishing write's
	// reindexSpace does, for fewer pages than a batch).
	ahead      []*TreePage
	aheadIDs   map[string]bool
	docFrom    int64
	aheadLen   int64
	leaving    []string
	retire     []int64
	retireLen  int64
	indexAhead bool
	// aheadSeq is the seq the new pages' rows are written ahead at, in
	// main_pages (0: they are staged and copied by the publishing write).
	aheadSeq int64
	// overlay (a change request's import: overlayAhead) are the new
	// revision's overlay_pages rows, against main@overlayAt (0: none, a
	// full snapshot): the batches write them under a revision of type
	// stagedType.
	overlay      [][]any
	overlayAt    int64
	overlayAhead bool
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
		if c.Analyzer != nil {
			st.pickAhead(max(db.importBatch, 1))
		}
	}
	if !c.Activate && c.ChangeRequest != "" {
		if err := st.prepareOverlay(ctx, q, c.SpaceID, c.ID); err != nil {
			return nil, err
		}
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

// prepareOverlay computes the overlay rows of the new revision (revID, on
// a change request), as writeOverlay does: against the main-line rows its
// base is on, or for a base that is not, the space's last main-line
// revision (rows closed later stay: any main-line revision gives the same
// pages), or with no main line a full snapshot.
func (st *stagedTree) prepareOverlay(ctx context.Context, q queryer, spaceID, revID string) error {
	rr, err := revisionRowsOf(ctx, q, st.base)
	if err != nil {
		return err
	}
	at := rr.Seq
	if at == 0 {
		if err := q.QueryRowContext(ctx, `SELECT COALESCE(MAX(seq), 0) FROM revisions WHERE space_id = ? AND seq IS NOT NULL`, spaceID).Scan(&at); err != nil {
			return err
		}
	}
	against := map[string]pageRow{}
	if at > 0 {
		srcs, err := sourcesOf(ctx, q, spaceID)
		if err != nil {
			return err
		}
		if against, err = rowsAt(ctx, q, revisionRows{Space: spaceID, Seq: at, Sources: srcs}); err != nil {
			return err
		}
	}
	st.overlay, st.overlayAt, st.overlayAhead = overlayRows(revID, treeRows(st.tree), against), at, true
	return nil
}

// pickAhead lists the pages the batches index: the changed pages (new or
// not) that the index holds (documents not marked noIndex), as
// reindexSpace picks them, and the changed pages the base had that leave
// the index. When they are fewer than a batch (per) the publishing
// write's reindexSpace indexes them instead: the doc numbers a stage
// reserves start past a margin and a chunk boundary, a gap worth it for
// many pages, not for a few.
func (st *stagedTree) pickAhead(per int) {
	st.aheadIDs = map[string]bool{}
	var ahead []*TreePage
	st.tree.Walk(func(p, _ *TreePage) bool {
		if _, ok := st.changed[p.ID]; ok && p.Type == "document" && !p.Meta.NoIndex {
			ahead = append(ahead, p)
			st.aheadIDs[p.ID] = true
		}
		return true
	})
	var leaving []string
	for id, old := range st.changed {
		if old != "" && !st.aheadIDs[id] {
			leaving = append(leaving, id)
		}
	}
	if len(ahead)+len(leaving) < per {
		st.aheadIDs = map[string]bool{}
		return
	}
	sort.Slice(ahead, func(i, j int) bool { return ahead[i].ID < ahead[j].ID })
	sort.Strings(leaving)
	st.ahead, st.leaving, st.indexAhead = ahead, leaving, true
}

// readRetiring reads, in a batch, the live docs of the base's pages of
// ahead and leaving that the index holds, and their total length: the
// docs the publishing write retires. They stay the pages' live docs until
// then: only a write of the space's main line (which moves the base, and
// the run starts over) changes them.
func (st *stagedTree) readRetiring(tx *Tx, spaceID string, ahead []*TreePage, leaving []string) (docs []int64, length int64, err error) {
	ids := append([]string(nil), leaving...)
	for _, p := range ahead {
		if st.changed[p.ID] != "" {
			ids = append(ids, p.ID)
		}
	}
	if len(ids) == 0 {
		return nil, 0, nil
	}
	stats, err := readSpaceStats(tx.ctx, tx, spaceID)
	if err != nil {
		return nil, 0, err
	}
	old, err := readIndexedPages(tx.ctx, tx, spaceID, stats, ids)
	if err != nil {
		return nil, 0, err
	}
	for _, id := range ids {
		if p, ok := old[id]; ok {
			_, n := pageTerms(p.sections)
			docs = append(docs, p.doc)
			length += int64(n)
		}
	}
	return docs, length, nil
}

// aheadSeqGap is how far past the space's last seq the rows written ahead
// start: readers of any revision read rows from_seq <= its seq, and the
// space's own writes take the next seq one at a time (each of which moves
// the base, so that the run starts over long before).
const aheadSeqGap = 1 << 32

// reserveSeq picks the seq the stage writes its new pages' rows at, in
// main_pages, or 0 (rows staged) when another stage of the space writes
// rows ahead already (its rows would otherwise become visible with a
// revision of a higher seq).
func reserveSeq(tx *Tx, stage, spaceID string) (int64, error) {
	var others int
	if err := tx.QueryRowContext(tx.ctx, `SELECT COUNT(*) FROM import_stages WHERE space_id = ? AND ahead_seq > 0 AND published = 0 AND id <> ?`, spaceID, stage).Scan(&others); err != nil || others > 0 {
		return 0, err
	}
	last, err := lastSeq(tx, spaceID)
	if err != nil {
		return 0, err
	}
	seq := last + aheadSeqGap
	_, err = tx.exec(`UPDATE import_stages SET ahead_seq = ? WHERE id = ?`, seq, stage)
	return seq, err
}

// stagedDocMargin is how many doc numbers the reserved chunks keep clear
// past the space's next_doc (besides the pages the publishing write may
// index there), so that other writes indexing new pages meanwhile do not
// reach them (if they do, the space moved: the run starts over).
const stagedDocMargin = 1024

// reserveDocs gives the stage its doc numbers: n of them from the first
// chunk past the space's next_doc, past the margin and extra (the doc
// numbers the publishing write may give other pages), and past the
// other stages' of the space.
func reserveDocs(tx *Tx, stage, spaceID string, n, extra int) (int64, error) {
	stats, err := readSpaceStats(tx.ctx, tx, spaceID)
	if err != nil {
		return 0, err
	}
	var reserved int64
	if err := tx.QueryRowContext(tx.ctx, `SELECT COALESCE(MAX(doc_to), 0) FROM import_stages WHERE space_id = ?`, spaceID).Scan(&reserved); err != nil {
		return 0, err
	}
	from := max(stats.next, reserved) + stagedDocMargin + int64(extra)
	from = (from + chunkDocs - 1) &^ (chunkDocs - 1)
	_, err = tx.exec(`UPDATE import_stages SET doc_from = ?, doc_to = ? WHERE id = ?`, from, from+int64(n), stage)
	return from, err
}

// writeAheadIndex indexes pages (docs from doc on) in chunks readers do not
// read yet: their search_pages rows and their posting and chunk rows,
// without the space's stats. It returns their total length.
func writeAheadIndex(tx *Tx, spaceID string, an Analyzer, pages []*TreePage, doc int64) (int64, error) {
	if len(pages) == 0 {
		return 0, nil
	}
	c := newIndexChange(spaceID)
	puts := make([][]any, 0, len(pages))
	for i, p := range pages {
		sections := an.Sections(p)
		c.add(doc+int64(i), sections)
		b, err := json.Marshal(sections)
		if err != nil {
			return 0, err
		}
		puts = append(puts, []any{spaceID, p.ID, doc + int64(i), b})
	}
	if err := insertBatch(tx, `INSERT INTO search_pages (space_id, page_id, doc, sections) VALUES `, 4, puts); err != nil {
		return 0, err
	}
	return c.length, c.writeRows(tx)
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
	c.ID = id
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
	batches = max(batches, (len(st.files)+per-1)/per, (len(st.rows)+per-1)/per, (len(st.ahead)+per-1)/per, (len(st.leaving)+per-1)/per, (len(st.overlay)+per-1)/per)
	if batches == 0 {
		batches = 1 // the stage row itself
	}
	if st.an.Analyzer != nil {
		st.an.sections = make(map[*TreePage][]SearchSection, len(st.pages))
	}
	for b := range batches {
		pages := st.pages[min(b*per, len(st.pages)):min((b+1)*per, len(st.pages))]
		files := st.files[min(b*per, len(st.files)):min((b+1)*per, len(st.files))]
		batchRows := st.rows[min(b*per, len(st.rows)):min((b+1)*per, len(st.rows))]
		ahead := st.ahead[min(b*per, len(st.ahead)):min((b+1)*per, len(st.ahead))]
		leaving := st.leaving[min(b*per, len(st.leaving)):min((b+1)*per, len(st.leaving))]
		overlay := st.overlay[min(b*per, len(st.overlay)):min((b+1)*per, len(st.overlay))]
		versions, links := st.versionRows(pages)
		began := time.Now()
		var length, retireLen int64
		var retire []int64
		if err := db.Write(ctx, func(tx *Tx) error {
			if err := writeStageBatch(tx, stage, c.SpaceID, b == 0, versions, links, files); err != nil {
				return err
			}
			if b == 0 && len(st.ahead) > 0 {
				from, err := reserveDocs(tx, stage, c.SpaceID, len(st.ahead), 0)
				if err != nil {
					return err
				}
				st.docFrom = from
			}
			if b == 0 && st.overlayAhead {
				if err := reserveRevision(tx, stage, id, c.SpaceID, st); err != nil {
					return err
				}
			}
			if err := insertBatch(tx, `INSERT INTO overlay_pages (revision_id, page_id, version, parent_id, position, path) VALUES `, 6, overlay); err != nil {
				return err
			}
			if b == 0 && st.onMain {
				seq, err := reserveSeq(tx, stage, c.SpaceID)
				if err != nil {
					return err
				}
				st.aheadSeq = seq
			}
			var err error
			if retire, retireLen, err = st.readRetiring(tx, c.SpaceID, ahead, leaving); err != nil {
				return err
			}
			if length, err = writeAheadIndex(tx, c.SpaceID, c.Analyzer, ahead, st.docFrom+int64(b*per)); err != nil {
				return err
			}
			// The rows of pages new to the space go ahead into main_pages
			// (nothing there can clash with them: no row of the page is
			// alive); those of the base's pages wait in the stage.
			var staged, early [][]any
			for _, r := range batchRows {
				if _, had := st.loaded[r.ID]; had && st.aheadSeq > 0 {
					continue // the closing batches' (closeAhead)
				}
				if _, had := st.loaded[r.ID]; had || st.aheadSeq == 0 {
					staged = append(staged, []any{stage, r.ID, r.Version, r.ParentID, r.Position, r.Path})
				} else {
					early = append(early, []any{c.SpaceID, r.ID, st.aheadSeq, aliveSeq, r.Version, r.ParentID, r.Position, r.Path})
				}
			}
			if err := insertBatch(tx, `INSERT INTO main_pages (space_id, page_id, from_seq, to_seq, version, parent_id, position, path) VALUES `, 8, early); err != nil {
				return err
			}
			return insertBatch(tx, `INSERT INTO import_stage_pages (stage_id, page_id, version, parent_id, position, path) VALUES `, 6, staged)
		}); err != nil {
			return err
		}
		st.aheadLen += length
		st.retire, st.retireLen = append(st.retire, retire...), st.retireLen+retireLen
		if db.importWrite != nil {
			db.importWrite(false, time.Since(began))
		}
		if db.afterImportBatch != nil {
			if err := db.afterImportBatch(b); err != nil {
				return err
			}
		}
	}
	if err := db.closeAhead(ctx, c, st, stage, batches); err != nil {
		return err
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
			Known: st.loaded, KnownRev: st.base, placed: true, stored: stored, renumber: true}
		switch {
		case st.onMain:
			if err := publishOnMain(tx, r, st, stage); err != nil {
				return err
			}
		case st.overlayAhead:
			if err := publishOverlay(tx, r, st); err != nil {
				return err
			}
		default:
			if err := writeRevision(tx, r, st.tree); err != nil {
				return err
			}
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
		_, err := tx.exec(`UPDATE import_stages SET published = 1, closing = 0 WHERE id = ?`, stage)
		return err
	})
	if err != nil {
		return err
	}
	if db.importWrite != nil {
		db.importWrite(true, time.Since(began))
	}
	// The revision is out; a failure here leaves the lists (and the
	// retired docs) to the sweep.
	_ = db.dropStage(context.WithoutCancel(ctx), stage)
	if len(st.retire) > 0 {
		_ = db.sweepRetiredDocs(context.WithoutCancel(ctx), c.SpaceID, per)
	}
	return nil
}

// reserveRevision writes, in the first batch, the row of the revision an
// import into a change request writes the overlay rows of in its batches:
// of type stagedType (read by nothing) until the publishing write, named
// in the stage for a drop.
func reserveRevision(tx *Tx, stage, id, spaceID string, st *stagedTree) error {
	if err := insertRevision(tx, id, spaceID, []string{st.base}, stagedType, tx.Now); err != nil {
		return err
	}
	if st.overlayAt > 0 {
		if _, err := tx.exec(`UPDATE revisions SET base_seq = ? WHERE id = ?`, st.overlayAt, id); err != nil {
			return err
		}
	}
	_, err := tx.exec(`UPDATE import_stages SET revision_id = ? WHERE id = ?`, id, stage)
	return err
}

// publishOverlay is writeRevision for a change request's revision whose
// overlay rows the batches wrote: its type and time, its files and data.
// The rows stay as written: they are against main@overlayAt, which later
// writes of the main line do not change.
func publishOverlay(tx *Tx, r newRevision, st *stagedTree) error {
	res, err := tx.exec(`UPDATE revisions SET type = ?, created_at = ? WHERE id = ? AND type = '`+stagedType+`'`, r.Type, ms(tx.Now), r.ID)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n != 1 {
		return errBaseMoved // dropped under us
	}
	if err := writeVersionsExcept(tx, st.tree, r.Analyzer, r.stored); err != nil {
		return err
	}
	if err := writeFiles(tx, r.ID, r.SpaceID, st.tree); err != nil {
		return err
	}
	return writeRevisionData(tx, r.ID, st.tree)
}

// staged are the rows the batches put in import_stage_pages, for the
// publishing write to copy: all of them when nothing is written ahead,
// else none (new pages' rows go ahead in the batches, the changed pages'
// in closeAhead).
func (st *stagedTree) staged() []pageRow {
	if st.aheadSeq > 0 {
		return nil
	}
	return st.rows
}

// closeAhead writes ahead, batch by batch, what the publishing write would
// otherwise write in proportion to the base's pages the import changes:
// their old rows closed at aheadSeq (to_seq; readers of any revision up to
// the space's last seq still read them, in the closed range) and their new
// rows at aheadSeq (readers read rows from_seq <= their seq), after taking
// in, for a sharing duplicate, the rows it reads of them from its sources
// (copy on first write; the same rows as before). Its first write checks
// the base and marks the stage closing: from then until the stage is
// published or dropped (dropAhead opens the rows again), the space's
// main-line writes, which read alive rows as to_seq = aliveSeq, wait
// (mainLineSeq, awaitImportClosing); other spaces' writes go on between
// the batches. first is the number the first of them has for
// afterImportBatch.
func (db *DB) closeAhead(ctx context.Context, c RevisionChange, st *stagedTree, stage string, first int) error {
	if st.aheadSeq == 0 || len(st.closed) == 0 {
		return nil
	}
	per := max(db.importBatch, 1)
	next := make(map[string]pageRow, len(st.closed))
	for _, r := range st.rows {
		if _, had := st.loaded[r.ID]; had {
			next[r.ID] = r
		}
	}
	for start := 0; start < len(st.closed); start += per {
		chunk := st.closed[start:min(start+per, len(st.closed))]
		began := time.Now()
		if err := db.Write(ctx, func(tx *Tx) error {
			if err := renewStage(tx, stage); err != nil {
				return err
			}
			if start == 0 {
				if err := stillBase(tx, c, st.base, stage); err != nil {
					return err
				}
				// Also a write of the main line since the last batch.
				if _, err := mainLineSeq(tx, c.SpaceID, stage); err != nil {
					return err
				}
				if _, err := tx.exec(`UPDATE import_stages SET closing = 1 WHERE id = ?`, stage); err != nil {
					return err
				}
			}
			if err := ownPages(tx, c.SpaceID, chunk); err != nil {
				return err
			}
			if _, err := tx.exec(`UPDATE main_pages SET to_seq = ? WHERE space_id = ? AND +to_seq = ? AND +from_seq < ? AND page_id IN (`+placeholders(len(chunk))+`)`,
				append([]any{st.aheadSeq, c.SpaceID, aliveSeq, st.aheadSeq}, anySlice(chunk)...)...); err != nil {
				return err
			}
			var rows [][]any
			for _, id := range chunk {
				if r, ok := next[id]; ok {
					rows = append(rows, []any{c.SpaceID, r.ID, st.aheadSeq, aliveSeq, r.Version, r.ParentID, r.Position, r.Path})
				}
			}
			return insertBatch(tx, `INSERT INTO main_pages (space_id, page_id, from_seq, to_seq, version, parent_id, position, path) VALUES `, 8, rows)
		}); err != nil {
			return err
		}
		if db.importWrite != nil {
			db.importWrite(false, time.Since(began))
		}
		if db.afterImportBatch != nil {
			if err := db.afterImportBatch(first + start/per); err != nil {
				return err
			}
		}
	}
	return nil
}

// renewStage renews the stage's lease (errBaseMoved when it is being
// dropped or gone: the run starts over).
func renewStage(tx *Tx, stage string) error {
	res, err := tx.exec(`UPDATE import_stages SET lease_until = ? WHERE id = ? AND lease_until >= 0`, tx.db.leaseUntil(tx.Now), stage)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return errBaseMoved
	}
	return nil
}

// awaitImportClosing waits, outside the writer, until no batched import
// of the space is between its first closing write and its publication (a
// few batches): a write of the space's main line refused with
// errImportClosing then runs again. A stage whose run died there (its
// lease over) is dropped here, which opens its rows again.
func (db *DB) awaitImportClosing(ctx context.Context, spaceID string) error {
	wait := time.Millisecond
	for {
		var stage string
		var lease int64
		err := db.r().QueryRowContext(ctx, `SELECT id, lease_until FROM import_stages WHERE space_id = ? AND closing = 1 ORDER BY id LIMIT 1`, spaceID).Scan(&stage, &lease)
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		}
		if err != nil {
			return err
		}
		if lease < ms(db.Now()) {
			if err := db.dropStage(ctx, stage); err != nil {
				return err
			}
			continue
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(wait):
		}
		wait = min(2*wait, 50*time.Millisecond)
	}
}

// retryClosing runs write, a write of spaceID's main line, again for as
// long as it is refused because an import of the space is publishing.
func (db *DB) retryClosing(ctx context.Context, spaceID string, write func() error) error {
	for {
		err := write()
		if !errors.Is(err, errImportClosing) {
			return err
		}
		if err := db.awaitImportClosing(ctx, spaceID); err != nil {
			return err
		}
	}
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
	seq, err := mainLineSeq(tx, r.SpaceID, stage)
	if err != nil {
		return err
	}
	seq++
	if st.aheadSeq > 0 {
		// The revision takes the seq its new pages' rows were written at:
		// they become its rows (and readers' once it is active).
		if seq > st.aheadSeq {
			return errBaseMoved
		}
		seq = st.aheadSeq
	}
	if _, err := tx.exec(`UPDATE revisions SET seq = ? WHERE id = ?`, seq, r.ID); err != nil {
		return err
	}
	closed := st.closed
	if st.aheadSeq > 0 {
		closed = nil // closed ahead (closeAhead)
	}
	if err := ownPages(tx, r.SpaceID, changedIDs(closed, st.staged())); err != nil {
		return err // a sharing duplicate: copy on first write (space_sources.go)
	}
	if err := inChunks(closed, func(chunk []string) error {
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
	if err := publishIndex(tx, r, st); err != nil {
		return err
	}
	return setActiveRevision(tx, r.SpaceID, r.ID)
}

// publishIndex brings the space's index to the new revision. When the
// batches indexed the changed pages ahead (indexAhead) it is the space's
// stats row, one row whatever the number of pages: the docs written ahead
// become visible (their count, length, and a next_doc past them, with new
// stamps for their groups) and the changed pages' old docs are retired in
// the same update (their bits in search_spaces.retired: readers skip them
// from then on, the sweep removes them later, sweepRetiredDocs). Else the
// changed pages go through reindexSpace, numbered the same way.
func publishIndex(tx *Tx, r newRevision, st *stagedTree) error {
	if !st.indexAhead {
		return reindexSpace(tx, r.SpaceID, st.changed, st.tree, r.Analyzer, true)
	}
	if len(st.ahead) == 0 && len(st.retire) == 0 {
		return nil // pages that leave, none of them indexed
	}
	stats, err := readSpaceStats(tx.ctx, tx, r.SpaceID)
	if err != nil {
		return err
	}
	if len(st.ahead) > 0 && stats.next > st.docFrom {
		// The reserved chunks must still be past what readers read (the
		// space did not move, so nothing else indexed pages meanwhile).
		return errBaseMoved
	}
	if len(st.retire) > 0 && stats.retired == nil {
		stats.retired = retiredDocs{}
	}
	for _, d := range st.retire {
		if d >= stats.next || retiredAt(stats.retired[d>>chunkBits], uint32(d&(chunkDocs-1))) {
			return errBaseMoved // not a live doc any more
		}
		stats.retired.retire(d)
	}
	stats.docs += int64(len(st.ahead) - len(st.retire))
	stats.length += st.aheadLen - st.retireLen
	if len(st.ahead) > 0 {
		to := st.docFrom + int64(len(st.ahead))
		touched := map[int64]*rowEdit{}
		for g := st.docFrom >> groupBits; g <= (to-1)>>groupBits; g++ {
			d := g << groupBits
			e := touched[d>>chunkBits]
			if e == nil {
				e = &rowEdit{put: map[uint32]posting{}}
				touched[d>>chunkBits] = e
			}
			e.put[uint32(d&(chunkDocs-1))] = posting{}
		}
		stats.next = max(stats.next, to)
		stats.stamps = restamp(stats.stamps, (stats.next-1)>>groupBits, touched)
	}
	return writeSpaceStats(tx, r.SpaceID, stats)
}

// retiredSweepDocs is how many retired docs one sweep write removes.
const retiredSweepDocs = 500

// sweepRetiredDocs removes spaceID's retired docs for good, per of them a
// write (sweepRetired), until none is left: after an import's publication
// (its old docs), and from the periodic sweep (SweepRetiredDocs) for a run
// that died before doing it. Never in a reader's request.
func (db *DB) sweepRetiredDocs(ctx context.Context, spaceID string, per int) error {
	for {
		left := 0
		began := time.Now()
		// No count a cache keeps changes (the stats' docs and length left
		// with the retirement; the index rows' cache goes by stamps).
		if err := db.writeTx(ctx, false, func(tx *Tx) error {
			var err error
			left, err = sweepRetired(tx, spaceID, per)
			return err
		}); err != nil {
			return err
		}
		if db.importWrite != nil {
			db.importWrite(false, time.Since(began)) // a bounded write, like a batch
		}
		if left == 0 {
			return nil
		}
	}
}

// SweepRetiredDocs sweeps the retired docs of up to limit spaces that
// hold some (an import that died between its publication and its own
// sweep), a bounded write per retiredSweepDocs docs, and returns how many
// spaces it swept. Run by the periodic import-stage sweep.
func (db *DB) SweepRetiredDocs(ctx context.Context, limit int) (int, error) {
	spaces, err := queryIDsCtx(ctx, db.r(), `SELECT space_id FROM search_spaces WHERE retired IS NOT NULL ORDER BY space_id LIMIT ?`, limit)
	if err != nil {
		return 0, err
	}
	for _, sp := range spaces {
		if err := db.sweepRetiredDocs(ctx, sp, retiredSweepDocs); err != nil {
			return 0, err
		}
	}
	return len(spaces), nil
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
		if !p.Meta.NoIndex && !st.aheadIDs[p.ID] { // the ahead pages: their batch's
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
	if err := db.dropAhead(ctx, stage); err != nil {
		return err
	}
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

// dropAhead takes what an unpublished stage wrote ahead out of the space,
// a bounded number of rows per write: its main_pages rows (ahead_seq),
// then its docs out of the space's index: their search_pages rows, then the posting and chunk rows of their chunks (in
// (chunk, term) order; a row keeps the docs of others, if other writes
// reached those chunks meanwhile, and goes when only the stage's were
// there). Its first write marks the stage dropped, so its run can no
// longer add to them.
func (db *DB) dropAhead(ctx context.Context, stage string) error {
	const per = 500
	var (
		space, term, rev string
		from, to, ahead  int64
		chunk            = int64(-1)
		step             = 4 // overlay rows ahead, -1: main_pages rows ahead, 3: rows closed ahead, then 0: search_pages, 1: postings, 2: chunk rows
	)
	for {
		done := false
		err := db.Write(ctx, func(tx *Tx) error {
			var published int
			if err := tx.QueryRowContext(tx.ctx, `SELECT space_id, doc_from, doc_to, ahead_seq, revision_id, published FROM import_stages WHERE id = ?`, stage).Scan(&space, &from, &to, &ahead, &rev, &published); err != nil {
				if errors.Is(notFound(err), ErrNotFound) {
					done = true
					return nil
				}
				return err
			}
			if published == 1 || (to <= from && ahead == 0 && rev == "") {
				done = true
				return nil
			}
			if _, err := tx.exec(`UPDATE import_stages SET lease_until = -1 WHERE id = ?`, stage); err != nil {
				return err
			}
			first, last := from>>chunkBits, (to-1)>>chunkBits
			inRange := func(ch int64, off uint32) bool {
				d := ch<<chunkBits | int64(off)
				return d >= from && d < to
			}
			switch step {
			case 4:
				if rev == "" {
					step = -1
					return nil
				}
				res, err := tx.exec(`DELETE FROM overlay_pages WHERE revision_id = ? AND page_id IN
 (SELECT page_id FROM overlay_pages WHERE revision_id = ? ORDER BY page_id LIMIT `+fmt.Sprint(per)+`)`, rev, rev)
				if err != nil {
					return err
				}
				if n, _ := res.RowsAffected(); n > 0 {
					return nil
				}
				if _, err := tx.exec(`DELETE FROM revisions WHERE id = ? AND type = '`+stagedType+`'`, rev); err != nil {
					return err
				}
				step = -1
				_, err = tx.exec(`UPDATE import_stages SET revision_id = '' WHERE id = ?`, stage)
				return err
			case -1:
				res, err := tx.exec(`DELETE FROM main_pages WHERE space_id = ? AND from_seq = ? AND page_id IN
 (SELECT page_id FROM main_pages WHERE space_id = ? AND from_seq = ? ORDER BY page_id LIMIT `+fmt.Sprint(per)+`)`, space, ahead, space, ahead)
				if err != nil {
					return err
				}
				if n, _ := res.RowsAffected(); n == 0 || ahead == 0 {
					step = 3
				}
				return nil
			case 3:
				// The base's rows closeAhead closed ahead: alive again.
				res, err := tx.exec(`UPDATE main_pages SET to_seq = ? WHERE space_id = ? AND to_seq = ? AND page_id IN
 (SELECT page_id FROM main_pages WHERE space_id = ? AND to_seq = ? ORDER BY page_id LIMIT `+fmt.Sprint(per)+`)`, aliveSeq, space, ahead, space, ahead)
				if err != nil {
					return err
				}
				if n, _ := res.RowsAffected(); n == 0 || ahead == 0 {
					step = 0
				}
				return nil
			case 0:
				if to <= from {
					step = 2
					return nil
				}
				// By doc: a changed page's live row (its old doc) stays.
				res, err := tx.exec(`DELETE FROM search_pages WHERE space_id = ? AND doc IN
 (SELECT doc FROM search_pages WHERE space_id = ? AND doc >= ? AND doc < ? ORDER BY doc LIMIT `+fmt.Sprint(per)+`)`, space, space, from, to)
				if err != nil {
					return err
				}
				if n, _ := res.RowsAffected(); n == 0 {
					step = 1
				}
				return nil
			case 1:
				type row struct {
					term  string
					chunk int64
					docs  []byte
				}
				var got []row
				rows, err := tx.QueryContext(tx.ctx, `SELECT term, chunk, docs FROM search_postings WHERE space_id = ? AND chunk >= ? AND chunk <= ?
 AND (chunk > ? OR (chunk = ? AND term > ?)) ORDER BY chunk, term LIMIT `+fmt.Sprint(per), space, first, last, chunk, chunk, term)
				if err := eachRow(rows, err, func(sc interface{ Scan(...any) error }) error {
					var r row
					err := sc.Scan(&r.term, &r.chunk, &r.docs)
					got = append(got, r)
					return err
				}); err != nil {
					return err
				}
				if len(got) < per {
					step = 2
				}
				for _, r := range got {
					chunk, term = r.chunk, r.term
					docs, err := decodePostings(r.docs)
					if err != nil {
						return err
					}
					kept := docs[:0:0]
					for _, d := range docs {
						if !inRange(r.chunk, d.off) {
							kept = append(kept, d)
						}
					}
					switch {
					case len(kept) == len(docs):
					case len(kept) == 0:
						_, err = tx.exec(`DELETE FROM search_postings WHERE space_id = ? AND term = ? AND chunk = ?`, space, r.term, r.chunk)
					default:
						_, err = tx.exec(`UPDATE search_postings SET docs = ? WHERE space_id = ? AND term = ? AND chunk = ?`, encodePostings(kept), space, r.term, r.chunk)
					}
					if err != nil {
						return err
					}
				}
				return nil
			default:
				var chunks []int64
				for ch := first; to > from && ch <= last; ch++ {
					chunks = append(chunks, ch)
				}
				lens := map[string]map[int64][]byte{}
				if len(chunks) > 0 {
					var err error
					if lens, err = readLengths(tx.ctx, tx, map[string][]int64{space: chunks}); err != nil {
						return err
					}
				}
				for ch, b := range lens[space] {
					docs, err := decodeLengths(b)
					if err != nil {
						return err
					}
					kept := docs[:0:0]
					for _, d := range docs {
						if !inRange(ch, d.off) {
							kept = append(kept, d)
						}
					}
					if len(kept) == 0 {
						_, err = tx.exec(`DELETE FROM search_chunks WHERE space_id = ? AND chunk = ?`, space, ch)
					} else {
						_, err = tx.exec(`UPDATE search_chunks SET lens = ? WHERE space_id = ? AND chunk = ?`, encodeLengths(kept), space, ch)
					}
					if err != nil {
						return err
					}
				}
				done = true
				_, err := tx.exec(`UPDATE import_stages SET doc_to = doc_from, ahead_seq = 0, closing = 0 WHERE id = ?`, stage)
				return err
			}
		})
		if err != nil || done {
			return err
		}
	}
}
