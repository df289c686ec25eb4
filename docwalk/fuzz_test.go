package docwalk_test

import (
	"encoding/json"
	"strings"
	"testing"

	"docsapi/docrender"
	"docsapi/docwalk/docwalktest"
	"docsapi/markdown"
)

// FuzzWalk walks any JSON document (a body decoded from outside) into HTML
// and Markdown: no panic, no script from the author in the HTML, and the
// outputs stay within a bound of the input's size (no blow-up from nesting
// or references).
func FuzzWalk(f *testing.F) {
	for _, typ := range specKindsList() {
		b, _ := json.Marshal(docwalktest.Document(docwalktest.Sample(typ)))
		f.Add(b)
	}
	f.Add([]byte(`{"nodes":[{"object":"block","type":"blockquote","nodes":[{"object":"block","type":"blockquote","nodes":[{"object":"text","leaves":[{"text":"<script>x</script>"}]}]}]}]}`))
	f.Add([]byte(`{"nodes":[{"object":"block","type":"table","data":{"records":{"r":{"values":{"c":1}}},"view":{"columns":["c","c","c"]}},"fragments":[null]}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<16 {
			return
		}
		var doc markdown.Document
		if json.Unmarshal(data, &doc) != nil {
			return
		}
		// A reusable content including itself, looked up at most 32 times
		// per output as the reader site bounds it (site/blocks.go).
		lookups := 0
		res := docrender.Resolver{
			Reusable: func(id, space string) (*markdown.Document, bool) {
				lookups++
				return &doc, lookups <= 32
			},
		}
		html := string(docrender.Render(&doc, res).HTML)
		lookups = 0
		md := docrender.Markdown(&doc, res)
		if strings.Contains(strings.ToLower(html), "<script") || strings.Contains(strings.ToLower(html), "javascript:") {
			t.Fatalf("script in the HTML: %s", html)
		}
		if limit := 64 * (len(data) + 1024) * 33; len(html) > limit || len(md) > limit {
			t.Fatalf("outputs of %d and %d bytes from %d", len(html), len(md), len(data))
		}
	})
}

func specKindsList() []string {
	return []string{"paragraph", "heading-1", "list-tasks", "code", "table", "tabs", "hint", "image", "openapi-operation", "reusable-content", "integration", "stepper", "columns", "if"}
}
