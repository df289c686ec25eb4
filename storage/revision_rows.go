package storage

import (
	"context"
	"database/sql"
	"errors"
	"slices"
	"sort"
	"strconv"
	"strings"

	"docsapi/positions"
)

// Where a revision's pages are (migration 0020_revision_changes): the
// revisions a space activates form its main line, whose page rows are
// intervals of main-line sequence numbers in main_pages; every other
// revision is an overlay, its difference from a main-line revision in
// overlay_pages. Every reader finds a revision's page rows through
// revisionRows, and every writer writes them through writeMainLine or
// writeOverlay, so that a write costs rows in proportion to what changed.

// aliveSeq is main_pages.to_seq of a row the active revision still has.
const aliveSeq int64 = 9_000_000_000_000_000_000

// closedBound is aliveSeq as SQL text: the condition of the partial index
// main_pages_closed (a query must name it for the engine to use the index).
var closedBound = strconv.FormatInt(aliveSeq, 10)

// positionGap separates neighbours when a sibling list is numbered: a page
// inserted between two others takes a value between theirs.
const positionGap = 1 << 16

// maxPagePosition bounds sibling positions far below what the column holds.
const maxPagePosition = 1 << 52

// pageRow is a page's row in a revision: its version and its place.
type pageRow struct {
	ID, Version, ParentID, Path string
	Position                    int
}

// revisionRows says where a revision's page rows are: main-line rows at Seq
// (from_seq <= Seq < to_seq), overridden by the rows of Overlay when the
// revision is an overlay (Seq 0: an overlay without base, a full snapshot).
type revisionRows struct {
	Space   string
	Seq     int64
	Overlay string
	// Sources are the spaces whose main-line rows Space reads for the
	// pages it has none of (a sharing duplicate: space_sources).
	Sources []spaceSource
}

// revisionRowsOf reads where revID's page rows are (one primary-key read).
// An unknown revision has no rows.
func revisionRowsOf(ctx context.Context, q queryer, revID string) (revisionRows, error) {
	if pool, ok := q.(reader); ok {
		return keptRead(ctx, pool.db, keptKey("revision rows", revID), one, func() (revisionRows, error) { return readRevisionRows(ctx, q, revID) })
	}
	return readRevisionRows(ctx, q, revID)
}

func readRevisionRows(ctx context.Context, q queryer, revID string) (revisionRows, error) {
	var r revisionRows
	var seq, base sql.NullInt64
	// With the space's sources (a LEFT JOIN: one row for most spaces).
	rows, err := q.QueryContext(ctx, `SELECT r.space_id, r.seq, r.base_seq, s.source_id, s.cap_seq FROM revisions r
 LEFT JOIN space_sources s ON s.space_id = r.space_id WHERE r.id = ? ORDER BY s.position`, revID)
	n := 0
	err = eachRow(rows, err, func(sc interface{ Scan(...any) error }) error {
		var src sql.NullString
		var at sql.NullInt64
		n++
		if err := sc.Scan(&r.Space, &seq, &base, &src, &at); err != nil {
			return err
		}
		if src.Valid {
			r.Sources = append(r.Sources, spaceSource{src.String, at.Int64})
		}
		return nil
	})
	if err == nil && n == 0 {
		err = sql.ErrNoRows
	}
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return revisionRows{Overlay: revID}, nil
	case err != nil:
		return r, err
	case seq.Valid:
		r.Seq = seq.Int64
	case base.Valid:
		r.Seq, r.Overlay = base.Int64, revID
	default:
		r.Overlay = revID
	}
	return r, nil
}

// sql is a SELECT of the revision's page rows (page_id, version, parent_id,
// position, path) that satisfy cond (a condition on alias x, "" for all),
// with its arguments; cond may use columns of an enclosing query. On the
// main line it reads two index ranges of main_pages (the alive rows, and
// those closed after the revision: none for the active one); an overlay
// adds its own rows and hides the main-line rows it overrides.
func (r revisionRows) sql(cond string, args ...any) (string, []any) {
	parts := r.parts(cond, args...)
	if len(parts) == 0 {
		return `SELECT x.page_id, x.version, x.parent_id, x.position, x.path FROM overlay_pages x WHERE 1 = 0`, nil
	}
	var qs []string
	var out []any
	for _, p := range parts {
		qs = append(qs, p.sql)
		out = append(out, p.args...)
	}
	return strings.Join(qs, ` UNION ALL `), out
}

// rowsPart is one SELECT of sql's UNION ALL with its arguments.
type rowsPart struct {
	sql  string
	args []any
}

