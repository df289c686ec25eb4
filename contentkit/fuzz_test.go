package contentkit_test

import (
	"encoding/json"
	"html/template"
	"net/url"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"docsapi/contentkit"
)

// FuzzContentKitHTML: any output tree renders within the bounds to HTML
// that parses with no script element, no event handler attribute and no
// script URL, whatever the runtime answers.
func FuzzContentKitHTML(f *testing.F) {
	for _, s := range []string{everyElement,
		`{"type":"block","children":[{"type":"text","children":["<script>x</script>",{"type":"link","target":{"url":"javascript:x"},"children":"y"}]}]}`,
		`{"type":"block","children":[{"type":"webframe","source":{"url":"/a\" onload=\"x"}},{"type":"image","source":{"url":"https://a/\"><script>"},"aspectRatio":1e308}]}`,
		`{"type":"block","children":[{"type":"card","hint":[{"type":"image","source":{"url":"https://a/b"}}],"buttons":[{"type":"button","label":"<b>","onPress":{"action":"@ui.url.open","url":"https://x/'"}}]}]}`,
	} {
		f.Add(s)
	}
	opts := contentkit.Options{
		Markdown: func(src string) template.HTML { return template.HTML(template.HTMLEscapeString(src)) },
		Frame:    func(u *url.URL) bool { return true },
		MaxDepth: 16, MaxNodes: 500,
	}
	f.Fuzz(func(t *testing.T, s string) {
		var root map[string]any
		if json.Unmarshal([]byte(s), &root) != nil {
			return
		}
		out, err := contentkit.Render(root, opts)
		if err != nil {
			return
		}
		if len(out.HTML) > 64*len(s)+256 {
			t.Fatalf("HTML of %d bytes from %d bytes of input", len(out.HTML), len(s))
		}
		z := html.NewTokenizer(strings.NewReader(string(out.HTML)))
		for {
			tt := z.Next()
			if tt == html.ErrorToken {
				return
			}
			tok := z.Token()
			if tok.Data == "script" || tok.Data == "style" || tok.Data == "object" || tok.Data == "embed" {
				t.Fatalf("a %s element: %s", tok.Data, out.HTML)
			}
			for _, a := range tok.Attr {
				v := strings.ToLower(strings.TrimSpace(a.Val))
				if strings.HasPrefix(a.Key, "on") || (a.Key == "href" || a.Key == "src") && (strings.HasPrefix(v, "javascript:") || strings.HasPrefix(v, "data:") || strings.HasPrefix(v, "//")) {
					t.Fatalf("attribute %s=%q: %s", a.Key, a.Val, out.HTML)
				}
				if a.Key == "sandbox" && strings.Contains(a.Val, "same-origin") {
					t.Fatalf("a frame with its origin: %s", out.HTML)
				}
			}
		}
	})
}
