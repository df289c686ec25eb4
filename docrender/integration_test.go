package docrender

import (
	"html/template"
	"strings"
	"testing"

	"docsapi/markdown"
)

// An integration block shows the resolver's output (HTML and Markdown);
// without one, its stored children, else the placeholder.
func TestIntegrationOutput(t *testing.T) {
	block := &markdown.Node{Object: "block", Type: "integration", Data: map[string]any{"integration": "charts", "block": "chart"}}
	doc := &markdown.Document{Object: "document", Nodes: []*markdown.Node{block}}
	res := Resolver{Integration: func(n *markdown.Node) (IntegrationOutput, bool) {
		return IntegrationOutput{HTML: template.HTML(`<div class="ck"><p>rendered</p></div>`), Markdown: "rendered **md**"}, n.Data["block"] == "chart"
	}}
	out := Render(doc, res)
	if !strings.Contains(string(out.HTML), `<div class="integration"><div class="ck"><p>rendered</p></div></div>`) || !strings.Contains(out.Text, "rendered") {
		t.Errorf("HTML %s, text %q", out.HTML, out.Text)
	}
	if md := Markdown(doc, res); strings.TrimSpace(md) != "rendered **md**" {
		t.Errorf("Markdown %q", md)
	}
	block.Data["block"] = "other"
	for _, r := range []Resolver{res, {}} {
		if h := string(Render(doc, r).HTML); !strings.Contains(h, "Content from charts (other)") {
			t.Errorf("no placeholder: %s", h)
		}
		if md := Markdown(doc, r); !strings.Contains(md, "Content from charts (other)") {
			t.Errorf("no placeholder: %s", md)
		}
	}
}
