package site_test

import (
	"encoding/binary"
	"errors"
)

// woffOf wraps a TrueType/OpenType font (sfnt) as WOFF 1.0 with its tables
// stored uncompressed (the format allows it): a real font for the browser
// test's @font-face, made from a font the system has, not one committed.
func woffOf(sfnt []byte) ([]byte, error) {
	if len(sfnt) < 12 {
		return nil, errors.New("not an sfnt font")
	}
	n := int(binary.BigEndian.Uint16(sfnt[4:]))
	if len(sfnt) < 12+16*n {
		return nil, errors.New("truncated table directory")
	}
	type table struct {
		tag, checksum uint32
		data          []byte
	}
	tables := make([]table, n)
	total := 12 + 16*n
	for i := range tables {
		rec := sfnt[12+16*i:]
		off, length := binary.BigEndian.Uint32(rec[8:]), binary.BigEndian.Uint32(rec[12:])
		if uint64(off)+uint64(length) > uint64(len(sfnt)) {
			return nil, errors.New("table out of the file")
		}
		tables[i] = table{binary.BigEndian.Uint32(rec), binary.BigEndian.Uint32(rec[4:]), sfnt[off : off+length]}
		total += (int(length) + 3) &^ 3
	}
	pad := func(b []byte) []byte {
		for len(b)%4 != 0 {
			b = append(b, 0)
		}
		return b
	}
	out := make([]byte, 44+20*n)
	copy(out, "wOFF")
	binary.BigEndian.PutUint32(out[4:], binary.BigEndian.Uint32(sfnt))
	binary.BigEndian.PutUint16(out[12:], uint16(n))
	binary.BigEndian.PutUint32(out[16:], uint32(total))
	binary.BigEndian.PutUint16(out[20:], 1) // font version 1.0
	for i, tb := range tables {
		e := out[44+20*i:]
		binary.BigEndian.PutUint32(e, tb.tag)
		binary.BigEndian.PutUint32(e[4:], uint32(len(out)))
		binary.BigEndian.PutUint32(e[8:], uint32(len(tb.data)))
		binary.BigEndian.PutUint32(e[12:], uint32(len(tb.data)))
		binary.BigEndian.PutUint32(e[16:], tb.checksum)
		out = pad(append(out, tb.data...))
	}
	binary.BigEndian.PutUint32(out[8:], uint32(len(out)))
	return out, nil
}
