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

// wordsQueries is the SQL queries of the posting rows of words (all
// exact, the last a prefix: a range of terms) from where (a condition on
// space_id, with whereArgs): UNION ALLs of one index range per word, each
// served by an index (an OR of them made SQLite scan every row of the
// space), at most 100 per query (SQLite allows 500 in one compound
// SELECT; a 512-character query may have 256 words).
func wordsQueries(words []string, where string, whereArgs []any) (queries []string, args [][]any) {
	var parts []string
	var pargs [][]any
	for _, w := range dedupe(words[:len(words)-1]) {
		parts = append(parts, `SELECT space_id, term, chunk, docs FROM search_postings WHERE `+where+` AND term = ?`)
		pargs = append(pargs, append(append([]any(nil), whereArgs...), w))
	}
	last := words[len(words)-1]
	parts = append(parts, `SELECT space_id, term, chunk, docs FROM search_postings WHERE `+where+` AND term >= ? AND term < ?`)
	pargs = append(pargs, append(append([]any(nil), whereArgs...), last, last+string(utf8.MaxRune)))
	for start := 0; start < len(parts); start += 100 {
		end := min(start+100, len(parts))
		queries = append(queries, strings.Join(parts[start:end], " UNION ALL "))
		var a []any
		for _, p := range pargs[start:end] {
			a = append(a, p...)
		}
		args = append(args, a)
	}
	return queries, args
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
}

