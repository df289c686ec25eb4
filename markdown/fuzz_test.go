package markdown

import (
	"encoding/json"
	"strings"
	"testing"

	"docsapi/internal/costcheck"
)

// hostileSeeds are the shapes that were quadratic, small enough
// for a fuzz seed: nesting, link openings, brackets, emphasis.
var hostileSeeds = []string{
	strings.Repeat(">", 2000) + " x\n",
	strings.Repeat("- ", 2000) + "x\n",
	strings.Repeat("[a](", 3000),
	strings.Repeat("[a](<", 3000),
	strings.Repeat("[", 5000),
	strings.Repeat("*a", 5000) + strings.Repeat("a*", 5000),
	strings.Repeat("> a\n", 5000),
	strings.Repeat("|a|b|\n", 3000),
}

// FuzzMarkdownToDocument: any Markdown becomes a JSON-encodable document,
// the other readers (links, title, sections, text runs) do not panic, and
// all of it costs time and memory in proportion to the input
// (costcheck.Linear): within markdown's bounds or over them.
func FuzzMarkdownToDocument(f *testing.F) {
	for _, s := range hostileSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		if len(src) > 64<<10 {
			return
		}
		costcheck.Linear(t, "markdown to document", len(src), func() {
			doc := ToDocument(src, nil)
			if doc == nil {
				t.Fatal("no document")
			}
			if _, err := json.Marshal(doc); err != nil {
				t.Fatalf("document does not encode: %v", err)
			}
		})
		costcheck.Linear(t, "analysis", len(src), func() {
			a := analyze(src) // not Analyze: its cache would hide the cost
			if (a.Err == nil) != (Check(src) == nil) || a.Err != nil && (a.Links != nil || a.Title != "") {
				t.Fatalf("analysis over the bounds: %+v", a)
			}
			if len(a.Links) > MaxLinks {
				t.Fatalf("%d links within the bounds", len(a.Links))
			}
		})
		costcheck.Linear(t, "text runs", len(src), func() {
			StripTitle(src, Title(src))
			runs := TextRuns(src)
			out := make([]string, len(runs))
			for i, r := range runs {
				out[i] = r.Text
			}
			ReplaceRuns(src, runs, out)
		})
	})
}
