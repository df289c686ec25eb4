package storage

// Retired docs: the rule that lets a batched import index the pages it
// changes ahead, like its new pages. Searches read the set with
// the space's stats row (search_spaces.retired, migration 0032e) and
// duplicates take it with that row.
//
// A changed page gets a new doc past the space's next_doc, written by the
// batches (import_batch.go); its old doc stays in its posting and chunk
// rows until a bounded sweep rewrites them (sweepRetired, through
// shareBeforeWrite: run by the import after its publication, and by the
// periodic import-stage sweep). From the publication on, a reader skips
// the old doc: the publishing write puts it in the retired set of its
// chunk. Skipping it gives what removing it gives: no match, and each
// term's doc frequency (its idf) counted without it; the space's docs and
// total length come from the stats row, which the publishing write moves
// in the same one-row update.

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
)

// retiredDocs is, per chunk, a bitmap of the docs readers skip (bit off%8 of
// byte off/8): chunkDocs bits, 512 bytes a chunk.
type retiredDocs map[int64][]byte

// retire adds doc to the set.
func (r retiredDocs) retire(doc int64) {
	chunk, off := doc>>chunkBits, uint32(doc&(chunkDocs-1))
	bm := r[chunk]
	if bm == nil {
		bm = make([]byte, chunkDocs/8)
		r[chunk] = bm
	}
	bm[off>>3] |= 1 << (off & 7)
}

// retiredAt tells whether off is set in a chunk's bitmap (nil: none is).
func retiredAt(bm []byte, off uint32) bool {
	return bm != nil && bm[off>>3]&(1<<(off&7)) != 0
}

// liveCount is the number of docs of a posting row not retired (bm: its
// chunk's bitmap); without a bitmap it reads only the row's count.
func liveCount(docs []byte, bm []byte) (int, error) {
	if bm == nil {
		return postingCount(docs), nil
	}
	p, err := newPostingReader(docs)
	if err != nil {
		return 0, err
	}
	n := 0
	for {
		off, _, ok, err := p.next()
		if err != nil {
			return 0, err
		}
		if !ok {
			return n, nil
		}
		if !retiredAt(bm, off) {
			n++
		}
	}
}

// encodeRetired is a set as search_spaces.retired holds it: per chunk, in
// order, its number (uvarint) then its bitmap; nil for none.
func encodeRetired(r retiredDocs) []byte {
	if len(r) == 0 {
		return nil
	}
	chunks := make([]int64, 0, len(r))
	for ch := range r {
		chunks = append(chunks, ch)
	}
	slices.Sort(chunks)
	out := make([]byte, 0, len(r)*(chunkDocs/8+3))
	for _, ch := range chunks {
		out = binary.AppendUvarint(out, uint64(ch))
		out = append(out, r[ch]...)
	}
	return out
}

// decodeRetired reads search_spaces.retired (nil: none).
func decodeRetired(b []byte) (retiredDocs, error) {
	if len(b) == 0 {
		return nil, nil
	}
	r := retiredDocs{}
	for len(b) > 0 {
		ch, n := binary.Uvarint(b)
		if n <= 0 || len(b)-n < chunkDocs/8 {
			return nil, errors.New("storage: malformed retired docs")
		}
		r[int64(ch)] = b[n : n+chunkDocs/8 : n+chunkDocs/8]
		b = b[n+chunkDocs/8:]
	}
	return r, nil
}

// sweepRetired takes up to limit of spaceID's retired docs out of its index
// for good, in the caller's write: their posting, length and search_pages
// rows (the chunks first through shareBeforeWrite, so that duplicates
// reading them keep theirs), their bits, and new stamps for their groups
// (the cache of index rows held them with their docs). The stats' docs and
// length do not move: they left those when they were retired. It returns
// how many retired docs are left.
func sweepRetired(tx *Tx, spaceID string, limit int) (int, error) {
	stats, err := readSpaceStats(tx.ctx, tx, spaceID)
	if err != nil || len(stats.retired) == 0 {
		return 0, err
	}
	chunks := make([]int64, 0, len(stats.retired))
	for ch := range stats.retired {
		chunks = append(chunks, ch)
	}
	slices.Sort(chunks)
	var docs []any
	var touched []int64
	left := 0
	for _, ch := range chunks {
		bm := stats.retired[ch]
		for off := range uint32(chunkDocs) {
			if !retiredAt(bm, off) {
				continue
			}
			if len(docs) == limit {
				left++
				continue
			}
			if len(touched) == 0 || touched[len(touched)-1] != ch {
				touched = append(touched, ch)
			}
			docs = append(docs, ch<<chunkBits|int64(off))
		}
	}
	if err := shareBeforeWrite(tx, spaceID, stats, touched); err != nil {
		return 0, err
	}
	c := newIndexChange(spaceID)
	found := 0
	for start := 0; start < len(docs); start += searchBatch {
		part := docs[start:min(start+searchBatch, len(docs))]
		rows, err := tx.QueryContext(tx.ctx, `SELECT doc, sections FROM search_pages WHERE space_id = ? AND doc IN (`+placeholders(len(part))+`)`, append([]any{spaceID}, part...)...)
		if err := eachRow(rows, err, func(sc interface{ Scan(...any) error }) error {
			var doc int64
			var b []byte
			if err := sc.Scan(&doc, &b); err != nil {
				return err
			}
			var sections []SearchSection
			if err := json.Unmarshal(b, &sections); err != nil {
				return fmt.Errorf("storage: search sections of doc %d: %w", doc, err)
			}
			c.remove(doc, sections)
			found++
			return nil
		}); err != nil {
			return 0, err
		}
		if _, err := tx.exec(`DELETE FROM search_pages WHERE space_id = ? AND doc IN (`+placeholders(len(part))+`)`, append([]any{spaceID}, part...)...); err != nil {
			return 0, err
		}
	}
	if found != len(docs) {
		return 0, fmt.Errorf("storage: %d retired docs of space %s have no search_pages row", len(docs)-found, spaceID)
	}
	if err := c.writeRows(tx); err != nil {
		return 0, err
	}
	for _, d := range docs {
		doc := d.(int64)
		ch, off := doc>>chunkBits, uint32(doc&(chunkDocs-1))
		bm := stats.retired[ch]
		bm[off>>3] &^= 1 << (off & 7)
		if !slices.ContainsFunc(bm, func(b byte) bool { return b != 0 }) {
			delete(stats.retired, ch)
		}
	}
	stats.stamps = restamp(stats.stamps, (stats.next-1)>>groupBits, c.chunks)
	_, err = tx.exec(`UPDATE search_spaces SET stamps = ?, retired = ? WHERE space_id = ?`, stats.stamps, encodeRetired(stats.retired), spaceID)
	return left, err
}
