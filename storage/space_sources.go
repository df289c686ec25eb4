package storage

import (
	"context"
	"slices"
)

// A duplicate that shares its source's main line (migration
// 0031a_space_sources). duplicateShared records the space it
// copies, and that space's own sources, in space_sources instead of
// copying every main_pages row. A page's rows in the duplicate are the
// rows of the first of (the duplicate, its sources in order) that has any
// row of that page, read at min(seq, the source's cap_seq): the whole
// copy's rows, since its sequence numbers are the original's. Every read
// of a revision's rows (revisionRows) adds the sources' rows; every write
// of the duplicate's main line first copies in the rows of the pages it
// changes (ownPages: copy on first write, in proportion to the change);
// purging a source first hands the rows its forks still read to them.

// spaceSource is one source a space reads: its rows up to Cap.
type spaceSource struct {
	Space string
	Cap   int64
}

// maxSources bounds a space's source list: a duplicate of a space with
// that many takes in the rows of the last ones (recordSources). A
// variable: the property test lowers it to exercise that path.
var maxSources = 8

// sourcesOf reads spaceID's sources in order (none for most spaces).
func sourcesOf(ctx context.Context, q queryer, spaceID string) ([]spaceSource, error) {
	rows, err := q.QueryContext(ctx, `SELECT source_id, cap_seq FROM space_sources WHERE space_id = ? ORDER BY position`, spaceID)
	var out []spaceSource
	return out, eachRow(rows, err, func(sc interface{ Scan(...any) error }) error {
		var s spaceSource
		err := sc.Scan(&s.Space, &s.Cap)
		out = append(out, s)
		return err
	})
}

// ownedByNone is the condition that no main_pages row of page x.page_id is in
// the spaces (a NOT EXISTS by the primary key), with its arguments.
func ownedByNone(spaces []string) (string, []any) {
	return `NOT EXISTS (SELECT 1 FROM main_pages o WHERE o.space_id IN (` + placeholders(len(spaces)) + `) AND o.page_id = x.page_id)`, anySlice(spaces)
}

// takeRows copies into spaceID the rows of srcs[k:] it reads of the pages
// pageIDs (nil: every page), for the pages it has no row of: a source's
// rows opened up to its cap, one still open at the cap open in spaceID.
// After it, spaceID reads those pages from its own rows, the same as
// before.
func takeRows(tx *Tx, spaceID string, srcs []spaceSource, k int, pageIDs []string) error {
	if len(srcs) <= k {
		return nil
	}
	owners := []string{spaceID}
	for _, s := range srcs[:k] {
		owners = append(owners, s.Space)
	}
	for _, s := range srcs[k:] {
		none, nargs := ownedByNone(owners)
		q := `INSERT INTO main_pages (space_id, page_id, from_seq, to_seq, version, parent_id, position, path)
 SELECT CAST(? AS TEXT), x.page_id, x.from_seq, CASE WHEN x.to_seq > ? THEN ? ELSE x.to_seq END, x.version, x.parent_id, x.position, x.path
 FROM main_pages x WHERE x.space_id = ? AND x.from_seq <= ? AND ` + none
		args := append([]any{spaceID, s.Cap, aliveSeq, s.Space, s.Cap}, nargs...)
		if pageIDs == nil {
			if _, err := tx.exec(q, args...); err != nil {
				return err
			}
		} else if err := inChunks(pageIDs, func(chunk []string) error {
			_, err := tx.exec(q+` AND x.page_id IN (`+placeholders(len(chunk))+`)`, append(slices.Clone(args), anySlice(chunk)...)...)
			return err
		}); err != nil {
			return err
		}
		owners = append(owners, s.Space)
	}
	return nil
}

// ownPages makes spaceID hold its own rows of the pages pageIDs before a
// write of its main line changes them (copy on first write): the rows it
// reads of them from its sources. Nothing for a space without sources.
func ownPages(tx *Tx, spaceID string, pageIDs []string) error {
	if len(pageIDs) == 0 {
		return nil
	}
	srcs, err := sourcesOf(tx.ctx, tx, spaceID)
	if err != nil || len(srcs) == 0 {
		return err
	}
	return takeRows(tx, spaceID, srcs, 0, pageIDs)
}

// changedIDs are the pages a main-line write closes or writes rows of.
func changedIDs(closed []string, rows []pageRow) []string {
	ids := slices.Clone(closed)
	for _, r := range rows {
		ids = append(ids, r.ID)
	}
	slices.Sort(ids)
	return slices.Compact(ids)
}

// recordSources makes newID, a duplicate of fromID at main-line seq at,
// read fromID's rows and those fromID reads (its list flattened, each cap
// at most at). Past maxSources, the rows of the last sources are copied
// into newID instead.
func recordSources(tx *Tx, newID, fromID string, at int64) error {
	if at <= 0 {
		return nil // no main line yet: nothing to read
	}
	up, err := sourcesOf(tx.ctx, tx, fromID)
	if err != nil {
		return err
	}
	srcs := []spaceSource{{fromID, at}}
	for _, s := range up {
		srcs = append(srcs, spaceSource{s.Space, min(s.Cap, at)})
	}
	if len(srcs) > maxSources {
		if err := takeRows(tx, newID, srcs, maxSources, nil); err != nil {
			return err
		}
		srcs = srcs[:maxSources]
	}
	var rows [][]any
	for i, s := range srcs {
		rows = append(rows, []any{newID, i, s.Space, s.Cap})
	}
	return insertBatch(tx, `INSERT INTO space_sources (space_id, position, source_id, cap_seq) VALUES `, 4, rows)
}

