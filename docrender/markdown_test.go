package docrender

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"docsapi/markdown"
)

// keys drops the node keys (numbered in build order) from a document's JSON.
var keys = regexp.MustCompile(`"key":"k[0-9]+",?`)

func docJSON(t *testing.T, d *markdown.Document) string {
	t.Helper()
	b, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	return keys.ReplaceAllString(string(b), "")
}

// The Markdown written from a page's document reads back as the same
// document: what the page as .md and llms-full.txt say is the page.
func TestMarkdownRoundTrip(t *testing.T) {
	for _, src := range []string{
		"# Title\n\nText **bold** _it_ ~~gone~~ `co*de` and [a link](https://example.com/x) and a \\*star\\*.\n",
		"- one\n- two\n  - nested\n\n1. first\n2. second\n\n- [x] done\n- [ ] todo\n",
		// (Hints are written as GitBook's {% hint %}, which the reading
		// side learns on branch gitmd: TestMarkdownGitBookBlocks.)
		"> quoted\n>\n> - item\n",
		"```go\nfunc main() {}\n```\n\n````md\n```\ninner\n```\n````\n",
		"| a | b |\n|:-:|--:|\n| 1 | x \\| y |\n\n![alt text](pic.png)\n\n---\n\nLine one  \nline two\n",
		"3. starts at three\n4. four\n\n## Heading\n\n### Deeper\n",
	} {
		first := markdown.ToDocument(src, nil)
		md := Markdown(first, Resolver{})
		second := markdown.ToDocument(md, nil)
		if a, b := docJSON(t, first), docJSON(t, second); a != b {
			t.Errorf("%q\nwrote\n%s\nwhich reads as\n%s\nnot\n%s", src, md, b, a)
		}
	}
}

func TestMarkdownGitBookBlocks(t *testing.T) {
	doc := &markdown.Document{Nodes: []*markdown.Node{
		block("hint", map[string]any{"style": "danger"}, block("paragraph", nil, text("Mind the gap"))),
		block("tabs", nil, block("tabs-item", map[string]any{"title": "Go"}, block("paragraph", nil, text("go run")))),
		block("embed", map[string]any{"url": "https://example.com/v"}),
		block("file", map[string]any{"ref": map[string]any{"kind": "file", "file": "f1"}}),
	}}
	md := Markdown(doc, res)
	for _, want := range []string{
		"{% hint style=\"danger\" %}\nMind the gap\n{% endhint %}",
		"{% tabs %}\n{% tab title=\"Go\" %}\ngo run\n{% endtab %}\n{% endtabs %}",
		"{% embed url=\"https://example.com/v\" %}",
		"{% file src=\"/files/diagram.png\" %}\ndiagram.png\n{% endfile %}",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("lacks %q:\n%s", want, md)
		}
	}
}