// parts are the SELECTs whose UNION ALL is sql(cond, args...): the
// overlay's rows, then main-line rows alive, then those closed after Seq.
func (r revisionRows) parts(cond string, args ...any) []rowsPart {
	and := ""
	if cond != "" {
		and = ` AND (` + cond + `)`
	}
	const cols = `SELECT x.page_id, x.version, x.parent_id, x.position, x.path`
	var parts []rowsPart
	if r.Overlay != "" {
		parts = append(parts, rowsPart{cols + ` FROM overlay_pages x WHERE x.revision_id = ? AND x.version <> ''` + and, append([]any{r.Overlay}, args...)})
	}
	if r.Seq > 0 {
		// Two ranges: the rows still alive (to_seq an equality, so the
		// alive index also serves a parent's children in order), and the
		// rows closed after Seq (none for the active revision). A probe by
		// page id reads the closed rows through the primary key (space,
		// page, from_seq): the unary + keeps SQLite (no statistics) from
		// walking every row the space closed after Seq for each probe (a
		// link's target check, a page of an older revision or overlay).
		// The closed range names the bound of the partial index
		// main_pages_closed (migration 0023) as a literal, so that a
		// parent's closed children are a seek on (space, parent). Except
		// in a probe by page id (where it extends the primary key's seek),
		// from_seq takes a unary + too: otherwise SQLite walks
		// main_pages_from (migration 0029i, for merges) over every row
		// opened by Seq, the whole space when the base is behind, for a
		// path probe or a parent's children.
		closed, opened := `x.to_seq > ? AND x.to_seq < `+closedBound, `+x.from_seq <= ?`
		if strings.HasPrefix(cond, "x.page_id ") {
			closed, opened = `+x.to_seq > ? AND +x.to_seq < `+closedBound, `x.from_seq <= ?`
		}
		for _, m := range []struct {
			where string
			args  []any
		}{
			{`x.to_seq = ? AND ` + opened, []any{aliveSeq, r.Seq}},
			{closed + ` AND ` + opened, []any{r.Seq, r.Seq}},
		} {
			q := cols + ` FROM main_pages x WHERE x.space_id = ? AND ` + m.where + and
			a := append(append([]any{r.Space}, m.args...), args...)
			if r.Overlay != "" {
				q += ` AND NOT EXISTS (SELECT 1 FROM overlay_pages o WHERE o.revision_id = ? AND o.page_id = x.page_id)`
				a = append(a, r.Overlay)
			}
			parts = append(parts, rowsPart{q, a})
		}
		parts = append(parts, r.sourceParts(cols, and, closed, opened, args)...)
	}
	return parts
}

// pages is the revision's pages (satisfying cond) joined with their
// versions: the FROM clause of a page read (rp the row, v the version).
func (r revisionRows) pages(cond string, args ...any) (string, []any) {
	q, a := r.sql(cond, args...)
	return `FROM (` + q + `) rp JOIN page_versions v ON v.hash = rp.version`, a
}

// rowsAt reads the rows of the revision r as a map by page id.
func rowsAt(ctx context.Context, q queryer, r revisionRows) (map[string]pageRow, error) {
	s, args := r.sql("")
	out := map[string]pageRow{}
	rows, err := q.QueryContext(ctx, s, args...)
	return out, eachRow(rows, err, func(sc interface{ Scan(...any) error }) error {
		var p pageRow
		err := sc.Scan(&p.ID, &p.Version, &p.ParentID, &p.Position, &p.Path)
		out[p.ID] = p
		return err
	})
}

// inTreeOrder orders a revision's pages in pre-order, siblings by position
// (then id). A page whose parent is missing counts as top-level.
func inTreeOrder(pages []ContentPage) []ContentPage {
	ids := make(map[string]bool, len(pages))
	for _, p := range pages {
		ids[p.ID] = true
	}
	children := map[string][]int{}
	for i, p := range pages {
		parent := p.ParentID
		if !ids[parent] {
			parent = ""
		}
		children[parent] = append(children[parent], i)
	}
	for _, list := range children {
		sort.Slice(list, func(a, b int) bool {
			pa, pb := pages[list[a]], pages[list[b]]
			if pa.Position != pb.Position {
				return pa.Position < pb.Position
			}
			return pa.ID < pb.ID
		})
	}
	out := make([]ContentPage, 0, len(pages))
	var walk func(id string)
	walk = func(id string) {
		for _, i := range children[id] {
			out = append(out, pages[i])
			walk(pages[i].ID)
		}
	}
	walk("")
	return out
}

// placeSiblings gives one sibling list increasing positions. Pages keep the
// positions they had under the same parent when they can (positions.Gapped:
// the longest increasing run of them), so a page inserted or moved takes a
// value between its neighbours and the other rows do not change; when a gap
// is too small a window of neighbours around it is spread again (the list
// numbered again only when the window would reach its end).
func placeSiblings(list []*TreePage, parentID string) {
	stored := make([]int, len(list))
	for i, p := range list {
		if p.Version != "" && p.ParentID == parentID && !p.moved {
			stored[i] = p.Position
		}
	}
	for i, pos := range positions.Gapped(stored, positionGap, maxPagePosition) {
		list[i].Position = pos
	}
}

