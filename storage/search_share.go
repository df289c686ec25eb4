package storage

// A duplicate shares its source's search index (migration
// 0032a_search_sources), as it shares its main line (space_sources.go):
// DuplicateSpace writes the duplicate's search_spaces row (its stats, one
// row) and its list of sources (search_sources: the space it copies, then
// that space's own sources, flattened, each with the number of chunks the
// duplicate reads of it) instead of copying every posting, length and page
// row.
//
// Chunk c of a space's index is the rows of the first of (the space, its
// sources in order) that holds c: a space holds the chunks it took in
// (search_owned) and every chunk from its next source's count on (the
// last source holds every chunk). That is the whole copy's chunk as long
// as nobody changes a chunk a duplicate still reads, so a write first
// gives a copy of the chunks it changes to every duplicate that reads them
// through the writing space, and the writing space takes in those it
// reads from its own sources (shareBeforeWrite: copy on write, in
// proportion to the chunks changed). Purging a source first hands the
// chunks its forks read of it to them (handOverChunks). The chunks a
// batched import writes ahead are past every duplicate's count (they start
// at a chunk past the space's next doc number), so nobody reads them.

import (
	"context"
	"slices"
	"sort"
	"strconv"
)

// search_spaces.shares bits.
const (
	readsSources = 1 // the space reads chunks of sources (search_sources)
	hasForks     = 2 // duplicates read (or read) chunks of the space
)

// searchSource is one index a space reads: its chunks below chunks.
type searchSource struct {
	space  string
	chunks int64
}

// searchView is where a sharing duplicate's chunks are: per chunk, the
// space whose rows hold it.
type searchView struct {
	space string
	srcs  []searchSource
	// owned: the chunks each of the spaces (the space and its sources)
	// took in, shared by the views loaded together.
	owned map[string]map[int64]bool
}

// name is the space at position i (0: the viewing space, i: srcs[i-1]).
func (v *searchView) name(i int) string {
	if i == 0 {
		return v.space
	}
	return v.srcs[i-1].space
}

// at is the position of the space whose rows hold chunk c.
func (v *searchView) at(c int64) int {
	for i := range v.srcs {
		if c >= v.srcs[i].chunks || v.owned[v.name(i)][c] {
			return i
		}
	}
	return len(v.srcs)
}

// position is src's position in the view (0: not a source of it).
func (v *searchView) position(src string) int {
	for i, s := range v.srcs {
		if s.space == src {
			return i + 1
		}
	}
	return 0
}

// holder is the space whose rows hold chunk c of space's index (v: its
// view, nil for a space that reads no source).
func holder(space string, v *searchView, c int64) string {
	if v == nil {
		return space
	}
	return v.name(v.at(c))
}

// loadViews reads the views of those of spaces that read sources (none
// for the others): their source lists and the chunks every space named
// took in. Two queries per 500 spaces.
func loadViews(ctx context.Context, q queryer, spaces []string) (map[string]*searchView, error) {
	views := map[string]*searchView{}
	err := inChunks(spaces, func(part []string) error {
		rows, err := q.QueryContext(ctx, `SELECT space_id, source_id, chunks FROM search_sources WHERE space_id IN (`+placeholders(len(part))+`) ORDER BY space_id, position`, anySlice(part)...)
		return eachRow(rows, err, func(sc interface{ Scan(...any) error }) error {
			var s string
			var src searchSource
			if err := sc.Scan(&s, &src.space, &src.chunks); err != nil {
				return err
			}
			v := views[s]
			if v == nil {
				v = &searchView{space: s}
				views[s] = v
			}
			v.srcs = append(v.srcs, src)
			return nil
		})
	})
	if err != nil || len(views) == 0 {
		return views, err
	}
	owned := map[string]map[int64]bool{}
	var members []string
	for _, v := range views {
		v.owned = owned
		members = append(members, v.space)
		for _, s := range v.srcs {
			members = append(members, s.space)
		}
	}
	slices.Sort(members)
	members = slices.Compact(members)
	err = inChunks(members, func(part []string) error {
		rows, err := q.QueryContext(ctx, `SELECT space_id, chunk FROM search_owned WHERE space_id IN (`+placeholders(len(part))+`)`, anySlice(part)...)
		return eachRow(rows, err, func(sc interface{ Scan(...any) error }) error {
			var s string
			var c int64
			if err := sc.Scan(&s, &c); err != nil {
				return err
			}
			if owned[s] == nil {
				owned[s] = map[int64]bool{}
			}
			owned[s][c] = true
			return nil
		})
	})
	return views, err
}

