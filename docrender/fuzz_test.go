package docrender

import (
	"strings"
	"testing"

	"golang.org/x/net/html"

	"docsapi/markdown"
)

// FuzzRender: any Markdown's document renders without panicking, and a
// page's author never gets a script into it (no script element, no event
// handler attribute, no script URL).
func FuzzRender(f *testing.F) {
	for _, s := range []string{"# T\n\ntext", "[x](javascript:alert(1))", "<script>alert(1)</script>", "```js\n</code><script>\n```", "| a |\n|---|\n| <img onerror=x> |", "![a\" onerror=\"x](y.png)"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		if len(src) > 1<<14 {
			return
		}
		out := string(Render(markdown.ToDocument(src, nil), res).HTML)
		z := html.NewTokenizer(strings.NewReader(out))
		for {
			tt := z.Next()
			if tt == html.ErrorToken {
				return
			}
			tok := z.Token()
			if tt != html.StartTagToken && tt != html.SelfClosingTagToken {
				continue
			}
			if tok.Data == "script" || tok.Data == "iframe" || tok.Data == "style" {
				t.Fatalf("%q renders a %s element: %q", src, tok.Data, out)
			}
			for _, a := range tok.Attr {
				v := strings.ToLower(strings.TrimSpace(a.Val))
				if strings.HasPrefix(a.Key, "on") || (a.Key == "href" || a.Key == "src") && strings.HasPrefix(v, "javascript:") {
					t.Fatalf("%q renders %s=%q", src, a.Key, a.Val)
				}
			}
		}
	})
}