// newSpaceRanking groups rows (each tagged with the words it serves) and
// computes each term's idf from its doc frequency in the space.
func newSpaceRanking(words []string, stats spaceStats, rows []postingRow) *spaceRanking {
	df := map[string]int{}
	seen := map[termChunk]bool{}
	for _, r := range rows {
		if k := (termChunk{r.term, r.chunk}); !seen[k] {
			seen[k] = true
			df[r.term] += postingCount(r.docs)
		}
	}
	idf := make(map[string]float64, len(df))
	n := float64(stats.docs)
	for t, f := range df {
		idf[t] = math.Log(1 + (n-float64(f)+0.5)/(float64(f)+0.5))
	}
	return &spaceRanking{words: words, stats: stats, rows: rows, idf: idf}
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

// rank scores every match (docs holding every word); lengths are the
// search_chunks rows of the candidate chunks.
func (s *spaceRanking) rank(lengths map[int64][]byte) ([]match, error) {
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
		matched [chunkDocs]int32 // 1 + the words matched so far (a doc is out once it misses one)
		score   [chunkDocs]float64
		out     = make([]match, 0, min(slices.Min(perWord), int(s.stats.docs)))
	)
	for _, ch := range s.chunks() {
		rows := byChunk[ch]
		lens := lengths[ch]
		sort.Slice(rows, func(i, j int) bool { return rows[i].word < rows[j].word })
		for i := range matched {
			matched[i], score[i] = 1, 0
		}
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
				m := matched[off]
				if m != w+1 && m != w+2 { // missed an earlier word
					continue
				}
				matched[off] = w + 2
				f := float64(tf)
				score[off] += idf * f * (bm25K1 + 1) / (f + bm25K1*(1-bm25B+bm25B*float64(lengthAt(lens, off))/avg))
			}
		}
		want := int32(len(s.words)) + 1
		for off := range matched {
			if matched[off] == want {
				out = append(out, match{ch<<chunkBits | int64(off), score[off]})
			}
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

// pageIDsOf is the page ids of docs of spaces, read by doc number.
func pageIDsOf(ctx context.Context, q queryer, docs map[string][]int64) (map[string]map[int64]string, error) {
	out := map[string]map[int64]string{}
	type pair struct {
		space string
		doc   int64
	}
	var pairs []pair
	for s, ds := range docs {
		out[s] = map[int64]string{}
		for _, d := range ds {
			pairs = append(pairs, pair{s, d})
		}
	}
	for start := 0; start < len(pairs); start += searchBatch {
		part := pairs[start:min(start+searchBatch, len(pairs))]
		var cond []string
		var args []any
		for i, p := range part {
			if i == 0 || p.space != part[i-1].space {
				cond = append(cond, `(space_id = ? AND doc IN (`)
				args = append(args, p.space)
			}
			cond[len(cond)-1] += `?, `
			args = append(args, p.doc)
		}
		for i := range cond {
			cond[i] = strings.TrimSuffix(cond[i], `, `) + `))`
		}
		rows, err := q.QueryContext(ctx, `SELECT space_id, doc, page_id FROM search_pages WHERE `+strings.Join(cond, ` OR `), args...)
		if err := eachRow(rows, err, func(sc interface{ Scan(...any) error }) error {
			var s, id string
			var d int64
			if err := sc.Scan(&s, &d, &id); err != nil {
				return err
			}
			out[s][d] = id
			return nil
		}); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// topPages is, per space, its best k matches with their page ids (read
// for those only, in one batch for every space).
func topPages(ctx context.Context, q queryer, matches map[string][]match, k int) (map[string][]scoredPage, error) {
	best := map[string][]match{}
	byDoc := map[string][]int64{}
	for s, ms := range matches {
		best[s] = bestOf(ms, k)
		for _, m := range best[s] {
			byDoc[s] = append(byDoc[s], m.doc)
		}
	}
	ids, err := pageIDsOf(ctx, q, byDoc)
	if err != nil {
		return nil, err
	}
	out := map[string][]scoredPage{}
	for s, ms := range best {
		pages := make([]scoredPage, 0, len(ms))
		for _, m := range ms {
			pages = append(pages, scoredPage{pageID: ids[s][m.doc], score: m.score, doc: m.doc})
		}
		out[s] = pages
	}
	return out, nil
}

// readPostings is the posting rows of the words in the given spaces: by
// space, each row tagged with the word it serves (a row serving two words
// appears twice). The rows are read by the primary key, spaces in batches,
// so the cost follows the spaces searched (for an organization search, the
// ones its caller can read), never the rest of the database.
func readPostings(ctx context.Context, q queryer, words []string, spaces []string) (map[string][]postingRow, error) {
	out := map[string][]postingRow{}
	type rowKey struct {
		space, term string
		chunk       int64
	}
	seen := map[rowKey]bool{} // a row the prefix and an exact word both read
	row := func(sc interface{ Scan(...any) error }) error {
		var space, term string
		var chunk int64
		var docs []byte
		if err := sc.Scan(&space, &term, &chunk, &docs); err != nil {
			return err
		}
		k := rowKey{space, term, chunk}
		if seen[k] {
			return nil
		}
		seen[k] = true
		for _, w := range wordsOf(words, term) {
			out[space] = append(out[space], postingRow{word: w, term: term, chunk: chunk, docs: docs})
		}
		return nil
	}
	// 50 spaces a query: with up to 100 words in one UNION ALL, about 5,000
	// parameters, under both engines' limits.
	const spacesPerQuery = searchBatch / 10
	for start := 0; start < len(spaces); start += spacesPerQuery {
		part := spaces[start:min(start+spacesPerQuery, len(spaces))]
		queries, args := wordsQueries(words, `space_id IN (`+placeholders(len(part))+`)`, anySlice(part))
		for i, sql := range queries {
			rows, err := q.QueryContext(ctx, sql, args[i]...)
			if err := eachRow(rows, err, row); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

// readSpacesStats is the search_spaces rows of the given spaces.
func readSpacesStats(ctx context.Context, q queryer, spaces []string) (map[string]spaceStats, error) {
	out := map[string]spaceStats{}
	for start := 0; start < len(spaces); start += searchBatch {
		part := spaces[start:min(start+searchBatch, len(spaces))]
		rows, err := q.QueryContext(ctx, `SELECT space_id, docs, total_len, next_doc FROM search_spaces WHERE space_id IN (`+placeholders(len(part))+`)`, anySlice(part)...)
		if err := eachRow(rows, err, func(sc interface{ Scan(...any) error }) error {
			var id string
			var s spaceStats
			err := sc.Scan(&id, &s.docs, &s.length, &s.next)
			out[id] = s
			return err
		}); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// rankSpaces ranks the matches of words in each of the given spaces: per
// space with a match, its number of matches and its best k pages.
func rankSpaces(ctx context.Context, q queryer, words, spaces []string, k int) (map[string]spaceMatches, map[string]*spaceRanking, error) {
	postings, err := readPostings(ctx, q, words, spaces)
	if err != nil || len(postings) == 0 {
		return nil, nil, err
	}
	var found []string
	for s := range postings {
		found = append(found, s)
	}
	sort.Strings(found)
	stats, err := readSpacesStats(ctx, q, found)
	if err != nil {
		return nil, nil, err
	}
	rankings := map[string]*spaceRanking{}
	chunks := map[string][]int64{}
	for _, s := range found {
		r := newSpaceRanking(words, stats[s], postings[s])
		if c := r.chunks(); len(c) > 0 {
			rankings[s], chunks[s] = r, c
		}
	}
	lengths, err := readLengths(ctx, q, chunks)
	if err != nil {
		return nil, nil, err
	}
	all := map[string][]match{}
	for s, r := range rankings {
		ms, err := r.rank(lengths[s])
		if err != nil {
			return nil, nil, err
		}
		if len(ms) > 0 {
			all[s] = ms
		} else {
			delete(rankings, s)
		}
	}
	top, err := topPages(ctx, q, all, k)
	if err != nil {
		return nil, nil, err
	}
	out := map[string]spaceMatches{}
	for s, ms := range all {
		out[s] = spaceMatches{count: len(ms), best: top[s]}
	}
	return out, rankings, nil
}

// readLengths is the search_chunks rows of the given chunks of spaces.
func readLengths(ctx context.Context, q queryer, chunks map[string][]int64) (map[string]map[int64][]byte, error) {
	out := map[string]map[int64][]byte{}
	var spaces []string
	for s := range chunks {
		spaces = append(spaces, s)
		out[s] = map[int64][]byte{}
	}
	sort.Strings(spaces)
	var cond []string
	var args []any
	n := 0
	flush := func() error {
		if len(cond) == 0 {
			return nil
		}
		rows, err := q.QueryContext(ctx, `SELECT space_id, chunk, lens FROM search_chunks WHERE `+strings.Join(cond, ` OR `), args...)
		cond, args, n = cond[:0], args[:0], 0
		return eachRow(rows, err, func(sc interface{ Scan(...any) error }) error {
			var s string
			var ch int64
			var b []byte
			if err := sc.Scan(&s, &ch, &b); err != nil {
				return err
			}
			out[s][ch] = b
			return nil
		})
	}
	for _, s := range spaces {
		for start := 0; start < len(chunks[s]); start += searchBatch {
			part := chunks[s][start:min(start+searchBatch, len(chunks[s]))]
			cond = append(cond, `(space_id = ? AND chunk IN (`+placeholders(len(part))+`))`)
			args = append(append(args, s), anySlice(part)...)
			if n += len(part); n >= searchBatch {
				if err := flush(); err != nil {
					return nil, err
				}
			}
		}
	}
	return out, flush()
}

// spaceMatches is one space's number of matching pages and its best ones.
type spaceMatches struct {
	count int
	best  []scoredPage
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
