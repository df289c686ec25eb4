package docwalk

import (
	"testing"

	"docsapi/markdown"
)

// An expandable reads the same whichever way it was stored: GitBook's
// <details> as 0.130.0 fragments, a data title, or a first-child title.
func TestExpandablePartsReadsEveryForm(t *testing.T) {
	doc := markdown.ToDocument("<details>\n\n<summary>Why?</summary>\n\nBecause.\n\n</details>\n", nil)
	var fromGitBook *Node
	for _, n := range doc.Nodes {
		if n.Type == "expandable" {
			fromGitBook = n
		}
	}
	if fromGitBook == nil {
		t.Fatalf("no expandable in %+v", doc.Nodes)
	}
	para := func(s string) *Node {
		return &Node{Object: "block", Type: "paragraph", Nodes: []*Node{{Object: "text", Leaves: []*markdown.Leaf{{Object: "leaf", Text: s}}}}}
	}
	cases := map[string]*Node{
		"fragments":   fromGitBook,
		"data title":  {Object: "block", Type: "expandable", Data: map[string]any{"title": "Why?"}, Nodes: []*Node{para("Because.")}},
		"first child": {Object: "block", Type: "expandable", Nodes: []*Node{para("Why?"), para("Because.")}},
	}
	for name, n := range cases {
		title, body := ExpandableParts(n)
		if title != "Why?" || len(body) != 1 || PlainText(body[0]) != "Because." {
			t.Errorf("%s: title %q, body %d blocks", name, title, len(body))
		}
	}
}
