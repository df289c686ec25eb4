package storage

// The search index: an inverted index of our own in plain tables, the same
// on SQLite and PostgreSQL (migration 0010_search_index), written in the
// transaction that changes a space's active revision.
//
//   - search_pages: one row per doc of a space (keyed by doc, migration
//     0033a), with its page and sections (title and body, JSON), from
//     which the page's terms are read again when it changes or goes, and
//     its excerpts are cut. Doc numbers are dense per space: new pages take
//     the space's next one, a changed page keeps its own, except in an
//     import (renumber), where it takes a new one as a batched import
//     indexes it ahead. A page's live doc is its row below next_doc that is
//     not retired (search_retire.go): a batched import's docs ahead and
//     retired docs not yet swept are other rows of the same page.
//   - search_postings: per (space, term, chunk of chunkDocs doc numbers) the
//     docs holding the term in that chunk with their term frequency (a
//     section-title word counts titleWeight times), delta- and
//     varint-encoded (postingCodec).
//   - search_chunks: per (space, chunk) each doc's length (BM25 needs it
//     for every match), a fixed two bytes per doc number so that a query
//     reads a match's length without decoding the row.
//   - search_spaces: per space the number of docs, their total length and
//     the next doc number.
//
// A change of n pages rewrites the posting rows of their terms in their
// chunks (bounded by chunkDocs docs each) and their chunks' rows: work
// proportional to the change, in one batch per revision.

import (
	"context"
	"database/sql"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

const (
	// chunkBits: a posting row covers 1<<chunkBits doc numbers, so a page
	// edit rewrites at most that many docs per term (about 10 KB for a word
	// on every page) and a query over 100,000 pages reads at most 25 rows
	// per term (1,024 made a prefix of 11 rare terms read 1,078 rows).
	chunkBits = 12
	chunkDocs = 1 << chunkBits
	// titleWeight: a word in a section title counts as this many in a body.
	titleWeight = 5
	// maxTermBytes bounds a term (longer words are cut, on a rune boundary,
	// the same way in pages and queries).
	maxTermBytes = 64
	// searchBatch bounds the ids or keys of one IN list.
	searchBatch = 500
)

// token is one word of a text: its folded term and its byte span.
type token struct {
	term       string
	start, end int
}

// isWordRune: words are runs of letters, digits and combining marks.
func isWordRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r)
}

// tokens cuts text into words and folds each (foldTerm).
func tokens(text string) []token {
	var out []token
	start := -1
	for i, r := range text {
		if isWordRune(r) {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			if t := foldTerm(text[start:i]); t != "" {
				out = append(out, token{t, start, i})
			}
			start = -1
		}
	}
	if start >= 0 {
		if t := foldTerm(text[start:]); t != "" {
			out = append(out, token{t, start, len(text)})
		}
	}
	return out
}

