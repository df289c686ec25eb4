package markdown

import (
	"encoding/json"
	"testing"
)

// FuzzMarkdownToDocument: any Markdown becomes a JSON-encodable document,
// and the other readers (links, title, sections, text runs) do not panic.
func FuzzMarkdownToDocument(f *testing.F) {
	f.Fuzz(func(t *testing.T, src string) {
		if len(src) > 64<<10 {
			return
		}
		doc := ToDocument(src, nil)
		if doc == nil {
			t.Fatal("no document")
		}
		if _, err := json.Marshal(doc); err != nil {
			t.Fatalf("document does not encode: %v", err)
		}
		Links(src)
		StripTitle(src, Title(src))
		Sections(src)
		runs := TextRuns(src)
		out := make([]string, len(runs))
		for i, r := range runs {
			out[i] = r.Text
		}
		ReplaceRuns(src, runs, out)
	})
}
