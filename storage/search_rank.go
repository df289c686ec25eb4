package storage

// Ranking over the search index (search_index.go): a query reads the
// posting rows of its words (the last word a prefix: a range of terms),
// intersects them chunk by chunk in Go (a page matches when it holds every
// word; for the prefix, any term it starts), scores every match with BM25
// and keeps the best offset+limit in a heap; the exact count falls out of
// the same pass.

import (
	"container/heap"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"
)

// BM25's parameters (the usual ones, as FTS5's bm25).
const (
	bm25K1 = 1.2
	bm25B  = 0.75
)

// postingRow is one row of search_postings read for a query: word is the
// index of the query word it serves.
type postingRow struct {
	word  int
	term  string
	chunk int64
	docs  []byte
}

func dedupe(s []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, w := range s {
		if !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	return out
}

// wordsOf is, for a term read back, the query words it serves (a word may
// be repeated, and the prefix may also be an exact word).
func wordsOf(words []string, term string) []int {
	var out []int
	for i, w := range words {
		if term == w || (i == len(words)-1 && strings.HasPrefix(term, w)) {
			out = append(out, i)
		}
	}
	return out
}

// scoredPage is a match: its page id, BM25 score (higher is better) and
// doc number (0 where none applies: a space ranked by its best page).
type scoredPage struct {
	pageID string
	score  float64
	doc    int64
}

// better orders matches: higher score first, then doc number (the order
// pages entered the space's index; pages entering in one change by page
// id), then id. Ties by doc number are known without reading anything, so
// only the listed pages' ids are read (a tie order by page id needed the
// id of every tied match: a thousand seeks for a selective query whose
// matches score alike).
func better(a, b scoredPage) bool {
	if a.score != b.score {
		return a.score > b.score
	}
	if a.doc != b.doc {
		return a.doc < b.doc
	}
	return a.pageID < b.pageID
}

// spaceRanking ranks one space's matches of a query from its posting rows.
type spaceRanking struct {
	words []string
	stats spaceStats
	rows  []postingRow
	idf   map[string]float64 // by term
	// retired: the docs the ranking skips, per chunk (search_retire.go;
	// the space's stats row's, nil while nothing writes one).
	retired retiredDocs
}

// newSpaceRankingRetired groups rows (each tagged with the words it
// serves) and computes each term's idf from its doc frequency in the
// space, without the retired docs: they count in no term's doc frequency
// and match nothing. Counting the live docs of a row whose chunk has
// retired docs decodes it (an error then).
func newSpaceRankingRetired(words []string, stats spaceStats, rows []postingRow, retired retiredDocs) (*spaceRanking, error) {
	df := map[string]int{}
	seen := map[termChunk]bool{}
	for _, r := range rows {
		if k := (termChunk{r.term, r.chunk}); !seen[k] {
			seen[k] = true
			n, err := liveCount(r.docs, retired[r.chunk])
			if err != nil {
				return nil, err
			}
			df[r.term] += n
		}
	}
	idf := make(map[string]float64, len(df))
	n := float64(stats.docs)
	for t, f := range df {
		idf[t] = math.Log(1 + (n-float64(f)+0.5)/(float64(f)+0.5))
	}
	return &spaceRanking{words: words, stats: stats, rows: rows, idf: idf, retired: retired}, nil
}

// chunks is the chunks holding rows for every word (the only ones that
// can hold a match), in order.
func (s *spaceRanking) chunks() []int64 {
	has := map[int64]uint64{} // chunk → bit set of words (the first 64)
	need := uint64(1)<<min(len(s.words), 64) - 1
	if len(s.words) >= 64 {
		need = ^uint64(0)
	}
	for _, r := range s.rows {
		if r.word < 64 {
			has[r.chunk] |= 1 << r.word
		}
	}
	var out []int64
	for ch, bits := range has {
		if bits == need {
			out = append(out, ch)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// match is a matching doc and its score.
type match struct {
	doc   int64
	score float64
}

// rank scores every match (docs holding every word) in chunks (s.chunks(),
// which the caller read the lengths of); lengths are their search_chunks
// rows.
func (s *spaceRanking) rank(chunks []int64, lengths map[int64][]byte) ([]match, error) {
	byChunk := map[int64][]postingRow{}
	for _, r := range s.rows {
		byChunk[r.chunk] = append(byChunk[r.chunk], r)
	}
	avg := 1.0
	if s.stats.docs > 0 && s.stats.length > 0 {
		avg = float64(s.stats.length) / float64(s.stats.docs)
	}
	// At most as many matches as the rarest word has docs.
	perWord := make([]int, len(s.words))
	for _, r := range s.rows {
		perWord[r.word] += postingCount(r.docs)
	}
	var (
		matched [chunkDocs]int32 // the words matched so far (a doc is out once it misses one)
		score   [chunkDocs]float64
		cands   []uint32 // the docs of the chunk holding the first word: the only ones that can match
		out     = make([]match, 0, min(slices.Min(perWord), int(s.stats.docs)))
	)
	for _, ch := range chunks {
		rows := byChunk[ch]
		lens := lengths[ch]
		gone := s.retired[ch]
		sort.SliceStable(rows, func(i, j int) bool { return rows[i].word < rows[j].word })
		cands = cands[:0]
		for _, pr := range rows {
			w := int32(pr.word)
			idf := s.idf[pr.term]
			p, err := newPostingReader(pr.docs)
			if err != nil {
				return nil, err
			}
			for {
				off, tf, ok, err := p.next()
				if err != nil {
					return nil, err
				}
				if !ok {
					break
				}
				if retiredAt(gone, off) {
					continue
				}
				m := matched[off]
				if m != w && m != w+1 { // missed an earlier word
					continue
				}
				if m == 0 {
					cands = append(cands, off)
				}
				matched[off] = w + 1
				f := float64(tf)
				score[off] += idf * f * (bm25K1 + 1) / (f + bm25K1*(1-bm25B+bm25B*float64(lengthAt(lens, off))/avg))
			}
		}
		// In doc order (several terms of a prefix each add theirs).
		if !slices.IsSorted(cands) {
			slices.Sort(cands)
		}
		want := int32(len(s.words))
		for _, off := range cands {
			if matched[off] == want {
				out = append(out, match{ch<<chunkBits | int64(off), score[off]})
			}
			matched[off], score[off] = 0, 0
		}
	}
	return out, nil
}

// bestOf is the best k of matches (higher score, then lower doc number),
// best first. rank lists matches by doc number, so a match tied with the
// worst kept one never displaces it: a broad query where every page scores
// alike costs one comparison per match.
func bestOf(matches []match, k int) []match {
	if k <= 0 || len(matches) == 0 {
		return nil
	}
	var kept matchHeap
	if len(matches) <= k {
		kept = append(kept, matches...)
	} else {
		kept = make(matchHeap, 0, k)
		for _, m := range matches {
			if len(kept) < k {
				heap.Push(&kept, m)
			} else if outranks(m, kept[0]) {
				kept[0] = m
				heap.Fix(&kept, 0)
			}
		}
	}
	sort.Slice(kept, func(i, j int) bool { return outranks(kept[i], kept[j]) })
	return kept
}

// outranks orders matches as better does: score, then doc number.
func outranks(a, b match) bool {
	if a.score != b.score {
		return a.score > b.score
	}
	return a.doc < b.doc
}

// matchHeap keeps the best k matches with the worst at the root.
type matchHeap []match

func (h matchHeap) Len() int           { return len(h) }
func (h matchHeap) Less(i, j int) bool { return outranks(h[j], h[i]) }
func (h matchHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *matchHeap) Push(x any)        { *h = append(*h, x.(match)) }
func (h *matchHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// wordPatterns is the query's words as the cache names them: "=" and an
// exact word (each once), "^" and the last word (a prefix).
func wordPatterns(words []string) []string {
	var out []string
	for _, w := range dedupe(words[:len(words)-1]) {
		out = append(out, "="+w)
	}
	return append(out, "^"+words[len(words)-1])
}

// patternHolds tells whether term is one of pattern's terms.
func patternHolds(pattern, term string) bool {
	if pattern[0] == '=' {
		return term == pattern[1:]
	}
	return strings.HasPrefix(term, pattern[1:])
}

// patternSQL is the index range of pattern's terms: one term, or for a
// prefix the terms from it up to it followed by the largest rune.
func patternSQL(pattern string) (string, []any) {
	if pattern[0] == '=' {
		return `term = ?`, []any{pattern[1:]}
	}
	return `term >= ? AND term < ?`, []any{pattern[1:], pattern[1:] + string(utf8.MaxRune)}
}

// readSpacesStats is the search_spaces rows of the given spaces (none for
// a space without an index).
func readSpacesStats(ctx context.Context, q queryer, spaces []string) (map[string]spaceStats, error) {
	out := map[string]spaceStats{}
	for start := 0; start < len(spaces); start += searchBatch {
		part := spaces[start:min(start+searchBatch, len(spaces))]
		rows, err := q.QueryContext(ctx, `SELECT space_id, docs, total_len, next_doc, stamps, shares, retired FROM search_spaces WHERE space_id IN (`+placeholders(len(part))+`)`, anySlice(part)...)
		if err := eachRow(rows, err, func(sc interface{ Scan(...any) error }) error {
			var id string
			var s spaceStats
			var retired []byte
			if err := sc.Scan(&id, &s.docs, &s.length, &s.next, &s.stamps, &s.shares, &retired); err != nil {
				return err
			}
			r, err := decodeRetired(retired)
			s.retired = r
			out[id] = s
			return err
		}); err != nil {
			return nil, err
		}
	}
	// Sharing duplicates: where their chunks are (search_share.go).
	var sharing []string
	for id, s := range out {
		if s.shares&readsSources != 0 {
			sharing = append(sharing, id)
		}
	}
	if len(sharing) > 0 {
		sort.Strings(sharing)
		views, err := loadViews(ctx, q, sharing)
		if err != nil {
			return nil, err
		}
		for id, v := range views {
			s := out[id]
			s.view = v
			out[id] = s
		}
	}
	return out, nil
}

// readPostings is the posting rows of the words in the given spaces (with
// their stats): by space, each row tagged with the word it serves (a row
// serving two words appears twice), in chunk, word and term order. The
// rows of a chunk the cache holds under its current stamp come from it;
// the others are read by the primary key (per word: its spaces in batches,
// or for a space where only some chunks changed, those chunks) and kept,
// so the cost follows the spaces searched (for an organization search, the
// ones its caller can read), never the rest of the database, and after a
// one-page edit the chunk that changed.
func readPostings(ctx context.Context, q queryer, words []string, stats map[string]spaceStats, cache *indexCache) (map[string][]postingRow, error) {
	patterns := wordPatterns(words)
	found := map[chunkKey]map[string][]termDocs{} // rows by chunk and pattern
	var spaces []string
	for s := range stats {
		spaces = append(spaces, s)
	}
	sort.Strings(spaces)
	// What to read: per pattern the spaces to read in full; per space and
	// pattern the stale chunks of a space read in part.
	whole := map[string][]string{}
	type partial struct {
		space, pattern string
		chunks         []int64
		from           string // the space holding the chunks (a sharing duplicate's source), "" for space
	}
	var parts []partial
	for _, s := range spaces {
		st := stats[s]
		n := st.chunks()
		for _, p := range patterns {
			var stale []int64
			for ch := range n {
				k := chunkKey{space: s, chunk: ch}
				if rows, ok := cache.words(k, chunkStamp(st.stamps, ch), p); ok {
					if found[k] == nil {
						found[k] = map[string][]termDocs{}
					}
					found[k][p] = rows
				} else {
					stale = append(stale, ch)
				}
			}
			switch {
			case len(stale) == 0:
			case st.view != nil:
				for _, g := range byHolder(s, st.view, stale) {
					parts = append(parts, partial{s, p, g.chunks, g.from})
				}
			case int64(len(stale)) == n:
				whole[p] = append(whole[p], s)
			default:
				parts = append(parts, partial{s, p, stale, ""})
			}
		}
	}
	// The queries: UNION ALLs of one index range per part, each served by
	// the primary key (an OR of them made SQLite scan every row of the
	// space), at most 100 parts and about 5,000 parameters per query
	// (SQLite allows 500 parts in one compound SELECT).
	var sqlParts []string
	var sqlArgs [][]any
	for _, p := range patterns {
		cond, cargs := patternSQL(p)
		for start := 0; start < len(whole[p]); start += searchBatch / 10 {
			part := whole[p][start:min(start+searchBatch/10, len(whole[p]))]
			sqlParts = append(sqlParts, `SELECT space_id, term, chunk, docs FROM search_postings WHERE space_id IN (`+placeholders(len(part))+`) AND `+cond)
			sqlArgs = append(sqlArgs, append(anySlice(part), cargs...))
		}
	}
	for _, pt := range parts {
		cond, cargs := patternSQL(pt.pattern)
		for start := 0; start < len(pt.chunks); start += searchBatch {
			chunks := pt.chunks[start:min(start+searchBatch, len(pt.chunks))]
			if pt.from != "" {
				// Another space's rows, named as the duplicate's.
				sqlParts = append(sqlParts, `SELECT CAST(? AS TEXT), term, chunk, docs FROM search_postings WHERE space_id = ? AND `+cond+` AND chunk IN (`+placeholders(len(chunks))+`)`)
				sqlArgs = append(sqlArgs, append(append([]any{pt.space, pt.from}, cargs...), anySlice(chunks)...))
				continue
			}
			sqlParts = append(sqlParts, `SELECT space_id, term, chunk, docs FROM search_postings WHERE space_id = ? AND `+cond+` AND chunk IN (`+placeholders(len(chunks))+`)`)
			sqlArgs = append(sqlArgs, append(append([]any{pt.space}, cargs...), anySlice(chunks)...))
		}
	}
	read := map[chunkKey]map[string][]termDocs{}
	row := func(sc interface{ Scan(...any) error }) error {
		var space string
		var r termDocs
		var chunk int64
		if err := sc.Scan(&space, &r.term, &chunk, &r.docs); err != nil {
			return err
		}
		k := chunkKey{space: space, chunk: chunk}
		if read[k] == nil {
			read[k] = map[string][]termDocs{}
		}
		for _, p := range patterns {
			if patternHolds(p, r.term) {
				read[k][p] = append(read[k][p], r)
			}
		}
		return nil
	}
	for start := 0; start < len(sqlParts); {
		end, n := start, 0
		for end < len(sqlParts) && end-start < 100 && (end == start || n+len(sqlArgs[end]) <= 5000) {
			n += len(sqlArgs[end])
			end++
		}
		var args []any
		for _, a := range sqlArgs[start:end] {
			args = append(args, a...)
		}
		rows, err := q.QueryContext(ctx, strings.Join(sqlParts[start:end], " UNION ALL "), args...)
		if err := eachRow(rows, err, row); err != nil {
			return nil, err
		}
		start = end
	}
	// A pattern read for a chunk got all its rows there (none is an
	// answer too): keep them, and add them to what the cache gave.
	keep := func(s, p string, ch int64) {
		k := chunkKey{space: s, chunk: ch}
		rows := read[k][p]
		cache.putWords(k, chunkStamp(stats[s].stamps, ch), p, rows)
		if len(rows) > 0 {
			if found[k] == nil {
				found[k] = map[string][]termDocs{}
			}
			found[k][p] = rows
		}
	}
	for p, ss := range whole {
		for _, s := range ss {
			for ch := range stats[s].chunks() {
				keep(s, p, ch)
			}
		}
	}
	for _, pt := range parts {
		for _, ch := range pt.chunks {
			keep(pt.space, pt.pattern, ch)
		}
	}
	// Rows by space, each once (the prefix and an exact word may both
	// hold a term), tagged with the words it serves.
	keys := make([]chunkKey, 0, len(found))
	for k := range found {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].space != keys[j].space {
			return keys[i].space < keys[j].space
		}
		return keys[i].chunk < keys[j].chunk
	})
	out := map[string][]postingRow{}
	for _, k := range keys {
		seen := map[string]bool{}
		var chunkRows []postingRow
		for _, p := range patterns {
			for _, r := range found[k][p] {
				if seen[r.term] {
					continue
				}
				seen[r.term] = true
				for _, w := range wordsOf(words, r.term) {
					chunkRows = append(chunkRows, postingRow{word: w, term: r.term, chunk: k.chunk, docs: r.docs})
				}
			}
		}
		sort.Slice(chunkRows, func(i, j int) bool {
			if chunkRows[i].word != chunkRows[j].word {
				return chunkRows[i].word < chunkRows[j].word
			}
			return chunkRows[i].term < chunkRows[j].term
		})
		out[k.space] = append(out[k.space], chunkRows...)
	}
	return out, nil
}

// rankSpaces ranks the matches of words in each of the given spaces: per
// space with a match, its number of matches and its best k (by doc); and
// the stats it read (readDocs needs their stamps).
func rankSpaces(ctx context.Context, q queryer, words, spaces []string, k int, cache *indexCache) (map[string]spaceMatches, map[string]*spaceRanking, map[string]spaceStats, error) {
	stats, err := readSpacesStats(ctx, q, spaces)
	if err != nil || len(stats) == 0 {
		return nil, nil, nil, err
	}
	postings, err := readPostings(ctx, q, words, stats, cache)
	if err != nil || len(postings) == 0 {
		return nil, nil, stats, err
	}
	rankings := map[string]*spaceRanking{}
	chunks := map[string][]int64{}
	for s, rows := range postings {
		r, err := newSpaceRankingRetired(words, stats[s], rows, stats[s].retired)
		if err != nil {
			return nil, nil, nil, err
		}
		if c := r.chunks(); len(c) > 0 {
			rankings[s], chunks[s] = r, c
		}
	}
	lengths, err := cachedLengths(ctx, q, chunks, stats, cache)
	if err != nil {
		return nil, nil, nil, err
	}
	out := map[string]spaceMatches{}
	for s, r := range rankings {
		ms, err := r.rank(chunks[s], lengths[s])
		if err != nil {
			return nil, nil, nil, err
		}
		if len(ms) > 0 {
			out[s] = spaceMatches{count: len(ms), best: bestOf(ms, k)}
		} else {
			delete(rankings, s)
		}
	}
	return out, rankings, stats, nil
}

// cachedLengths is the length rows of the given chunks of spaces: from
// the cache where it holds them under their chunk's stamp, else read
// (readLengths) and kept.
func cachedLengths(ctx context.Context, q queryer, chunks map[string][]int64, stats map[string]spaceStats, cache *indexCache) (map[string]map[int64][]byte, error) {
	out := map[string]map[int64][]byte{}
	missing := map[string][]int64{}
	for s, chs := range chunks {
		out[s] = map[int64][]byte{}
		for _, ch := range chs {
			if b, ok := cache.lengths(chunkKey{space: s, chunk: ch}, chunkStamp(stats[s].stamps, ch)); ok {
				out[s][ch] = b
			} else {
				missing[s] = append(missing[s], ch)
			}
		}
	}
	if len(missing) == 0 {
		return out, nil
	}
	read, err := readLengthsVia(ctx, q, missing, statsRoute(stats, func(ch int64) int64 { return ch }))
	if err != nil {
		return nil, err
	}
	for s, chs := range missing {
		for _, ch := range chs {
			if b := read[s][ch]; b != nil {
				out[s][ch] = b
				cache.putLengths(chunkKey{space: s, chunk: ch}, chunkStamp(stats[s].stamps, ch), b)
			}
		}
	}
	return out, nil
}

// readDocs is the page and sections of the given docs of spaces: from the
// cache where it holds them under their group's stamp, else read from
// search_pages by doc number (one query per 500) and kept.
func readDocs(ctx context.Context, q queryer, docs map[string][]int64, stats map[string]spaceStats, cache *indexCache) (map[string]map[int64]indexedDoc, error) {
	out := map[string]map[int64]indexedDoc{}
	missing := map[string][]int64{}
	for s, ds := range docs {
		out[s] = map[int64]indexedDoc{}
		for _, d := range ds {
			g := d >> groupBits
			if got, ok := cache.doc(chunkKey{space: s, chunk: g, docs: true}, groupStamp(stats[s].stamps, g), d); ok {
				out[s][d] = got
			} else {
				missing[s] = append(missing[s], d)
			}
		}
	}
	err := eachRowBySpace(ctx, q, `SELECT space_id, doc, page_id, sections FROM search_pages`, "doc", missing, statsRoute(stats, func(d int64) int64 { return d >> chunkBits }), func(sc interface{ Scan(...any) error }) error {
		var s string
		var d int64
		var b []byte
		var got indexedDoc
		if err := sc.Scan(&s, &d, &got.pageID, &b); err != nil {
			return err
		}
		if err := json.Unmarshal(b, &got.sections); err != nil {
			return fmt.Errorf("storage: search sections of page %s: %w", got.pageID, err)
		}
		out[s][d] = got
		g := d >> groupBits
		cache.putDoc(chunkKey{space: s, chunk: g, docs: true}, groupStamp(stats[s].stamps, g), d, got)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// readLengths is the search_chunks rows of the given chunks of spaces
// (their own rows).
func readLengths(ctx context.Context, q queryer, chunks map[string][]int64) (map[string]map[int64][]byte, error) {
	return readLengthsVia(ctx, q, chunks, nil)
}

// readLengthsVia is readLengths reading each chunk from the space route
// names (nil: the space itself).
func readLengthsVia(ctx context.Context, q queryer, chunks map[string][]int64, route func(space string, key int64) string) (map[string]map[int64][]byte, error) {
	out := map[string]map[int64][]byte{}
	for s := range chunks {
		out[s] = map[int64][]byte{}
	}
	err := eachRowBySpace(ctx, q, `SELECT space_id, chunk, lens FROM search_chunks`, "chunk", chunks, route, func(sc interface{ Scan(...any) error }) error {
		var s string
		var ch int64
		var b []byte
		if err := sc.Scan(&s, &ch, &b); err != nil {
			return err
		}
		out[s][ch] = b
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// eachRowBySpace runs selectFrom (a SELECT up to its FROM table) for the
// given keys of spaces (the values of col, with space_id a prefix of the
// table's key) and calls fn with every row: an OR of one (space_id, col IN)
// probe per space, about searchBatch keys per query (SQLite answers the OR
// with one index search per key). route (nil: none) names, for a sharing
// duplicate's key, the space whose rows hold it: those rows are read
// apart, their space_id read as the duplicate's (routedRows).
func eachRowBySpace(ctx context.Context, q queryer, selectFrom, col string, keys map[string][]int64, route func(space string, key int64) string, fn func(sc interface{ Scan(...any) error }) error) error {
	if route != nil {
		var err error
		if keys, err = routedRows(ctx, q, selectFrom, col, keys, route, fn); err != nil {
			return err
		}
	}
	spaces := make([]string, 0, len(keys))
	for s := range keys {
		spaces = append(spaces, s)
	}
	sort.Strings(spaces)
	var cond []string
	var args []any
	n := 0
	flush := func() error {
		if len(cond) == 0 {
			return nil
		}
		rows, err := q.QueryContext(ctx, selectFrom+` WHERE `+strings.Join(cond, ` OR `), args...)
		cond, args, n = cond[:0], args[:0], 0
		return eachRow(rows, err, fn)
	}
	for _, s := range spaces {
		for start := 0; start < len(keys[s]); start += searchBatch {
			part := keys[s][start:min(start+searchBatch, len(keys[s]))]
			cond = append(cond, `(space_id = ? AND `+col+` IN (`+placeholders(len(part))+`))`)
			args = append(append(args, s), anySlice(part)...)
			if n += len(part); n >= searchBatch {
				if err := flush(); err != nil {
					return err
				}
			}
		}
	}
	return flush()
}

// spaceMatches is one space's number of matching pages and its best ones.
type spaceMatches struct {
	count int
	best  []match
}

// sectionHits is the sections of a page to show for a query, best first,
// at most n: those holding a word of the query (the last as a prefix),
// scored by the idf of the terms they hold (title words weighted), with an
// excerpt of about 24 words around the first match in the body.
func sectionHits(words []string, idf map[string]float64, sections []SearchSection, n int) []SearchHit {
	type scored struct {
		ordinal int
		score   float64
		hit     SearchHit
	}
	var found []scored
	for i, s := range sections {
		score := 0.0
		tf := map[string]float64{}
		for _, t := range tokens(s.Title) {
			if len(wordsOf(words, t.term)) > 0 {
				tf[t.term] += titleWeight
			}
		}
		body := tokens(s.Body)
		first := -1
		for j, t := range body {
			if len(wordsOf(words, t.term)) > 0 {
				tf[t.term]++
				if first < 0 {
					first = j
				}
			}
		}
		if len(tf) == 0 {
			continue
		}
		for t, f := range tf {
			w, ok := idf[t]
			if !ok {
				w = 1
			}
			score += w * f / (f + bm25K1)
		}
		found = append(found, scored{i, score, SearchHit{SectionID: s.ID, Title: s.Title, Excerpt: excerpt(s.Body, body, first)}})
	}
	sort.SliceStable(found, func(i, j int) bool {
		if found[i].score != found[j].score {
			return found[i].score > found[j].score
		}
		return found[i].ordinal < found[j].ordinal
	})
	var out []SearchHit
	for _, f := range found[:min(n, len(found))] {
		out = append(out, f.hit)
	}
	return out
}

// excerptWords is the length of an excerpt in words.
const excerptWords = 24

// excerpt is about excerptWords words of body around its word first (the
// start when no word matched), with "…" where it is cut.
func excerpt(body string, words []token, first int) string {
	if len(words) == 0 {
		return ""
	}
	start := 0
	if first > excerptWords/3 {
		start = first - excerptWords/3
	}
	end := min(start+excerptWords, len(words))
	if end-start < excerptWords {
		start = max(0, end-excerptWords)
	}
	from, to := 0, len(body) // the whole text at an end not cut
	if start > 0 {
		from = words[start].start
	}
	if end < len(words) {
		to = words[end-1].end
	}
	out := body[from:to]
	if start > 0 {
		out = "…" + out
	}
	if end < len(words) {
		out += "…"
	}
	return out
}

// routedRows reads for eachRowBySpace the keys route sends to another
// space than their own (UNION ALLs of one probe per space and holder, the
// holder's space_id replaced by the duplicate's) and returns the others.
func routedRows(ctx context.Context, q queryer, selectFrom, col string, keys map[string][]int64, route func(space string, key int64) string, fn func(sc interface{ Scan(...any) error }) error) (map[string][]int64, error) {
	type group struct {
		space, from string
		keys        []int64
	}
	var groups []group
	own := map[string][]int64{}
	spaces := make([]string, 0, len(keys))
	for s := range keys {
		spaces = append(spaces, s)
	}
	sort.Strings(spaces)
	for _, s := range spaces {
		byFrom := map[string][]int64{}
		var froms []string
		for _, k := range keys[s] {
			from := route(s, k)
			if from == s {
				own[s] = append(own[s], k)
				continue
			}
			if byFrom[from] == nil {
				froms = append(froms, from)
			}
			byFrom[from] = append(byFrom[from], k)
		}
		for _, f := range froms {
			groups = append(groups, group{s, f, byFrom[f]})
		}
	}
	routed := strings.Replace(selectFrom, "space_id", "CAST(? AS TEXT)", 1)
	var parts []string
	var args []any
	n := 0
	flush := func() error {
		if len(parts) == 0 {
			return nil
		}
		rows, err := q.QueryContext(ctx, strings.Join(parts, " UNION ALL "), args...)
		parts, args, n = parts[:0], args[:0], 0
		return eachRow(rows, err, fn)
	}
	for _, g := range groups {
		for start := 0; start < len(g.keys); start += searchBatch {
			part := g.keys[start:min(start+searchBatch, len(g.keys))]
			parts = append(parts, routed+` WHERE space_id = ? AND `+col+` IN (`+placeholders(len(part))+`)`)
			args = append(append(args, g.space, g.from), anySlice(part)...)
			if n += len(part); n >= searchBatch || len(parts) >= 100 {
				if err := flush(); err != nil {
					return nil, err
				}
			}
		}
	}
	return own, flush()
}

// statsRoute routes the keys of sharing duplicates (those with a view in
// stats) to the space holding their chunk (chunk: a key's chunk); nil
// when none shares.
func statsRoute(stats map[string]spaceStats, chunk func(key int64) int64) func(space string, key int64) string {
	sharing := false
	for _, s := range stats {
		if s.view != nil {
			sharing = true
			break
		}
	}
	if !sharing {
		return nil
	}
	return func(space string, key int64) string {
		return holder(space, stats[space].view, chunk(key))
	}
}

// chunkGroup is chunks of a space's index held by one space.
type chunkGroup struct {
	from   string // "": the space itself
	chunks []int64
}

// byHolder groups chunks of space's index by the space holding them, in
// the order they first appear.
func byHolder(space string, v *searchView, chunks []int64) []chunkGroup {
	var out []chunkGroup
	at := map[string]int{}
	for _, c := range chunks {
		h := holder(space, v, c)
		if h == space {
			h = ""
		}
		i, ok := at[h]
		if !ok {
			i = len(out)
			at[h] = i
			out = append(out, chunkGroup{from: h})
		}
		out[i].chunks = append(out[i].chunks, c)
	}
	return out
}
