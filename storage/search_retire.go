package storage

// Retired docs: the reader's side of the rule that would let a batched
// import index the pages it changes ahead, like its new pages (issue 32,
// not wired yet: nothing writes a retired set, so every search passes nil).
//
// A changed page would get a new doc past the space's next_doc, written by
// the batches; its old doc would stay in its posting and chunk rows until
// a bounded sweep rewrites them (through shareBeforeWrite). From the
// publication on, a reader skips the old doc: it is in the retired set of
// its chunk. Skipping it must give what removing it gives: no match, and
// each term's doc frequency (its idf) counted without it; the space's
// docs and total length come from the stats row, which the publishing
// write moves in the same one-row update.

// retiredDocs is, per chunk, a bitmap of the docs readers skip (bit off of
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