// foldTerm is a word as the index holds it: lower case, without accents
// (decomposed, combining marks dropped: "Café" and "cafe" are one term),
// at most maxTermBytes long.
func foldTerm(w string) string {
	ascii := true
	for i := 0; i < len(w); i++ {
		if w[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	var b strings.Builder
	if ascii {
		b.Grow(len(w))
		for i := 0; i < len(w) && i < maxTermBytes; i++ {
			c := w[i]
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			b.WriteByte(c)
		}
		return b.String()
	}
	for _, r := range norm.NFD.String(w) {
		if unicode.Is(unicode.Mn, r) {
			continue
		}
		r = unicode.ToLower(r)
		if b.Len()+utf8.RuneLen(r) > maxTermBytes {
			break
		}
		b.WriteRune(r)
	}
	return b.String()
}

// searchWords is the folded words of a query; operators typed by the user
// are taken as plain words (nil when the text has none).
func searchWords(text string) []string {
	var out []string
	for _, t := range tokens(text) {
		out = append(out, t.term)
	}
	return out
}

// pageTerms is a page's weighted term frequencies and its length (the sum
// of them).
func pageTerms(sections []SearchSection) (map[string]int, int) {
	tf := map[string]int{}
	n := 0
	for _, s := range sections {
		for _, t := range tokens(s.Title) {
			tf[t.term] += titleWeight
			n += titleWeight
		}
		for _, t := range tokens(s.Body) {
			tf[t.term]++
			n++
		}
	}
	return tf, n
}

// posting is one doc of a posting row (off: its number within the chunk)
// and its weight: the term's frequency, or in a chunk row the doc's length.
type posting struct {
	off    uint32
	weight uint32
}

// encodePostings writes docs (sorted by off): a count, then per doc the
// delta of its offset and its weight, as uvarints.
func encodePostings(docs []posting) []byte {
	b := binary.AppendUvarint(make([]byte, 0, 3*len(docs)+2), uint64(len(docs)))
	prev := uint32(0)
	for _, d := range docs {
		b = binary.AppendUvarint(b, uint64(d.off-prev))
		b = binary.AppendUvarint(b, uint64(d.weight))
		prev = d.off
	}
	return b
}

// maxLength is the largest doc length a chunk row holds (longer pages
// count as this long: BM25 barely tells them apart).
const maxLength = 1<<16 - 1

// encodeLengths writes a chunk row: two bytes (little endian) per doc
// number up to the last live doc, 0 for no doc.
func encodeLengths(docs []posting) []byte {
	if len(docs) == 0 {
		return nil
	}
	b := make([]byte, 2*(docs[len(docs)-1].off+1))
	for _, d := range docs {
		binary.LittleEndian.PutUint16(b[2*d.off:], uint16(max(1, min(d.weight, maxLength))))
	}
	return b
}

// lengthAt is a doc's length in a chunk row (0: no doc).
func lengthAt(b []byte, off uint32) uint32 {
	if int(2*off+1) >= len(b) {
		return 0
	}
	return uint32(binary.LittleEndian.Uint16(b[2*off:]))
}

// decodeLengths is the docs of a chunk row.
func decodeLengths(b []byte) ([]posting, error) {
	if len(b)%2 != 0 || len(b) > 2*chunkDocs {
		return nil, errCorruptPostings
	}
	var out []posting
	for off := uint32(0); int(2*off) < len(b); off++ {
		if n := lengthAt(b, off); n > 0 {
			out = append(out, posting{off, n})
		}
	}
	return out, nil
}

var errCorruptPostings = errors.New("storage: corrupt search postings")

// postingReader walks an encoded posting row without allocating.
type postingReader struct {
	b    []byte
	left uint64
	off  uint32
	seen bool // a doc was read: the next offsets must grow
}

func newPostingReader(b []byte) (postingReader, error) {
	n, k := binary.Uvarint(b)
	if k <= 0 || n > chunkDocs {
		return postingReader{}, errCorruptPostings
	}
	return postingReader{b: b[k:], left: n}, nil
}

// count is the number of docs in the row.
func postingCount(b []byte) int {
	n, k := binary.Uvarint(b)
	if k <= 0 {
		return 0
	}
	return int(n)
}

// next is the next doc's offset and weight.
func (r *postingReader) next() (off, weight uint32, ok bool, err error) {
	if r.left == 0 {
		return 0, 0, false, nil
	}
	r.left--
	d, k := binary.Uvarint(r.b)
	if k <= 0 {
		return 0, 0, false, errCorruptPostings
	}
	r.b = r.b[k:]
	w, k := binary.Uvarint(r.b)
	if k <= 0 || w > 1<<31 {
		return 0, 0, false, errCorruptPostings
	}
	r.b = r.b[k:]
	if d >= chunkDocs || uint64(r.off)+d >= chunkDocs || (d == 0 && r.seen) {
		return 0, 0, false, errCorruptPostings
	}
	r.off += uint32(d)
	r.seen = true
	return r.off, uint32(w), true, nil
}

// decodePostings is every doc of a row, in order.
func decodePostings(b []byte) ([]posting, error) {
	r, err := newPostingReader(b)
	if err != nil {
		return nil, err
	}
	out := make([]posting, 0, r.left)
	for {
		off, w, ok, err := r.next()
		if err != nil {
			return nil, err
		}
		if !ok {
			return out, nil
		}
		out = append(out, posting{off: off, weight: w})
	}
}

// rowEdit is the change to one posting or chunk row: docs leaving it and
// docs entering it (or changing weight).
type rowEdit struct {
	drop map[uint32]bool
	put  map[uint32]posting
}

func (e *rowEdit) apply(old []posting) []posting {
	out := old[:0:0]
	for _, d := range old {
		if e.drop[d.off] {
			continue
		}
		if _, ok := e.put[d.off]; ok {
			continue
		}
		out = append(out, d)
	}
	for _, d := range e.put {
		out = append(out, d)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].off < out[j].off })
	return out
}

