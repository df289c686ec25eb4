package storage

import (
	"slices"
	"sort"
)

// Merging a change request, or updating it from the main content, in
// proportion to the change. The whole-tree path (mergeWhole)
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
// The delta applies when every touched page that several sides have is at
// the same place on each (parent, position, path): its version (title,
// body, settings) is what differs; and pages added or removed on one side
// are under parents whose children the other side did not change
// (deltaPlaces). Then the whole tree would keep every other page's place
// and sibling order, and merge the touched pages exactly as here. Moves,
// reorders, renames, and adds or removes on both sides under one parent
// take the whole-tree path (they can change sibling lists and the paths
// of subtrees).

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
	if last, err := lastSeq(tx, m.SpaceID); err != nil || last != rrMain.Seq {
		return false, err // main's rows are the alive ones only at the end of the line
	}
	for _, s := range rrMain.Sources {
		if rrBase.Seq < s.Cap {
			// A base older than a sharing duplicate (space_sources.go):
			// what changed since is in its sources' rows too.
			return false, nil
		}
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
	if err := collectIDs(tx, touched, `SELECT page_id FROM main_pages WHERE space_id = ? AND from_seq > ? AND from_seq <= ?`, m.SpaceID, rrBase.Seq, rrMain.Seq); err != nil {
		return false, err
	}
	if err := collectIDs(tx, touched, `SELECT page_id FROM main_pages WHERE space_id = ? AND to_seq > ? AND to_seq <= ?`, m.SpaceID, rrBase.Seq, rrMain.Seq); err != nil {
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
	if !deltaPlaces(ids, trees) {
		return false, nil
	}
	mainRows := make(map[string]pageRow, len(ids))
	for _, p := range trees[1].Pages {
		mainRows[p.ID] = rowOf(p.ContentPage)
	}
	if err := loadChangedBodies(tx, trees[:]...); err != nil {
		return false, err
	}
	merged, err := m.Merge(trees[0], trees[1], trees[2])
	if err != nil {
		return false, err
	}
	kept := make(map[string]bool, len(merged.Pages))
	for _, p := range merged.Pages {
		if len(p.Children) != 0 || !touched[p.ID] {
			return false, nil // never expected: the trees are flat
		}
		kept[p.ID] = true
	}
	placed := make(map[string]string, len(ids))
	for _, p := range merged.Pages {
		// A page keeps the row of the side it comes from (every side
		// that has it has it at the same place); its parent must be
		// there too (a page added under one the other side removed: the
		// whole tree names that conflict).
		if p.ParentID != "" && touched[p.ParentID] && !kept[p.ParentID] {
			return false, nil
		}
		p.storedSlug = p.Slug
		placed[p.ID] = p.Path
	}
	for _, id := range ids {
		if !kept[id] {
			placed[id] = "" // removed
		}
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
			if was, ok := mainRows[r.ID]; !ok || was != r {
				inserts = append(inserts, []any{rev, r.ID, r.Version, r.ParentID, r.Position, r.Path})
			}
		}
		for _, id := range ids {
			if _, ok := mainRows[id]; ok && !kept[id] {
				inserts = append(inserts, []any{rev, id, "", "", 0, ""})
			}
		}
		return true, insertBatch(tx, `INSERT INTO overlay_pages (revision_id, page_id, version, parent_id, position, path) VALUES `, 6, inserts)
	}
	changed, err := writeMainLine(tx, m.SpaceID, rev, rows, mainRows)
	if err != nil {
		return false, err
	}
	if err := reindexSpace(tx, m.SpaceID, changed, merged, m.Analyzer, false); err != nil {
		return false, err
	}
	return true, setActiveRevision(tx, m.SpaceID, rev)
}

// deltaPlaces tells whether the merge of the touched pages ids (in base,
// main and branch: trees) keeps every sibling list as the whole tree
// would: a page that two or three sides have is at the same place on each
// (no move, reorder or rename), and the pages one side added or removed
// are under parents whose children the other side left alone (then the
// other side's list is base's, and the merged list is the changing side's
// with its stored positions: what the whole tree's sibling order and
// positions give).
func deltaPlaces(ids []string, trees [3]*Tree) bool {
	var byID [3]map[string]*TreePage
	for i, t := range trees {
		byID[i] = make(map[string]*TreePage, len(t.Pages))
		for _, p := range t.Pages {
			byID[i][p.ID] = p
		}
	}
	inBranch, inMain := map[string]bool{}, map[string]bool{}
	for _, id := range ids {
		b, o, t := byID[0][id], byID[1][id], byID[2][id]
		var first *TreePage
		for _, p := range []*TreePage{b, o, t} {
			if p == nil {
				continue
			}
			if first != nil && !samePlace(first.ContentPage, p.ContentPage) {
				return false
			}
			first = p
		}
		switch {
		case b == nil && o != nil && t != nil:
			return false // added on both sides: the whole tree compares them
		case b == nil && t != nil:
			inBranch[t.ParentID] = true
		case b == nil && o != nil:
			inMain[o.ParentID] = true
		case b == nil:
			return false
		case t == nil && o != nil:
			inBranch[b.ParentID] = true
		case o == nil && t != nil:
			inMain[b.ParentID] = true
		case o == nil && t == nil:
			inBranch[b.ParentID], inMain[b.ParentID] = true, true
		}
	}
	for parent := range inBranch {
		if inMain[parent] {
			return false
		}
	}
	return true
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
	if err := loadTreeFiles(tx.ctx, tx, rev, t); err != nil {
		return nil, err
	}
	// Variables and reusable contents are one row per revision: merged
	// like files, so the merge keeps them (the whole tree's path does too).
	return t, loadTreeVariables(tx.ctx, tx, rev, t)
}
