package graph

import (
	"bytes"
	"testing"

	"github.com/99designs/gqlgen/graphql"
)

// FuzzGQLStringAsGqlgen: writeGQLString writes the bytes of gqlgen's
// String encoder for any string, invalid UTF-8 included.
func FuzzGQLStringAsGqlgen(f *testing.F) {
	for _, s := range []string{"", "Page 1", `a "quoted" \ path`, "tab\tcr\rlf\n", "\x00\x01\x1f\x7f", "é ✓ \u2028", "\xff\xfe bad \xc3", "</script>&"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if len(s) > 1<<16 {
			return // the bound: longer inputs add nothing a short one does not
		}
		var want, got bytes.Buffer
		graphql.MarshalString(s).MarshalGQL(&want)
		writeGQLString(&got, s)
		if !bytes.Equal(got.Bytes(), want.Bytes()) {
			t.Fatalf("%q: wrote %q, gqlgen writes %q", s, got.Bytes(), want.Bytes())
		}
		if q := quotedGQLString(s); q != want.String() {
			t.Fatalf("%q: quoted %q, gqlgen writes %q", s, q, want.String())
		}
	})
}