// copyChunks copies into space the rows of the chunks byFrom names (by
// the space holding them): posting, length and page rows.
func copyChunks(tx *Tx, space string, byFrom map[string][]int64) error {
	froms := make([]string, 0, len(byFrom))
	for f := range byFrom {
		froms = append(froms, f)
	}
	sort.Strings(froms)
	for _, from := range froms {
		chunks := byFrom[from]
		for start := 0; start < len(chunks); start += searchBatch {
			part := chunks[start:min(start+searchBatch, len(chunks))]
			for _, q := range []string{
				`INSERT INTO search_postings (space_id, term, chunk, docs) SELECT ?, term, chunk, docs FROM search_postings WHERE space_id = ? AND chunk IN (`,
				`INSERT INTO search_chunks (space_id, chunk, lens) SELECT ?, chunk, lens FROM search_chunks WHERE space_id = ? AND chunk IN (`,
			} {
				if _, err := tx.exec(q+placeholders(len(part))+`)`, append([]any{space, from}, anySlice(part)...)...); err != nil {
					return err
				}
			}
		}
		for _, c := range chunks {
			if _, err := tx.exec(`INSERT INTO search_pages (space_id, page_id, doc, sections) SELECT ?, page_id, doc, sections FROM search_pages WHERE space_id = ? AND doc >= ? AND doc < ?`,
				space, from, c<<chunkBits, (c+1)<<chunkBits); err != nil {
				return err
			}
		}
	}
	return nil
}

// takeChunks copies in the chunks byFrom names and records that space
// holds them (in owned too).
func takeChunks(tx *Tx, space string, byFrom map[string][]int64, owned map[string]map[int64]bool) error {
	if len(byFrom) == 0 {
		return nil
	}
	if err := copyChunks(tx, space, byFrom); err != nil {
		return err
	}
	var marks [][]any
	for _, chunks := range byFrom {
		for _, c := range chunks {
			marks = append(marks, []any{space, c})
			if owned[space] == nil {
				owned[space] = map[int64]bool{}
			}
			owned[space][c] = true
		}
	}
	sort.Slice(marks, func(i, j int) bool { return marks[i][1].(int64) < marks[j][1].(int64) })
	return insertBatch(tx, `INSERT INTO search_owned (space_id, chunk) VALUES `, 2, marks)
}

// readsThrough is, of chunks, those v's space reads through position from
// (the space there or one after it holds them) and does not hold itself,
// by the space holding them.
func (v *searchView) readsThrough(from int, chunks []int64) map[string][]int64 {
	out := map[string][]int64{}
	for _, c := range chunks {
		if len(v.srcs) == 0 || c >= v.srcs[0].chunks {
			continue
		}
		if at := v.at(c); at >= from && at > 0 {
			h := v.name(at)
			out[h] = append(out[h], c)
		}
	}
	return out
}

// shareBeforeWrite runs before a write changes chunks of spaceID's index
// (stats: its row, as readSpaceStats reads it): every duplicate that
// reads one of them through spaceID takes in its copy of it, then spaceID
// takes in those it reads from its own sources. After it, spaceID's own
// rows of those chunks are the chunks, and nobody else reads them.
func shareBeforeWrite(tx *Tx, spaceID string, stats spaceStats, chunks []int64) error {
	if len(chunks) == 0 {
		return nil
	}
	if stats.shares&hasForks != 0 {
		if err := eachFork(tx, spaceID, func(f string, v *searchView, w int) error {
			return takeChunks(tx, f, v.readsThrough(w, chunks), v.owned)
		}); err != nil {
			return err
		}
	}
	if v := stats.view; v != nil {
		if err := takeChunks(tx, spaceID, v.readsThrough(1, chunks), v.owned); err != nil {
			return err
		}
	}
	return nil
}

// handOverChunks runs before spaceID's index is dropped: every space that
// reads chunks of it takes them in, and no longer lists it.
func handOverChunks(tx *Tx, spaceID string) error {
	_, err := handOverChunksUpTo(tx, spaceID, 0)
	return err
}

// handOverChunksUpTo is handOverChunks taking in at most limit chunks (0:
// no bound), the forks in order; more says chunks are left to take. A
// taken chunk is the fork's own copy of the same rows, so it reads alike
// between the writes of a purge.
func handOverChunksUpTo(tx *Tx, spaceID string, limit int) (more bool, err error) {
	budget := limit
	err = eachFork(tx, spaceID, func(f string, v *searchView, w int) error {
		if more {
			return nil
		}
		var chunks []int64
		for c := range v.srcs[0].chunks {
			if v.at(c) == w {
				chunks = append(chunks, c)
			}
		}
		if limit > 0 && len(chunks) > budget {
			chunks, more = chunks[:budget], true
		}
		if len(chunks) > 0 {
			if err := takeChunks(tx, f, map[string][]int64{spaceID: chunks}, v.owned); err != nil {
				return err
			}
		}
		if more {
			return nil
		}
		budget -= len(chunks)
		_, err := tx.exec(`DELETE FROM search_sources WHERE space_id = ? AND source_id = ?`, f, spaceID)
		return err
	})
	return more, err
}

