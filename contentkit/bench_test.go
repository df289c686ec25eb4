package contentkit_test

import (
	"encoding/json"
	"testing"

	"docsapi/contentkit"
)

// BenchmarkRender renders a block with every element; compare with
// BenchmarkDecode, decoding the same answer from JSON (what every render
// costs first): the ratio is what turning the tree into HTML and Markdown
// adds.
func BenchmarkRender(b *testing.B) {
	var root map[string]any
	json.Unmarshal([]byte(everyElement), &root)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := contentkit.Render(root, contentkit.Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecode(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		var root map[string]any
		if err := json.Unmarshal([]byte(everyElement), &root); err != nil {
			b.Fatal(err)
		}
	}
}
