package storage

import (
	"slices"
	"sort"
)

// Merging a change request, or updating it from the main content, in
// proportion to the change (issue 32). The whole-tree path (mergeWhole)
// loads base, main and branch whole and writes the merged tree; it reads
// every page of the space. Here the change is read from the storage model
// instead: the branch's overlay rows are the pages the change request
// touched (its overlay is written against main@base_seq, the change
// request's base), and the main-line rows written or closed after base_seq
// are the pages the main content touched since. Every other page has the
// same row in base, main and branch, so the merge keeps it as it is: the
// three-way merge runs on the touched pages only (as flat trees of them),
// and the result is written as a change of the touched rows: the next
// main-line revision closes and inserts only those (merge), or the new
// overlay holds only those that differ from main (update).
//
// The delta applies when every touched page is in all three revisions at
// the same place (parent, position, path): its version (title, body,
// settings) is what differs. Then the whole tree would keep every page's
// place and sibling order, and merge the touched pages exactly as here.
// Adds, removes, moves, reorders and renames take the whole-tree path
// (they can change sibling lists and the paths of subtrees).

// deltaMerge tries the merge (or update) m of cr, whose main content is
// main, on the touched pages only. It returns false (having written
// nothing) when the change is not one it handles.
func deltaMerge(tx *Tx, m MergeChange, cr ChangeRequest, main, rev string) (bool, error) {
	ctx := tx.ctx
	rrBase, err := revisionRowsOf(ctx, tx, cr.RevisionBase)
	if err != nil || rrBase.Overlay != "" || rrBase.Seq == 0 {
		return false, err
	}
	rrMain, err := revisionRowsOf(ctx, tx, main)
	if err != nil || rrMain.Overlay != "" || rrMain.Seq == 0 {
		return false, err
	}
	rrBranch, err := revisionRowsOf(ctx, tx, cr.Revision)
	if err != nil {
		return false, err
	}
	if cr.Revision != cr.RevisionBase && (rrBranch.Overlay != cr.Revision || rrBranch.Seq != rrBase.Seq) {
		return false, nil // a branch not stored against its base
	}
	touched := map[string]bool{}
	if rrBranch.Overlay != "" {
		if err := collectIDs(tx, touched, `SELECT page_id FROM overlay_pages WHERE revision_id = ?`, rrBranch.Overlay); err != nil {
			return false, err
		}
	}
	// Rows written after the base (main_pages_from), rows closed after it
	// (a range of main_pages_alive: to_seq a parameter, so that the engine
	// does not take the partial index of every closed row by parent).
	if err := collectIDs(tx, touched, `SELECT page_id FROM main_pages WHERE space_id = ? AND from_seq > ?`, m.SpaceID, rrBase.Seq); err != nil {
		return false, err
	}
	if err := collectIDs(tx, touched, `SELECT page_id FROM main_pages WHERE space_id = ? AND to_seq > ? AND to_seq < ?`, m.SpaceID, rrBase.Seq, aliveSeq); err != nil {
		return false, err
	}
	ids := make([]string, 0, len(touched))
	for id := range touched {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	var trees [3]*Tree
	for i, r := range []struct {
		rows revisionRows
		rev  string
	}{{rrBase, cr.RevisionBase}, {rrMain, main}, {rrBranch, cr.Revision}} {
		if trees[i], err = touchedTree(tx, r.rows, r.rev, ids); err != nil {
			return false, err
		}
	}
	for _, t := range trees {
		if len(t.Pages) != len(ids) {
			return false, nil // added or removed on a side
		}
	}
	mainRows := make(map[string]pageRow, len(ids))
	for i, p := range trees[1].Pages {
		if !samePlace(trees[0].Pages[i].ContentPage, p.ContentPage) || !samePlace(trees[2].Pages[i].ContentPage, p.ContentPage) {
			return false, nil // moved, reordered or renamed on a side
		}
		mainRows[p.ID] = rowOf(p.ContentPage)
	}
	if err := loadChangedBodies(tx, trees[:]...); err != nil {
		return false, err
	}
	merged, err := m.Merge(trees[0], trees[1], trees[2])
	if err != nil {
		return false, err
	}
	if len(merged.Pages) != len(ids) {
		return false, nil // never expected: the merge keeps every page all three have
	}
	placed := make(map[string]string, len(ids))
	for _, p := range merged.Pages {
		was, ok := mainRows[p.ID]
		if !ok || len(p.Children) != 0 {
			return false, nil
		}
		p.ParentID, p.Position, p.Path = was.ParentID, was.Position, was.Path
		p.storedSlug = p.Slug
		placed[p.ID] = p.Path
	}
	parents, typ, activate := []string{main, cr.Revision}, "merge", true
	if m.Update {
		parents, typ, activate = []string{cr.Revision, main}, "update", false
	}
	if err := insertRevision(tx, rev, m.SpaceID, parents, typ, tx.Now); err != nil {
		return false, err
	}
	if !m.Update {
		if _, err := tx.exec(`UPDATE revisions SET merged_from = ? WHERE id = ?`, cr.ID, rev); err != nil {
			return false, err
		}
	}
	var an Analyzer
	if m.Analyzer != nil {
		reads, _ := ctx.Value(pageReadsKey{}).(*PageReads)
		an = onePageAnalyzer{Analyzer: m.Analyzer, tx: tx, rows: rrMain, placed: placed, reads: reads}
	}
	if err := writeVersions(tx, merged, an); err != nil {
		return false, err
	}
	if err := writeFiles(tx, rev, m.SpaceID, merged); err != nil {
		return false, err
	}
	if err := writeRevisionData(tx, rev, merged); err != nil {
		return false, err
	}
	rows := treeRows(merged)
	if !activate {
		// The new head's overlay on main: the touched rows that differ
		// from main's (every other page is main's already).
		if _, err := tx.exec(`UPDATE revisions SET base_seq = ? WHERE id = ?`, rrMain.Seq, rev); err != nil {
			return false, err
		}
		var inserts [][]any
		for _, r := range rows {
			if mainRows[r.ID] != r {
				inserts = append(inserts, []any{rev, r.ID, r.Version, r.ParentID, r.Position, r.Path})
			}
		}
		return true, insertBatch(tx, `INSERT INTO overlay_pages (revision_id, page_id, version, parent_id, position, path) VALUES `, 6, inserts)
	}
	changed, err := writeMainLine(tx, m.SpaceID, rev, rows, mainRows)
	if err != nil {
		return false, err
	}
	if err := reindexSpace(tx, m.SpaceID, changed, merged, m.Analyzer); err != nil {
		return false, err
	}
	return true, setActiveRevision(tx, m.SpaceID, rev)
}

// samePlace: two rows of a page put it at the same place.
func samePlace(a, b ContentPage) bool {
	return a.ID == b.ID && a.ParentID == b.ParentID && a.Position == b.Position && a.Path == b.Path
}

// collectIDs adds the ids a query returns to set.
func collectIDs(tx *Tx, set map[string]bool, q string, args ...any) error {
	rows, err := tx.QueryContext(tx.ctx, q, args...)
	return eachRow(rows, err, func(sc interface{ Scan(...any) error }) error {
		var id string
		err := sc.Scan(&id)
		set[id] = true
		return err
	})
}

// touchedTree reads the pages ids of revision rev (rows r), those it has,
// as a flat tree in id order, with the revision's files.
func touchedTree(tx *Tx, r revisionRows, rev string, ids []string) (*Tree, error) {
	var pages []ContentPage
	err := inChunks(ids, func(chunk []string) error {
		from, args := r.pages("x.page_id IN ("+placeholders(len(chunk))+")", anySlice(chunk)...)
		rows, err := tx.QueryContext(tx.ctx, `SELECT `+pageCols+` `+from, args...)
		return eachRow(rows, err, func(sc interface{ Scan(...any) error }) error {
			p, err := scanPage(sc)
			pages = append(pages, p)
			return err
		})
	})
	if err != nil {
		return nil, err
	}
	slices.SortFunc(pages, func(a, b ContentPage) int {
		switch {
		case a.ID < b.ID:
			return -1
		case a.ID > b.ID:
			return 1
		}
		return 0
	})
	t := &Tree{}
	for _, p := range pages {
		t.Pages = append(t.Pages, &TreePage{ContentPage: p, storedSlug: p.Slug})
	}
	return t, loadTreeFiles(tx.ctx, tx, rev, t)
}
