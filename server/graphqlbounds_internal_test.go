package server

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/parser"
)

func TestNestingDepthSkipsStringsAndComments(t *testing.T) {
	for _, c := range []struct {
		doc  string
		want int
	}{
		{`{a}`, 1},
		{`{a{b(x:[[1]])}}`, 5},
		{`{a(x:"{{{[[[")}`, 2},
		{`{a(x:"\"{{{")}`, 2},
		{"{a # {{{{\n b}", 1},
		{"{a(x:\"\"\"{{{ \\\"\"\" {{{ \"\"\")}", 2},
		{"{a(x:\"\"\"{{{\"\"\") b{c}}", 2},
		{`{a(x:"unterminated {{{`, 2},
		{`}}}{`, 1},
	} {
		if got := nestingDepth(c.doc, 100); got != c.want {
			t.Errorf("nestingDepth(%q) = %d, want %d", c.doc, got, c.want)
		}
	}
	// The scan stops at stop, whatever follows.
	deep := "{__typename(a:" + strings.Repeat("[", 1_000_000) + strings.Repeat("]", 1_000_000) + ")}"
	start := time.Now()
	if got := nestingDepth(deep, 65); got != 65 {
		t.Errorf("a million levels: %d, want the stop (65)", got)
	}
	if took := time.Since(start); took > 100*time.Millisecond {
		t.Errorf("stopping at 65 levels took %v", took)
	}
}

