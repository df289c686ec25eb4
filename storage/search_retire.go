package storage

// Retired docs: the reader's side of the rule that would let a batched
// import index the pages it changes ahead, like its new pages (issue 32).
// Searches read the set with the space's stats row (search_spaces.retired,
// migration 0032e) and duplicates take it with that row; nothing writes
// one yet: the writer's half below is not built.
//
// A changed page would get a new doc past the space's next_doc, written by
// the batches; its old doc would stay in its posting and chunk rows until
// a bounded sweep rewrites them (through shareBeforeWrite). From the
// publication on, a reader skips the old doc: it is in the retired set of
// its chunk. Skipping it must give what removing it gives: no match, and
// each term's doc frequency (its idf) counted without it; the space's
// docs and total length come from the stats row, which the publishing
// write moves in the same one-row update.

import (
	"encoding/binary"
	"errors"
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
