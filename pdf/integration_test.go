package pdf

import (
	"context"
	"strings"
	"testing"

	"docsapi/markdown"
)

// An integration block shows what Document.Integration renders for it;
// without it (or when it has nothing), the label naming the integration.
func TestIntegrationBlock(t *testing.T) {
	block := &markdown.Node{Object: "block", Type: "integration", Data: map[string]any{"integration": "charts", "block": "chart"}}
	page := Page{Title: "P", Document: &markdown.Document{Object: "document", Nodes: []*markdown.Node{block}}}
	render := func(f func(*markdown.Node) (*markdown.Document, bool)) string {
		data, err := Render(context.Background(), Document{Title: "T", Pages: []Page{page}, Integration: f})
		if err != nil {
			t.Fatal(err)
		}
		return Text(t, data)
	}
	got := render(func(n *markdown.Node) (*markdown.Document, bool) {
		if n.Data["integration"] != "charts" {
			t.Errorf("asked for %v", n.Data)
		}
		return markdown.ToDocument("Rendered **sales** chart\n", nil), true
	})
	if !strings.Contains(got, "Rendered") || !strings.Contains(got, "sales") || strings.Contains(got, "Content from charts") {
		t.Errorf("with the output: %q", got)
	}
	for _, f := range []func(*markdown.Node) (*markdown.Document, bool){nil, func(*markdown.Node) (*markdown.Document, bool) { return nil, false }} {
		if got := render(f); !strings.Contains(got, "Content from charts") {
			t.Errorf("without output: %q", got)
		}
	}
}