func parseDoc(t *testing.T, q string) *ast.QueryDocument {
	t.Helper()
	doc, err := parser.ParseQuery(&ast.Source{Input: q})
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

func TestMeasureDocumentCountsFragmentsAtEachUse(t *testing.T) {
	for _, c := range []struct {
		doc             string
		fields, aliases int
		introspection   string // name of the aliased introspection field
	}{
		{`{a b c}`, 3, 0, ""},
		{`{x: a y: b c}`, 3, 2, ""},
		{`{a{b{c}}}`, 3, 0, ""},
		// F (2 fields) counted at its definition and at its two uses.
		{`{...F a{...F}} fragment F on Q {b c}`, 7, 0, ""},
		// Doubling through fragments: G uses F twice, the query G twice.
		{`{...G ...G} fragment G on Q {x: a ...F ...F} fragment F on Q {y: b}`, 3*2 + 3 + 1, 3*2 + 3 + 1, ""},
		// A cycle counts its fragments once (validation refuses it).
		{`{...A} fragment A on Q {a ...B} fragment B on Q {b ...A}`, 2 + 2 + 1, 0, ""},
		{`{... on Q {a} ... @include(if: true) {b}}`, 2, 0, ""},
		{`{s: __schema {types {name}}}`, 3, 1, "__schema"},
		{`{__schema {t: types {name}}}`, 3, 1, "__schema"},
		{`{__type(name: "A") {...F}} fragment F on __Type {n: name}`, 3, 2, "__type"},
		{`{__schema {types {name}} n: __typename}`, 4, 1, ""},
	} {
		shape := measureDocument(parseDoc(t, c.doc), 0)
		got := ""
		if shape.aliasedIntrospection != nil {
			got = shape.aliasedIntrospection.Name
		}
		if shape.fields != c.fields || shape.aliases != c.aliases || got != c.introspection {
			t.Errorf("%s: %d fields, %d aliases, introspection %q; want %d, %d, %q", c.doc, shape.fields, shape.aliases, got, c.fields, c.aliases, c.introspection)
		}
	}
}

func TestMeasureDocumentStopsOnAFragmentBomb(t *testing.T) {
	// 40 fragments each using the next twice: 2^40 fields once expanded,
	// with the spreads before or after the fields.
	for _, shape := range []string{"a ...F%d ...F%d", "...F%d ...F%d a"} {
		var b strings.Builder
		b.WriteString("{...F0}\n")
		for i := range 40 {
			fmt.Fprintf(&b, "fragment F%d on Q {"+shape+"}\n", i, i+1, i+1)
		}
		b.WriteString("fragment F40 on Q {a}")
		doc := parseDoc(t, b.String())
		start := time.Now()
		if shape := measureDocument(doc, 1000); shape.fields != 1001 {
			t.Errorf("%d fields, want the count stopped at 1001", shape.fields)
		}
		if pairs := fieldPairs(doc, 1000); pairs > 1000*1000 {
			t.Errorf("%d pairs from a walk of at most 1000 fields", pairs)
		}
		if took := time.Since(start); took > 100*time.Millisecond {
			t.Errorf("%s: took %v", shape, took)
		}
	}
}

func TestFieldPairsCountsFieldsSharingAResponsePath(t *testing.T) {
	for _, c := range []struct {
		doc   string
		pairs int
	}{
		{`{a b c}`, 0},
		{`{a a a}`, 3},
		{`{x: a x: b}`, 1},
		{`{a{b} a{b}}`, 1 + 1},
		{`{a{b} c{b}}`, 0},
		{`{...F ...F} fragment F on Q {a}`, 1}, // F at its definition: none
		{`{...F ...G} fragment F on Q {a} fragment G on Q {b}`, 1},
		{`{...F ...G ...H} fragment F on Q {a} fragment G on Q {b} fragment H on Q {c}`, 3},
		{`{...F b} fragment F on Q {b}`, 1},
		{`{a{...F} a{...F}} fragment F on Q {b}`, 1 + 1},
		{"{" + strings.Repeat("__typename ", 1000) + "}", 1000 * 999 / 2},
	} {
		if got := fieldPairs(parseDoc(t, c.doc), 100000); got != c.pairs {
			t.Errorf("%.60s: %d pairs, want %d", c.doc, got, c.pairs)
		}
	}
}

func TestSchemaFieldsCountsTheIntrospectionTree(t *testing.T) {
	doc := parseDoc(t, `{...R __typename} fragment R on Query {__schema {types {...T}}} fragment T on __Type {name fields {name}}`)
	if got := schemaFields(doc, doc.Operations[0]); got != 5 {
		t.Errorf("%d, want 5 (__schema, types, name, fields, name)", got)
	}
}

// TestIntrospectionAnswersComputedOnce: an introspection-only query is
// executed once, then answered from memory; queries with variables or
// other root fields are executed each time.
func TestIntrospectionAnswersComputedOnce(t *testing.T) {
	answers := newIntrospectionAnswers()
	for _, c := range []struct {
		query string
		runs  int
	}{
		{`{__schema {types {name}} __typename}`, 1},
		{`query Q {...R} fragment R on Query {__type(name: "Space") {name}}`, 1},
		{`query($n: String!) {__type(name: $n) {name}}`, 3},
		{`{__typename viewer {id}}`, 3},
	} {
		doc := parseDoc(t, c.query)
		runs := 0
		for range 3 {
			oc := &graphql.OperationContext{RawQuery: c.query, Doc: doc, Operation: doc.Operations[0], OperationName: doc.Operations[0].Name}
			ctx := graphql.WithOperationContext(context.Background(), oc)
			resp := answers.around(ctx, func(ctx context.Context) graphql.ResponseHandler {
				runs++
				return graphql.OneShot(&graphql.Response{Data: []byte(`{"x":1}`)})
			})(ctx)
			if string(resp.Data) != `{"x":1}` {
				t.Errorf("%s: answered %s", c.query, resp.Data)
			}
		}
		if runs != c.runs {
			t.Errorf("%s: executed %d times in 3, want %d", c.query, runs, c.runs)
		}
	}
}

func TestDecodedLengthIsAtMostTheDecodedString(t *testing.T) {
	for _, s := range []string{"", "abc", "a\nb\"c\\", "é€😀", "\u2028<>&", "\x00\x1f", string([]byte{0xff, 'a'}), string([]byte{0xed, 0xa0, 0xbd})} {
		raw, _ := json.Marshal(s)
		var n decodedLength
		if err := n.UnmarshalJSON(raw); err != nil {
			t.Fatal(err)
		}
		var back string
		json.Unmarshal(raw, &back)
		if int(n) > len(back) || int(n) < len(back)-3 {
			t.Errorf("%q: %d, decoded %d bytes", s, n, len(back))
		}
	}
	var n decodedLength
	n.UnmarshalJSON([]byte(`"\u00e9\ud83d\ude00\n"`))
	if n < 4 || n > 1+2+4 {
		t.Errorf("escapes: %d", n)
	}
}

func TestWeightedLRUKeepsItsBudget(t *testing.T) {
	ctx := context.Background()
	c := newWeightedLRU(1000, 150, textWeight)
	c.Add(ctx, "big", strings.Repeat("x", 148)) // heavier than the largest entry: not kept
	if _, ok := c.Get(ctx, "big"); ok {
		t.Error("an entry over the largest was kept")
	}
	for i := range 20 {
		c.Add(ctx, fmt.Sprintf("k%02d", i), strings.Repeat("x", 97)) // 100 each
	}
	if _, used := c.lru.Len(); used != 1000 {
		t.Errorf("%d used of 1000", used)
	}
	if _, ok := c.Get(ctx, "k09"); ok {
		t.Error("an entry past the budget is still there")
	}
	c.Get(ctx, "k10") // read: the next to go is k11
	c.Add(ctx, "new", strings.Repeat("x", 97))
	if _, ok := c.Get(ctx, "k10"); !ok {
		t.Error("a recently read entry was evicted")
	}
	if _, ok := c.Get(ctx, "k11"); ok {
		t.Error("the least recently used entry was kept")
	}
	c.Add(ctx, "new", "y") // replaced, and its weight
	if v, _ := c.Get(ctx, "new"); v != "y" {
		t.Errorf("replaced: %q", v)
	}
	if _, used := c.lru.Len(); used != 900+4 {
		t.Errorf("replaced: %d used", used)
	}

	// A document weighs its text and its tokens: neither one of 2 MB nor
	// one of 14,000 tokens is kept; the standard introspection query is.
	doc := newWeightedLRU(documentCacheBytes, largestCachedDocument, documentWeight)
	doc.Add(ctx, `{space(spaceId: "`+strings.Repeat("x", 2<<20)+`") {id}}`, nil)
	doc.Add(ctx, "{"+strings.Repeat("__typename ", 14000)+"}", nil)
	if _, used := doc.lru.Len(); used != 0 {
		t.Errorf("documents of 2 MB, of 14,000 tokens kept (%d bytes)", used)
	}
	introspection, err := os.ReadFile("testdata/introspection.graphql")
	if err != nil {
		t.Fatal(err)
	}
	doc.Add(ctx, string(introspection), nil)
	if n, _ := doc.lru.Len(); n == 0 {
		t.Error("the standard introspection query is not kept")
	}
}