// eachFork calls fn for every space that lists spaceID as a source, with
// its view and spaceID's position in it, in the order of their ids.
func eachFork(tx *Tx, spaceID string, fn func(fork string, v *searchView, at int) error) error {
	forks, err := queryIDs(tx, `SELECT DISTINCT space_id FROM search_sources WHERE source_id = ?`, spaceID)
	if err != nil || len(forks) == 0 {
		return err
	}
	sort.Strings(forks)
	views, err := loadViews(tx.ctx, tx, forks)
	if err != nil {
		return err
	}
	for _, f := range forks {
		v := views[f]
		if v == nil {
			continue
		}
		if w := v.position(spaceID); w != 0 {
			if err := fn(f, v, w); err != nil {
				return err
			}
		}
	}
	return nil
}

func init() {
	spaceTransferHooks = append(spaceTransferHooks, unshareSearch)
}

// unshareSearch runs when spaceID moves to another organization: it stops
// sharing index rows with spaces of the organization it leaves, both ways.
// Every space that reads chunks of it takes them in (handOverChunks), and
// it takes in every chunk it reads of its own sources. Writes are
// serialized per organization on PostgreSQL, and a write that changes a
// shared chunk also writes the rows of the spaces sharing it (copy on
// write); sharing across organizations would let two unserialized writes
// change the same space's rows. A transfer is rare, so it pays for the
// copy: in proportion to the chunks shared, as a duplicate once did.
func unshareSearch(tx *Tx, spaceID string) error {
	if err := handOverChunks(tx, spaceID); err != nil {
		return err
	}
	stats, err := readSpaceStats(tx.ctx, tx, spaceID)
	if err != nil || stats.view == nil {
		return err
	}
	all := make([]int64, stats.chunks())
	for c := range all {
		all[c] = int64(c)
	}
	if err := takeChunks(tx, spaceID, stats.view.readsThrough(1, all), stats.view.owned); err != nil {
		return err
	}
	for _, q := range []string{
		`DELETE FROM search_sources WHERE space_id = ?`,
		`DELETE FROM search_owned WHERE space_id = ?`,
		`UPDATE search_spaces SET shares = shares & ` + strconv.Itoa(^readsSources) + ` WHERE space_id = ?`,
	} {
		if _, err := tx.exec(q, spaceID); err != nil {
			return err
		}
	}
	return nil
}

// shareSearchSpace gives toSpace (a duplicate of fromSpace: same pages,
// same doc numbers) fromSpace's index by reference: its stats row, and
// fromSpace and its sources as its sources (past maxSources, the chunks
// it reads of the last ones are copied in instead).
func shareSearchSpace(tx *Tx, fromSpace, toSpace string) error {
	all, err := readSpacesStats(tx.ctx, tx, []string{fromSpace})
	if err != nil {
		return err
	}
	stats, ok := all[fromSpace]
	if !ok {
		return nil // no index
	}
	n := stats.chunks()
	srcs := []searchSource{{fromSpace, n}}
	owned := map[string]map[int64]bool{}
	if v := stats.view; v != nil {
		for _, s := range v.srcs {
			srcs = append(srcs, searchSource{s.space, min(s.chunks, n)})
		}
		owned = v.owned
	}
	shares := 0
	if n > 0 {
		shares = readsSources
	}
	// The duplicate reads the same chunks, so it skips the same docs.
	if _, err := tx.exec(`INSERT INTO search_spaces (space_id, docs, total_len, next_doc, stamps, shares, retired) VALUES (?, ?, ?, ?, ?, ?, ?)`,
		toSpace, stats.docs, stats.length, stats.next, stats.stamps, shares, encodeRetired(stats.retired)); err != nil {
		return err
	}
	if n == 0 {
		return nil
	}
	if len(srcs) > maxSources {
		v := &searchView{space: toSpace, srcs: srcs, owned: owned}
		all := make([]int64, n)
		for c := range n {
			all[c] = c
		}
		if err := takeChunks(tx, toSpace, v.readsThrough(maxSources+1, all), owned); err != nil {
			return err
		}
		srcs = srcs[:maxSources]
	}
	rows := make([][]any, 0, len(srcs))
	names := make([]any, 0, len(srcs))
	for i, s := range srcs {
		rows = append(rows, []any{toSpace, i, s.space, s.chunks})
		names = append(names, s.space)
	}
	if err := insertBatch(tx, `INSERT INTO search_sources (space_id, position, source_id, chunks) VALUES `, 4, rows); err != nil {
		return err
	}
	_, err = tx.exec(`UPDATE search_spaces SET shares = shares | `+strconv.Itoa(hasForks)+` WHERE space_id IN (`+placeholders(len(names))+`)`, names...)
	return err
}

// copySearchChunks is copySearchSpace for a space that reads sources: the
// rows of each chunk from the space holding it.
func copySearchChunks(tx *Tx, stats spaceStats, fromSpace, toSpace string) error {
	byFrom := map[string][]int64{}
	for c := range stats.chunks() {
		h := holder(fromSpace, stats.view, c)
		byFrom[h] = append(byFrom[h], c)
	}
	if err := copyChunks(tx, toSpace, byFrom); err != nil {
		return err
	}
	return writeSpaceStats(tx, toSpace, stats)
}
