package markdown

import (
	"os"
	"strings"
	"testing"
)

// BenchmarkGitBookParse: the GitBook block pass ToDocument makes before
// goldmark, against the whole of ToDocument, on a plain Markdown page (no
// GitBook blocks: the pass only costs) and on GitBook's fixture page.
// Report: ns/op of ParseGitBook over ns/op of ToDocument per input.
func BenchmarkGitBookParse(b *testing.B) {
	fixture, err := os.ReadFile("../importer/testdata/gitbook-repo/guides/getting-started/blocks.md")
	if err != nil {
		b.Fatal(err)
	}
	for name, src := range map[string]string{"plain": strings.Repeat(sample, 40), "gitbook": strings.Repeat(string(fixture), 10)} {
		b.Run(name+"/parse", func(b *testing.B) {
			b.SetBytes(int64(len(src)))
			for b.Loop() {
				ParseGitBook(src)
			}
		})
		b.Run(name+"/document", func(b *testing.B) {
			b.SetBytes(int64(len(src)))
			for b.Loop() {
				ToDocument(src, nil)
			}
		})
	}
}