// handOverRows runs before spaceID's rows are purged: every space that
// reads it takes in the rows it reads of it, and no longer lists it.
func handOverRows(tx *Tx, spaceID string) error {
	_, err := handOverRowsUpTo(tx, spaceID, nil, 0)
	return err
}

// handOverRowsUpTo is handOverRows in bounded writes (a purge's): with a
// limit, one fork at a time takes in the rows of at most limit of
// spaceID's pages, those after *after in page id order (advanced here),
// and stops listing spaceID once it has them all; more says forks are
// left. Taken rows read the same as the source's (takeRows), so the fork
// reads alike between the writes. limit 0: every fork, whole, at once.
func handOverRowsUpTo(tx *Tx, spaceID string, after *string, limit int) (more bool, err error) {
	forks, err := queryIDs(tx, `SELECT DISTINCT space_id FROM space_sources WHERE source_id = ? ORDER BY space_id`, spaceID)
	if err != nil {
		return false, err
	}
	for i, f := range forks {
		var pages []string // nil: all of them
		if limit > 0 {
			if pages, err = queryIDs(tx, `SELECT DISTINCT page_id FROM main_pages WHERE space_id = ? AND page_id > ? ORDER BY page_id LIMIT ?`, spaceID, *after, limit); err != nil {
				return false, err
			}
		}
		if limit == 0 || len(pages) > 0 {
			srcs, err := sourcesOf(tx.ctx, tx, f)
			if err != nil {
				return false, err
			}
			for k, s := range srcs {
				if s.Space != spaceID {
					continue
				}
				if err := takeRows(tx, f, srcs[:k+1], k, pages); err != nil {
					return false, err
				}
			}
		}
		if limit > 0 && len(pages) == limit {
			*after = pages[len(pages)-1]
			return true, nil
		}
		if _, err := tx.exec(`DELETE FROM space_sources WHERE space_id = ? AND source_id = ?`, f, spaceID); err != nil {
			return false, err
		}
		if limit > 0 {
			*after = ""
			return i+1 < len(forks), nil
		}
	}
	return false, nil
}

// sourceParts are the SELECTs of the rows r reads from its space's
// sources (revisionRows.parts' main-line ranges on each source at
// min(Seq, cap), for the pages neither the space nor an earlier source
// has rows of), with cols, cond's and the overlay's conditions.
func (r revisionRows) sourceParts(cols, and, closed, opened string, args []any) []rowsPart {
	var parts []rowsPart
	r.eachSource(func(src string, seq int64, none string, nargs []any) {
		for _, m := range []struct {
			where string
			args  []any
		}{
			{`x.to_seq = ? AND ` + opened, []any{aliveSeq, seq}},
			{closed + ` AND ` + opened, []any{seq, seq}},
		} {
			q := cols + ` FROM main_pages x WHERE x.space_id = ? AND ` + m.where + and + ` AND ` + none
			a := append(append(append([]any{src}, m.args...), args...), nargs...)
			if r.Overlay != "" {
				q += ` AND NOT EXISTS (SELECT 1 FROM overlay_pages o WHERE o.revision_id = ? AND o.page_id = x.page_id)`
				a = append(a, r.Overlay)
			}
			parts = append(parts, rowsPart{q, a})
		}
	})
	return parts
}

// eachSource calls fn for each source r reads rows of: the source, the seq
// it is read at (min(r.Seq, its cap); a source read at no seq is skipped)
// and the condition, with its arguments, that neither r's space nor an
// earlier source has rows of the page (ownedByNone).
func (r revisionRows) eachSource(fn func(src string, seq int64, none string, nargs []any)) {
	owners := []string{r.Space}
	for _, s := range r.Sources {
		seq := min(r.Seq, s.Cap)
		none, nargs := ownedByNone(owners)
		owners = append(owners, s.Space)
		if seq > 0 {
			fn(s.Space, seq, none, nargs)
		}
	}
}

// sharedPageHits adds to byID the pages ids of the active revisions of
// those of spaces that are sharing duplicates (their own alive rows are
// not all their pages), read with their sources' rows.
func sharedPageHits(ctx context.Context, q queryer, spaces, ids []string, byID map[spacePage]*PageHit) error {
	shared, err := queryIDsCtx(ctx, q, `SELECT DISTINCT s.revision_id FROM spaces s JOIN space_sources x ON x.space_id = s.id WHERE s.id IN (`+placeholders(len(spaces))+`)`, anySlice(spaces)...)
	if err != nil {
		return err
	}
	for _, rev := range shared {
		rr, err := revisionRowsOf(ctx, q, rev)
		if err != nil {
			return err
		}
		var hits []*PageHit
		if err := inChunks(ids, func(chunk []string) error {
			from, args := rr.pages(`x.page_id IN (`+placeholders(len(chunk))+`)`, anySlice(chunk)...)
			rows, err := q.QueryContext(ctx, `SELECT `+pageCols+` `+from, args...)
			return eachRow(rows, err, func(sc interface{ Scan(...any) error }) error {
				p, err := scanPageWith(sc)
				hits = append(hits, &PageHit{SpaceID: rr.Space, Page: p})
				return err
			})
		}); err != nil {
			return err
		}
		for _, h := range hits {
			byID[spacePage{h.SpaceID, h.Page.ID}] = h
		}
	}
	return nil
}