type termChunk struct {
	term  string
	chunk int64
}

// indexChange gathers one batch of changes to a space's index.
type indexChange struct {
	spaceID  string
	postings map[termChunk]*rowEdit
	chunks   map[int64]*rowEdit
	docs     int64 // change in the number of docs
	length   int64 // change in their total length
}

func newIndexChange(spaceID string) *indexChange {
	return &indexChange{spaceID: spaceID, postings: map[termChunk]*rowEdit{}, chunks: map[int64]*rowEdit{}}
}

func edit(m map[termChunk]*rowEdit, k termChunk) *rowEdit {
	e := m[k]
	if e == nil {
		e = &rowEdit{drop: map[uint32]bool{}, put: map[uint32]posting{}}
		m[k] = e
	}
	return e
}

func (c *indexChange) chunkEdit(chunk int64) *rowEdit {
	e := c.chunks[chunk]
	if e == nil {
		e = &rowEdit{drop: map[uint32]bool{}, put: map[uint32]posting{}}
		c.chunks[chunk] = e
	}
	return e
}

// remove takes doc (with these sections) out of the index.
func (c *indexChange) remove(doc int64, sections []SearchSection) {
	tf, n := pageTerms(sections)
	chunk, off := doc>>chunkBits, uint32(doc&(chunkDocs-1))
	for term := range tf {
		edit(c.postings, termChunk{term, chunk}).drop[off] = true
	}
	c.chunkEdit(chunk).drop[off] = true
	c.docs--
	c.length -= int64(n)
}

// add puts doc (with these sections) in the index; a doc removed in the
// same batch (a changed page) is replaced.
func (c *indexChange) add(doc int64, sections []SearchSection) {
	tf, n := pageTerms(sections)
	chunk, off := doc>>chunkBits, uint32(doc&(chunkDocs-1))
	for term, f := range tf {
		e := edit(c.postings, termChunk{term, chunk})
		delete(e.drop, off)
		e.put[off] = posting{off: off, weight: uint32(f)}
	}
	e := c.chunkEdit(chunk)
	delete(e.drop, off)
	e.put[off] = posting{off: off, weight: uint32(n)}
	c.docs++
	c.length += int64(n)
}