// treeRows lists the rows of a placed tree.
func treeRows(t *Tree) []pageRow {
	var out []pageRow
	t.Walk(func(p, _ *TreePage) bool {
		out = append(out, rowOf(p.ContentPage))
		return true
	})
	return out
}

// rowOf is a page's row: its version and its place.
func rowOf(p ContentPage) pageRow {
	return pageRow{ID: p.ID, Version: p.Version, ParentID: p.ParentID, Path: p.Path, Position: p.Position}
}

// rowMap indexes rows by page id.
func rowMap(rows []pageRow) map[string]pageRow {
	m := make(map[string]pageRow, len(rows))
	for _, r := range rows {
		m[r.ID] = r
	}
	return m
}

// writeMainLine makes revID the next revision of spaceID's main line with
// rows: the rows of the pages that differ from the active revision's are
// closed and inserted again. alive are the active revision's rows (nil to
// read them all), or only those the edit touches (a partial edit: a page
// in alive without a row in rows goes away, the pages not in alive stay).
// It returns the pages whose version changed, with their old version (""
// when new; pages not in rows were removed), for the search index.
func writeMainLine(tx *Tx, spaceID, revID string, rows []pageRow, alive map[string]pageRow) (map[string]string, error) {
	seq, err := mainLineSeq(tx, spaceID, "")
	if err != nil {
		return nil, err
	}
	seq++
	if _, err := tx.exec(`UPDATE revisions SET seq = ? WHERE id = ?`, seq, revID); err != nil {
		return nil, err
	}
	srcs, err := sourcesOf(tx.ctx, tx, spaceID)
	if err != nil {
		return nil, err
	}
	if alive == nil {
		if alive, err = rowsAt(tx.ctx, tx, revisionRows{Space: spaceID, Seq: seq - 1, Sources: srcs}); err != nil {
			return nil, err
		}
	}
	rowsIn, closed, changed := mainLineDiff(rows, alive)
	if len(srcs) > 0 {
		// Copy on first write: the pages this write changes take in the
		// rows they read from the sources, then change as their own.
		if err := takeRows(tx, spaceID, srcs, 0, changedIDs(closed, rowsIn)); err != nil {
			return nil, err
		}
	}
	inserts := make([][]any, len(rowsIn))
	for i, r := range rowsIn {
		inserts[i] = []any{spaceID, r.ID, seq, aliveSeq, r.Version, r.ParentID, r.Position, r.Path}
	}
	if err := inChunks(closed, func(chunk []string) error {
		// By (space, page) on the primary key: the unary + keeps SQLite
		// (no statistics) from walking the space's alive rows instead.
		_, err := tx.exec(`UPDATE main_pages SET to_seq = ? WHERE space_id = ? AND +to_seq = ? AND page_id IN (`+placeholders(len(chunk))+`)`,
			append([]any{seq, spaceID, aliveSeq}, anySlice(chunk)...)...)
		return err
	}); err != nil {
		return nil, err
	}
	return changed, insertBatch(tx, `INSERT INTO main_pages (space_id, page_id, from_seq, to_seq, version, parent_id, position, path) VALUES `, 8, inserts)
}

// rowsAtMain reads the rows of spaceID's main line at seq (with its
// sources' rows).
func rowsAtMain(tx *Tx, spaceID string, seq int64) (map[string]pageRow, error) {
	srcs, err := sourcesOf(tx.ctx, tx, spaceID)
	if err != nil {
		return nil, err
	}
	return rowsAt(tx.ctx, tx, revisionRows{Space: spaceID, Seq: seq, Sources: srcs})
}

// lastSeq is the sequence number of the last revision of spaceID's main
// line (0 when it has none): one seek at the end of revisions_seq.
func lastSeq(tx *Tx, spaceID string) (int64, error) {
	var seq int64
	err := tx.QueryRowContext(tx.ctx, `SELECT COALESCE(MAX(seq), 0) FROM revisions WHERE space_id = ? AND seq IS NOT NULL`, spaceID).Scan(&seq)
	return seq, err
}

// mainLineSeq is lastSeq for a write of the space's main line: it fails
// with errImportClosing while a batched import (other than the stage
// except) has closed rows of the space ahead, which the space's writers
// would no longer see alive (import_batch.go); one statement.
func mainLineSeq(tx *Tx, spaceID, except string) (int64, error) {
	var seq, closing int64
	err := tx.QueryRowContext(tx.ctx, `SELECT COALESCE(MAX(seq), 0),
 (SELECT COUNT(*) FROM import_stages WHERE space_id = ? AND closing = 1 AND id <> ?) FROM revisions WHERE space_id = ? AND seq IS NOT NULL`,
		spaceID, except, spaceID).Scan(&seq, &closing)
	if err == nil && closing > 0 {
		err = errImportClosing
	}
	return seq, err
}

