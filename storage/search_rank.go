package storage

// Ranking over the search index (search_index.go): a query reads the
// posting rows of its words (the last word a prefix: a range of terms),
// intersects them chunk by chunk in Go (a page matches when it holds every
// word; for the prefix, any term it starts), scores every match with BM25
// and keeps the best offset+limit in a heap; the exact count falls out of
// the same pass.

import (
	"bytes"
	"container/heap"
	"context"
	"math"
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

// wordsQuery is the SQL condition on term for the words (all exact, the
// last a prefix) and its arguments.
func wordsQuery(words []string) (string, []any) {
	exact := dedupe(words[:len(words)-1])
	last := words[len(words)-1]
	cond := `(term >= ? AND term < ?)`
	args := []any{last, last + string(utf8.MaxRune)}
	if len(exact) > 0 {
		cond = `(term IN (` + placeholders(len(exact)) + `) OR ` + cond + `)`
		args = append(anySlice(exact), args...)
	}
	return cond, args
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

// scoredPage is a match: its page id and BM25 score (higher is better).
type scoredPage struct {
	pageID string
	score  float64
}

// better orders matches: higher score first, then page id.
func better(a, b scoredPage) bool {
	if a.score != b.score {
		return a.score > b.score
	}
	return a.pageID < b.pageID
}

// topPages keeps the best k matches: a heap whose root is the worst kept.
type topPages struct {
	k    int
	list []scoredPage
}

func (t *topPages) Len() int           { return len(t.list) }
func (t *topPages) Less(i, j int) bool { return better(t.list[j], t.list[i]) }
func (t *topPages) Swap(i, j int)      { t.list[i], t.list[j] = t.list[j], t.list[i] }
func (t *topPages) Push(x any)         { t.list = append(t.list, x.(scoredPage)) }
func (t *topPages) Pop() any {
	x := t.list[len(t.list)-1]
	t.list = t.list[:len(t.list)-1]
	return x
}

// offer keeps a match if it is among the best k; id is its page id as
// bytes of a chunk row, made a string only when kept.
func (t *topPages) offer(score float64, id []byte) {
	if t.k <= 0 {
		return
	}
	if len(t.list) == t.k {
		w := t.list[0]
		if score < w.score || (score == w.score && bytes.Compare(id, []byte(w.pageID)) >= 0) {
			return
		}
		t.list[0] = scoredPage{string(id), score}
		heap.Fix(t, 0)
		return
	}
	heap.Push(t, scoredPage{string(id), score})
}

// sorted is the kept matches, best first.
func (t *topPages) sorted() []scoredPage {
	out := append([]scoredPage(nil), t.list...)
	sort.Slice(out, func(i, j int) bool { return better(out[i], out[j]) })
	return out
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

// rank scores every match (pages holding every word) and keeps the best k
// in top; chunkRows are the search_chunks rows of the candidate chunks.
// It returns the number of matches.
func (s *spaceRanking) rank(chunkRows map[int64][]byte, top *topPages) (int, error) {
	byChunk := map[int64][]postingRow{}
	for _, r := range s.rows {
		byChunk[r.chunk] = append(byChunk[r.chunk], r)
	}
	avg := 1.0
	if s.stats.docs > 0 && s.stats.length > 0 {
		avg = float64(s.stats.length) / float64(s.stats.docs)
	}
	var (
		lens    [chunkDocs]float64
		matched [chunkDocs]int32 // words matched so far (the doc is out once it misses one)
		score   [chunkDocs]float64
		ids     [chunkDocs][]byte
	)
	count := 0
	for _, ch := range s.chunks() {
		rows := byChunk[ch]
		if chunkRows[ch] == nil {
			continue
		}
		sort.Slice(rows, func(i, j int) bool { return rows[i].word < rows[j].word })
		r, err := newPostingReader(chunkRows[ch], true)
		if err != nil {
			return 0, err
		}
		for i := range matched {
			matched[i], score[i] = 0, 0
		}
		for {
			off, n, id, ok, err := r.next()
			if err != nil {
				return 0, err
			}
			if !ok {
				break
			}
			lens[off], ids[off] = float64(n), id
			matched[off] = 1 // live doc: word w is matched when matched == w+1 before it
		}
		for _, pr := range rows {
			w := int32(pr.word)
			idf := s.idf[pr.term]
			p, err := newPostingReader(pr.docs, false)
			if err != nil {
				return 0, err
			}
			for {
				off, tf, _, ok, err := p.next()
				if err != nil {
					return 0, err
				}
				if !ok {
					break
				}
				m := matched[off]
				if m != w+1 && m != w+2 { // not live, or missed an earlier word
					continue
				}
				matched[off] = w + 2
				f := float64(tf)
				score[off] += idf * f * (bm25K1 + 1) / (f + bm25K1*(1-bm25B+bm25B*lens[off]/avg))
			}
		}
		want := int32(len(s.words)) + 1
		for off := range matched {
			if matched[off] == want {
				count++
				top.offer(score[off], ids[off])
			}
		}
	}
	return count, nil
}

// readPostings is the posting rows of the words in the given spaces: by
// space, each row tagged with the word it serves (a row serving two words
// appears twice).
func readPostings(ctx context.Context, q queryer, words []string, spaces []string) (map[string][]postingRow, error) {
	cond, args := wordsQuery(words)
	out := map[string][]postingRow{}
	scan := func(sql string, args []any, keep func(string) bool) error {
		rows, err := q.QueryContext(ctx, sql, args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var space, term string
			var chunk int64
			var docs []byte
			if err := rows.Scan(&space, &term, &chunk, &docs); err != nil {
				return err
			}
			if !keep(space) {
				continue
			}
			for _, w := range wordsOf(words, term) {
				out[space] = append(out[space], postingRow{word: w, term: term, chunk: chunk, docs: docs})
			}
		}
		return rows.Err()
	}
	// A few spaces: their rows by the primary key; many (an organization's):
	// the terms' rows across spaces by the term index, the others skipped.
	if len(spaces) <= searchBatch/10 {
		sargs := append(anySlice(spaces), args...)
		err := scan(`SELECT space_id, term, chunk, docs FROM search_postings WHERE space_id IN (`+placeholders(len(spaces))+`) AND `+cond, sargs,
			func(string) bool { return true })
		return out, err
	}
	in := make(map[string]bool, len(spaces))
	for _, s := range spaces {
		in[s] = true
	}
	err := scan(`SELECT space_id, term, chunk, docs FROM search_postings WHERE `+cond, args, func(s string) bool { return in[s] })
	return out, err
}

// readSpacesStats is the search_spaces rows of the given spaces.
func readSpacesStats(ctx context.Context, q queryer, spaces []string) (map[string]spaceStats, error) {
	out := map[string]spaceStats{}
	for start := 0; start < len(spaces); start += searchBatch {
		part := spaces[start:min(start+searchBatch, len(spaces))]
		rows, err := q.QueryContext(ctx, `SELECT space_id, docs, total_len, next_doc FROM search_spaces WHERE space_id IN (`+placeholders(len(part))+`)`, anySlice(part)...)
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			var id string
			var s spaceStats
			if err := rows.Scan(&id, &s.docs, &s.length, &s.next); err != nil {
				rows.Close()
				return nil, err
			}
			out[id] = s
		}
		rows.Close()
		if err := rows.Err(); err != nil {
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
	out := map[string]spaceMatches{}
	rankings := map[string]*spaceRanking{}
	for _, s := range found {
		r := newSpaceRanking(words, stats[s], postings[s])
		chunks := r.chunks()
		if len(chunks) == 0 {
			continue
		}
		rows, err := readChunkRows(ctx, q, s, chunks)
		if err != nil {
			return nil, nil, err
		}
		top := &topPages{k: k}
		n, err := r.rank(rows, top)
		if err != nil {
			return nil, nil, err
		}
		if n > 0 {
			out[s] = spaceMatches{count: n, best: top.sorted()}
			rankings[s] = r
		}
	}
	return out, rankings, nil
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