// touched is the chunks the batch changes, in order.
func (c *indexChange) touched() []int64 {
	out := make([]int64, 0, len(c.chunks))
	for ch := range c.chunks {
		out = append(out, ch)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// spaceStats is a space's row of search_spaces: its stamps are 8 bytes
// per group of 256 doc numbers (search_cache.go).
type spaceStats struct {
	docs, length, next int64
	stamps             []byte
	shares             int64       // readsSources, hasForks (search_share.go)
	retired            retiredDocs // docs readers skip (search_retire.go)
	view               *searchView // a sharing duplicate's: where its chunks are
}

// chunks is the number of chunks the space's doc numbers span.
func (s spaceStats) chunks() int64 { return (s.next + chunkDocs - 1) >> chunkBits }

// readSpaceStats is one space's row (zero without an index).
func readSpaceStats(ctx context.Context, q queryer, spaceID string) (spaceStats, error) {
	stats, err := readSpacesStats(ctx, q, []string{spaceID})
	return stats[spaceID], err
}

// write applies the batch: the posting and chunk rows it touches are read,
// changed and written back (deleted when empty), and the space's stats.
func (c *indexChange) write(tx *Tx, stats spaceStats) error {
	if err := c.writeRows(tx); err != nil {
		return err
	}
	stats.docs += c.docs
	stats.length += c.length
	// Every group of docs this batch changed takes a new stamp, and so
	// its chunk (whose posting and length rows it rewrote) a new
	// combined one.
	stats.stamps = restamp(stats.stamps, (stats.next-1)>>groupBits, c.chunks)
	return writeSpaceStats(tx, c.spaceID, stats)
}

// writeRows is write without the space's stats: the posting and chunk
// rows (a batched import's staged docs, which readers do not see until
// the stats count them).
func (c *indexChange) writeRows(tx *Tx) error {
	// Posting rows, chunk by chunk, terms in batches.
	byChunk := map[int64][]string{}
	for k := range c.postings {
		byChunk[k.chunk] = append(byChunk[k.chunk], k.term)
	}
	var puts [][]any
	for chunk, terms := range byChunk {
		sort.Strings(terms)
		for start := 0; start < len(terms); start += searchBatch {
			part := terms[start:min(start+searchBatch, len(terms))]
			old := map[string][]byte{}
			rows, err := tx.QueryContext(tx.ctx, `SELECT term, docs FROM search_postings WHERE space_id = ? AND chunk = ? AND term IN (`+placeholders(len(part))+`)`,
				append([]any{c.spaceID, chunk}, anySlice(part)...)...)
			if err := eachRow(rows, err, func(sc interface{ Scan(...any) error }) error {
				var t string
				var b []byte
				err := sc.Scan(&t, &b)
				old[t] = b
				return err
			}); err != nil {
				return err
			}
			var gone []any
			for _, t := range part {
				docs, err := decodeOld(old[t], decodePostings)
				if err != nil {
					return err
				}
				docs = c.postings[termChunk{t, chunk}].apply(docs)
				if len(docs) == 0 {
					if old[t] != nil {
						gone = append(gone, t)
					}
					continue
				}
				puts = append(puts, []any{c.spaceID, t, chunk, encodePostings(docs)})
			}
			if len(gone) > 0 {
				if _, err := tx.exec(`DELETE FROM search_postings WHERE space_id = ? AND chunk = ? AND term IN (`+placeholders(len(gone))+`)`,
					append([]any{c.spaceID, chunk}, gone...)...); err != nil {
					return err
				}
			}
		}
	}
	if err := upsertBatch(tx, `INSERT INTO search_postings (space_id, term, chunk, docs) VALUES `, 4, puts,
		` ON CONFLICT (space_id, term, chunk) DO UPDATE SET docs = excluded.docs`); err != nil {
		return err
	}
	// Chunk rows.
	var chunks []int64
	for ch := range c.chunks {
		chunks = append(chunks, ch)
	}
	sort.Slice(chunks, func(i, j int) bool { return chunks[i] < chunks[j] })
	puts = puts[:0]
	for start := 0; start < len(chunks); start += searchBatch {
		part := chunks[start:min(start+searchBatch, len(chunks))]
		rowsOf, err := readLengths(tx.ctx, tx, map[string][]int64{c.spaceID: part})
		if err != nil {
			return err
		}
		old := rowsOf[c.spaceID]
		var gone []any
		for _, ch := range part {
			docs, err := decodeOld(old[ch], decodeLengths)
			if err != nil {
				return err
			}
			docs = c.chunks[ch].apply(docs)
			if len(docs) == 0 {
				if old[ch] != nil {
					gone = append(gone, ch)
				}
				continue
			}
			puts = append(puts, []any{c.spaceID, ch, encodeLengths(docs)})
		}
		if len(gone) > 0 {
			if _, err := tx.exec(`DELETE FROM search_chunks WHERE space_id = ? AND chunk IN (`+placeholders(len(gone))+`)`,
				append([]any{c.spaceID}, gone...)...); err != nil {
				return err
			}
		}
	}
	if err := upsertBatch(tx, `INSERT INTO search_chunks (space_id, chunk, lens) VALUES `, 3, puts,
		` ON CONFLICT (space_id, chunk) DO UPDATE SET lens = excluded.lens`); err != nil {
		return err
	}
	return nil
}

// writeSpaceStats writes a space's row of search_spaces (its retired set
// too: stats were read in the same write).
func writeSpaceStats(tx *Tx, spaceID string, stats spaceStats) error {
	_, err := tx.exec(`INSERT INTO search_spaces (space_id, docs, total_len, next_doc, stamps, retired) VALUES (?, ?, ?, ?, ?, ?)
 ON CONFLICT (space_id) DO UPDATE SET docs = excluded.docs, total_len = excluded.total_len, next_doc = excluded.next_doc, stamps = excluded.stamps, retired = excluded.retired`,
		spaceID, stats.docs, stats.length, stats.next, stats.stamps, encodeRetired(stats.retired))
	return err
}

func decodeOld(b []byte, decode func([]byte) ([]posting, error)) ([]posting, error) {
	if b == nil {
		return nil, nil
	}
	return decode(b)
}

// indexedPage is a page's row of search_pages.
type indexedPage struct {
	doc      int64
	sections []SearchSection
}

// readIndexedPages is the live search_pages rows of the given pages of a
// space (stats: its stats row): a page's doc below next_doc and not
// retired (not a batched import's doc ahead, not one retired and not yet
// swept), and for a sharing duplicate (stats.view) the row of the space
// holding that doc's chunk. An index range per page.
func readIndexedPages(ctx context.Context, q queryer, spaceID string, stats spaceStats, pageIDs []string) (map[string]indexedPage, error) {
	v := stats.view
	out := map[string]indexedPage{}
	spaces := []any{spaceID}
	if v != nil {
		for _, s := range v.srcs {
			spaces = append(spaces, s.space)
		}
	}
	for start := 0; start < len(pageIDs); start += searchBatch {
		part := pageIDs[start:min(start+searchBatch, len(pageIDs))]
		rows, err := q.QueryContext(ctx, `SELECT space_id, page_id, doc, sections FROM search_pages WHERE space_id IN (`+placeholders(len(spaces))+`) AND page_id IN (`+placeholders(len(part))+`)`,
			append(append([]any(nil), spaces...), anySlice(part)...)...)
		if err := eachRow(rows, err, func(sc interface{ Scan(...any) error }) error {
			var space, id string
			var p indexedPage
			var b []byte
			if err := sc.Scan(&space, &id, &p.doc, &b); err != nil {
				return err
			}
			if holder(spaceID, v, p.doc>>chunkBits) != space {
				return nil // a row of a chunk another space holds for spaceID
			}
			if p.doc >= stats.next || retiredAt(stats.retired[p.doc>>chunkBits], uint32(p.doc&(chunkDocs-1))) {
				return nil // ahead of readers, or retired
			}
			if err := json.Unmarshal(b, &p.sections); err != nil {
				return fmt.Errorf("storage: search sections of page %s: %w", id, err)
			}
			out[id] = p
			return nil
		}); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// updateIndex changes a space's index in one batch: the pages in gone
// leave it, the pages in set (page id → sections) enter it or replace
// their previous sections (keeping their doc).
func updateIndex(tx *Tx, spaceID string, gone []string, set map[string][]SearchSection) error {
	return changeIndex(tx, spaceID, gone, set, false)
}

// changeIndex is updateIndex; with renumber (an import's change) a page of
// set that was indexed leaves its doc and takes the next one, in page id
// order with the new pages: the numbering a batched import's docs ahead
// have (import_batch.go), so that ties rank alike either way.
func changeIndex(tx *Tx, spaceID string, gone []string, set map[string][]SearchSection, renumber bool) error {
	if len(gone) == 0 && len(set) == 0 {
		return nil
	}
	ids := append([]string(nil), gone...)
	for id := range set {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	stats, err := readSpaceStats(tx.ctx, tx, spaceID)
	if err != nil {
		return err
	}
	old, err := readIndexedPages(tx.ctx, tx, spaceID, stats, ids)
	if err != nil {
		return err
	}
	c := newIndexChange(spaceID)
	var drop []any
	for _, id := range gone {
		if p, ok := old[id]; ok {
			c.remove(p.doc, p.sections)
			drop = append(drop, p.doc)
		}
	}
	var puts [][]any
	for _, id := range ids {
		sections, ok := set[id]
		if !ok {
			continue
		}
		doc := stats.next
		if p, had := old[id]; had && !renumber {
			c.remove(p.doc, p.sections)
			doc = p.doc
		} else {
			if had {
				c.remove(p.doc, p.sections)
				drop = append(drop, p.doc)
			}
			stats.next++
		}
		c.add(doc, sections)
		b, err := json.Marshal(sections)
		if err != nil {
			return err
		}
		puts = append(puts, []any{spaceID, id, doc, b})
	}
	// The chunks it changes become the space's own, and no duplicate
	// reads them of it any more (copy on write: search_share.go).
	if err := shareBeforeWrite(tx, spaceID, stats, c.touched()); err != nil {
		return err
	}
	for start := 0; start < len(drop); start += searchBatch {
		part := drop[start:min(start+searchBatch, len(drop))]
		if _, err := tx.exec(`DELETE FROM search_pages WHERE space_id = ? AND doc IN (`+placeholders(len(part))+`)`, append([]any{spaceID}, part...)...); err != nil {
			return err
		}
	}
	if err := upsertBatch(tx, `INSERT INTO search_pages (space_id, page_id, doc, sections) VALUES `, 4, puts,
		` ON CONFLICT (space_id, doc) DO UPDATE SET page_id = excluded.page_id, sections = excluded.sections`); err != nil {
		return err
	}
	return c.write(tx, stats)
}

// reindexSpace brings the index of spaceID from its active revision to
// tree (the revision becoming active). changed holds the pages whose
// version differs between the two (writeMainLine's diff), each with its old
// version ("" when new; a page absent from tree went away): they leave the
// index or enter it again. Other pages keep their rows, so the work follows
// the size of the change. renumber: an import's (changeIndex).
func reindexSpace(tx *Tx, spaceID string, changed map[string]string, t *Tree, an Analyzer, renumber bool) error {
	var gone []string
	set := map[string][]SearchSection{}
	seen := map[string]bool{}
	t.Walk(func(p, _ *TreePage) bool {
		prev, ok := changed[p.ID]
		if !ok {
			return true
		}
		seen[p.ID] = true
		had := prev != ""
		if p.Type != "document" || p.Meta.NoIndex || an == nil {
			if had {
				gone = append(gone, p.ID)
			}
			return true
		}
		set[p.ID] = an.Sections(p)
		return true
	})
	for id := range changed {
		if !seen[id] {
			gone = append(gone, id)
		}
	}
	sort.Strings(gone)
	return changeIndex(tx, spaceID, gone, set, renumber)
}

// searchTables are the index's tables, each keyed by space_id first.
var searchTables = []string{"search_postings", "search_chunks", "search_pages", "search_spaces", "search_owned", "search_sources"}

// dropSearchSpace removes a space's index; the duplicates reading chunks
// of it first take them in.
func dropSearchSpace(tx *Tx, spaceID string) error {
	if err := handOverChunks(tx, spaceID); err != nil {
		return err
	}
	for _, t := range searchTables {
		if _, err := tx.exec(`DELETE FROM `+t+` WHERE space_id = ?`, spaceID); err != nil {
			return err
		}
	}
	return nil
}

// copySearchSpace gives toSpace the index of fromSpace (a duplicate: same
// pages, same doc numbers), copied whole.
func copySearchSpace(tx *Tx, fromSpace, toSpace string) error {
	all, err := readSpacesStats(tx.ctx, tx, []string{fromSpace})
	if err != nil {
		return err
	}
	if st, ok := all[fromSpace]; ok && st.view != nil {
		return copySearchChunks(tx, st, fromSpace, toSpace)
	}
	// Not the docs a batched import indexes ahead (past next_doc).
	next := `(SELECT s.next_doc FROM search_spaces s WHERE s.space_id = ?)`
	chunks := fmt.Sprintf(`(SELECT (s.next_doc + %d) / %d FROM search_spaces s WHERE s.space_id = ?)`, chunkDocs-1, chunkDocs)
	for _, q := range []struct {
		sql   string
		ahead bool
	}{
		{`INSERT INTO search_postings (space_id, term, chunk, docs) SELECT ?, term, chunk, docs FROM search_postings WHERE space_id = ? AND chunk < ` + chunks, true},
		{`INSERT INTO search_chunks (space_id, chunk, lens) SELECT ?, chunk, lens FROM search_chunks WHERE space_id = ? AND chunk < ` + chunks, true},
		{`INSERT INTO search_pages (space_id, page_id, doc, sections) SELECT ?, page_id, doc, sections FROM search_pages WHERE space_id = ? AND doc < ` + next, true},
		{`INSERT INTO search_spaces (space_id, docs, total_len, next_doc, stamps, retired) SELECT ?, docs, total_len, next_doc, stamps, retired FROM search_spaces WHERE space_id = ?`, false},
	} {
		args := []any{toSpace, fromSpace}
		if q.ahead {
			args = append(args, fromSpace)
		}
		if _, err := tx.exec(q.sql, args...); err != nil {
			return err
		}
	}
	return nil
}

// backfillSearchIndex builds the index of a database migrated from the
// engines' full-text indexes (FTS5, tsvector): migration 0010 kept their
// sections in search_legacy; they are indexed space by space, a batch of
// pages per write transaction, each batch deleted from search_legacy as
// it is indexed, and the table dropped at the end. An interrupted backfill
// resumes at the next open.
func (db *DB) backfillSearchIndex(ctx context.Context) error {
	var pending int
	if err := db.read.QueryRowContext(ctx, `SELECT COUNT(*) FROM search_backfill`).Scan(&pending); err != nil || pending == 0 {
		return err
	}
	for {
		done := false
		err := db.Write(ctx, func(tx *Tx) error {
			// Under the write lock: another process opening the same
			// database (replicas starting together) may have finished.
			var left int
			if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM search_backfill`).Scan(&left); err != nil || left == 0 {
				done = true
				return err
			}
			var spaceID string
			err := tx.QueryRowContext(ctx, `SELECT space_id FROM search_legacy ORDER BY space_id LIMIT 1`).Scan(&spaceID)
			if errors.Is(err, sql.ErrNoRows) {
				done = true
				_, err = tx.exec(`DELETE FROM search_backfill`)
				if err == nil {
					_, err = tx.exec(`DROP TABLE search_legacy`)
				}
				return err
			}
			if err != nil {
				return err
			}
			// One batch: the sections of up to backfillPages pages.
			rows, err := tx.QueryContext(ctx, `SELECT page_id, section_id, ordinal, title, body FROM search_legacy WHERE space_id = ? AND page_id IN (
 SELECT DISTINCT page_id FROM search_legacy WHERE space_id = ? ORDER BY page_id LIMIT ?) ORDER BY page_id, ordinal`, spaceID, spaceID, backfillPages)
			if err != nil {
				return err
			}
			set := map[string][]SearchSection{}
			var pages []any
			for rows.Next() {
				var page string
				var ordinal int
				var s SearchSection
				if err := rows.Scan(&page, &s.ID, &ordinal, &s.Title, &s.Body); err != nil {
					rows.Close()
					return err
				}
				if _, ok := set[page]; !ok {
					pages = append(pages, page)
				}
				set[page] = append(set[page], s)
			}
			rows.Close()
			if err := rows.Err(); err != nil {
				return err
			}
			if err := updateIndex(tx, spaceID, nil, set); err != nil {
				return err
			}
			for start := 0; start < len(pages); start += searchBatch {
				part := pages[start:min(start+searchBatch, len(pages))]
				if _, err := tx.exec(`DELETE FROM search_legacy WHERE space_id = ? AND page_id IN (`+placeholders(len(part))+`)`, append([]any{spaceID}, part...)...); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return fmt.Errorf("storage: building the search index: %w", err)
		}
		if done {
			return nil
		}
	}
}

// backfillPages is the number of pages one backfill transaction indexes.
const backfillPages = 2000
