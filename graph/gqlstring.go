package graph

import (
	"io"
	"strings"
)

// GraphQL strings written straight to the answer, the bytes of gqlgen's
// String and ID encoders (graphql.MarshalString): a quote, the string with
// the quote, the backslash and the control characters below U+0020
// escaped (\t, \r and \n by name, the others as \u00XX in upper-case hex),
// every other byte as it is, and a quote. Only ASCII bytes are escaped, so
// a byte loop escapes what gqlgen's rune loop does, invalid UTF-8 included
// (FuzzGQLStringAsGqlgen). The writers of plain selections call these for
// each field of each object instead of making a marshaler per value.

const gqlHex = "0123456789ABCDEF"

// writeGQLString writes s as a GraphQL string.
func writeGQLString(w io.Writer, s string) {
	io.WriteString(w, `"`)
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		io.WriteString(w, s[start:i])
		switch c {
		case '\t':
			io.WriteString(w, `\t`)
		case '\r':
			io.WriteString(w, `\r`)
		case '\n':
			io.WriteString(w, `\n`)
		case '"':
			io.WriteString(w, `\"`)
		case '\\':
			io.WriteString(w, `\\`)
		default:
			io.WriteString(w, `\u00`+gqlHex[c>>4:c>>4+1]+gqlHex[c&0xf:c&0xf+1])
		}
		start = i + 1
	}
	io.WriteString(w, s[start:])
	io.WriteString(w, `"`)
}

// writeOptGQLString writes s as a GraphQL string, or null when nil.
func writeOptGQLString(w io.Writer, s *string) {
	if s == nil {
		io.WriteString(w, "null")
		return
	}
	writeGQLString(w, *s)
}

// quotedGQLString is s as writeGQLString writes it.
func quotedGQLString(s string) string {
	var b strings.Builder
	writeGQLString(&b, s)
	return b.String()
}