// writeOverlay stores revID (not activated) as its difference from a
// main-line revision: the one ref (the revision its tree came from) is on,
// or is based on; else the active one. known, when set, are the rows of
// revision knownRev (the loaded tree before the edit), read again otherwise.
// Without any main line yet the overlay is a full snapshot.
func writeOverlay(tx *Tx, spaceID, revID, ref string, rows []pageRow, known map[string]pageRow, knownRev string) error {
	rr, err := revisionRowsOf(tx.ctx, tx, ref)
	if err != nil {
		return err
	}
	at := rr.Seq
	if at == 0 {
		if at, err = lastSeq(tx, spaceID); err != nil {
			return err
		}
	}
	against := map[string]pageRow{}
	if at > 0 {
		if _, err := tx.exec(`UPDATE revisions SET base_seq = ? WHERE id = ?`, at, revID); err != nil {
			return err
		}
		onMain := rr.Seq > 0 && rr.Overlay == "" // ref's rows are main@at
		if onMain && ref == knownRev && known != nil {
			against = known
		} else if against, err = rowsAtMain(tx, spaceID, at); err != nil {
			return err
		}
	}
	return insertBatch(tx, `INSERT INTO overlay_pages (revision_id, page_id, version, parent_id, position, path) VALUES `, 6, overlayRows(revID, rows, against))
}

// overlayRows are revID's overlay_pages rows: its rows that differ from
// against (the main-line rows it is based on), then a row with an empty
// version per page of against it does not have.
func overlayRows(revID string, rows []pageRow, against map[string]pageRow) [][]any {
	var inserts [][]any
	seen := make(map[string]bool, len(rows))
	for _, r := range rows {
		seen[r.ID] = true
		if old, had := against[r.ID]; had && old == r {
			continue
		}
		inserts = append(inserts, []any{revID, r.ID, r.Version, r.ParentID, r.Position, r.Path})
	}
	var removed []string
	for id := range against {
		if !seen[id] {
			removed = append(removed, id)
		}
	}
	sort.Strings(removed)
	for _, id := range removed {
		inserts = append(inserts, []any{revID, id, "", "", 0, ""})
	}
	return inserts
}

// onePageAnalyzer gives the analyzer of a partial edit (writePartial) the
// pages the whole tree would have shown it: a first pass against the pages
// the edit read or added and the files names the page paths its unresolved
// relative links look for; the pages at those paths are read (one index
// probe each; the pages the edit places or removes, placed, as they are
// after it) and the links analyzed again with them, so a link is resolved
// (or left to be looked up when read) exactly as against the whole tree.
type onePageAnalyzer struct {
	Analyzer
	tx     *Tx
	rows   revisionRows
	placed map[string]string // page id -> its path after the edit ("" removed)
	reads  *PageReads
}

func (a onePageAnalyzer) Links(p *TreePage, t *Tree) []PageLink {
	links := a.Analyzer.Links(p, t)
	var paths []string
	for _, l := range links {
		if l.Kind != "page" || l.Target != "" {
			continue
		}
		for _, c := range []string{l.Lookup, l.LookupAlt} {
			if c != "" && c != p.Path && !slices.Contains(paths, c) {
				paths = append(paths, c)
			}
		}
	}
	if len(paths) == 0 {
		return links
	}
	q, args := a.rows.sql("x.path IN ("+placeholders(len(paths))+")", anySlice(paths)...)
	rows, err := a.tx.QueryContext(a.tx.ctx, `SELECT y.page_id, y.path FROM (`+q+`) y`, args...)
	with := &Tree{Pages: slices.Clone(t.Pages), Files: t.Files, LookupFile: t.LookupFile}
	found, read := 0, 0
	if eachRow(rows, err, func(sc interface{ Scan(...any) error }) error {
		tp := &TreePage{}
		err := sc.Scan(&tp.ID, &tp.Path)
		read++
		if _, moved := a.placed[tp.ID]; !moved {
			with.Pages = append(with.Pages, tp)
			found++
		}
		return err
	}) != nil {
		// Unresolved, the links are looked up when read (a failed read
		// fails the transaction's next statement anyway).
		return links
	}
	a.reads.add(`SELECT y.page_id, y.path FROM (`+q+`) y`, args, read)
	ids := make([]string, 0, len(a.placed))
	for id := range a.placed {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		if path := a.placed[id]; id != p.ID && path != "" && slices.Contains(paths, path) {
			with.Pages = append(with.Pages, &TreePage{ContentPage: ContentPage{ID: id, Path: path}})
			found++
		}
	}
	if found == 0 {
		return links
	}
	return a.Analyzer.Links(p, with)
}
