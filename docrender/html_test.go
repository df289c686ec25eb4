package docrender

import (
	"os"
	"slices"
	"strings"
	"testing"

	"docsapi/markdown"
)

func text(s string, marks ...string) *markdown.Node {
	var ms []markdown.Mark
	for _, m := range marks {
		ms = append(ms, markdown.Mark{Object: "mark", Type: m})
	}
	return &markdown.Node{Object: "text", Leaves: []*markdown.Leaf{{Object: "leaf", Text: s, Marks: ms}}}
}

func block(typ string, data map[string]any, nodes ...*markdown.Node) *markdown.Node {
	if data == nil {
		data = map[string]any{}
	}
	return &markdown.Node{Object: "block", Type: typ, Data: data, Nodes: nodes}
}

// sample is one block of kind typ with its data (what GitBook's model
// carries for it).
func sample(typ string) *markdown.Node {
	p := block("paragraph", nil, text("inside "+typ))
	file := map[string]any{"kind": "file", "file": "f1"}
	switch typ {
	case "list-unordered", "list-ordered", "list-tasks":
		return block(typ, nil, block("list-item", map[string]any{"checked": true}, p))
	case "code":
		return block(typ, map[string]any{"syntax": "go"}, block("code-line", nil, text("func main() {}")))
	case "code-line":
		return block(typ, nil, text("x := 1"))
	case "table":
		frags := []*markdown.Node{{Object: "fragment", Fragment: "f", Nodes: []*markdown.Node{p}}}
		n := block(typ, map[string]any{"view": map[string]any{"columns": []any{"c"}},
			"definition": map[string]any{"c": map[string]any{"title": "Col"}},
			"records":    map[string]any{"r": map[string]any{"orderIndex": "a", "values": map[string]any{"c": "f"}}}})
		n.Fragments = &frags
		return n
	case "image":
		return block(typ, map[string]any{"ref": file, "alt": "alt text"})
	case "images":
		return block(typ, nil, block("image", map[string]any{"ref": file, "alt": "alt text"}))
	case "tabs":
		return block(typ, nil, block("tabs-item", map[string]any{"title": "Tab one"}, p))
	case "tabs-item":
		return block(typ, map[string]any{"title": "Tab one"}, p)
	case "expandable":
		return block(typ, map[string]any{"title": "More"}, p)
	case "embed":
		return block(typ, map[string]any{"url": "https://example.com/video"})
	case "math":
		return block(typ, map[string]any{"formula": "e = mc^2"})
	case "file":
		return block(typ, map[string]any{"ref": file})
	case "content-ref":
		return block(typ, map[string]any{"ref": map[string]any{"kind": "url", "url": "other.md"}})
	case "openapi-operation", "swagger":
		return block(typ, map[string]any{"method": "get", "path": "/pets"}, p)
	case "divider":
		return block(typ, nil)
	}
	return block(typ, map[string]any{"style": "warning"}, p)
}

var res = Resolver{
	Link: func(dest string) (string, bool) {
		if dest == "other.md" {
			return "/site/other", true
		}
		return "", false
	},
	File: func(id string) (File, bool) {
		return File{Name: "diagram.png", URL: "/files/diagram.png", Size: 2048, Width: 20, Height: 10}, id == "f1"
	},
}

// Every block kind the model allows has an HTML form of its own (not the
// fallback that keeps an unknown block's content).
func TestEveryBlockKindHasHTML(t *testing.T) {
	for _, typ := range BlockKinds {
		out := string(Render(&markdown.Document{Nodes: []*markdown.Node{sample(typ)}}, res).HTML)
		if out == "" || strings.Contains(out, `class="block-`) {
			t.Errorf("%s: %q", typ, out)
		}
	}
	if out := string(Render(&markdown.Document{Nodes: []*markdown.Node{block("unknown-kind", nil, block("paragraph", nil, text("kept")))}}, res).HTML); !strings.Contains(out, "kept") {
		t.Errorf("an unknown block loses its content: %q", out)
	}
}

// The Markdown converter makes only kinds listed here: a kind it learns is
// a kind this renderer must learn too.
func TestConverterKindsAreRendered(t *testing.T) {
	src := "# T\n\n## S\n\n### U\n\n#### V\n\nText **b** *i* ~~s~~ `c` [l](x.md) ![i](y.png)\n\n- a\n- [x] b\n\n1. c\n\n> q\n\n> [!NOTE]\n> h\n\n```go\nx\n```\n\n| a |\n|---|\n| b |\n\n![only](z.png)\n\n---\n\n<div>raw</div>\n"
	// GitBook's blocks, as a Git or zip import stores them.
	gitbook, err := os.ReadFile("../importer/testdata/gitbook-repo/guides/getting-started/blocks.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := markdown.ToDocument(src+"\n"+string(gitbook), nil)
	var walk func([]*markdown.Node)
	walk = func(ns []*markdown.Node) {
		for _, n := range ns {
			switch n.Object {
			case "block":
				if !slices.Contains(BlockKinds, n.Type) {
					t.Errorf("block kind %q has no HTML form", n.Type)
				}
			case "inline":
				if !slices.Contains(InlineKinds, n.Type) {
					t.Errorf("inline kind %q has no HTML form", n.Type)
				}
			case "text":
				for _, l := range n.Leaves {
					for _, m := range l.Marks {
						if !slices.Contains(MarkKinds, m.Type) {
							t.Errorf("mark %q has no HTML form", m.Type)
						}
					}
				}
			}
			walk(n.Nodes)
			if n.Fragments != nil {
				walk(*n.Fragments)
			}
		}
	}
	walk(doc.Nodes)
}

func TestRenderDetails(t *testing.T) {
	doc := markdown.ToDocument("## Intro\n\n## Intro\n\nSee [other](other.md) and [bad](javascript:alert(1)) <b>x</b> & [file](diagram.png).\n\n```go\nfunc main() {}\n```\n", func(dest string) map[string]any {
		if dest == "diagram.png" {
			return map[string]any{"kind": "file", "file": "f1"}
		}
		return map[string]any{"kind": "url", "url": dest}
	})
	out := Render(doc, res)
	html := string(out.HTML)
	for _, want := range []string{`<h2 id="intro">`, `<h2 id="intro-1">`, `href="/site/other"`, `href="#"`, `<span class="kd">func</span>`,
		`href="/files/diagram.png"`, `(2.0 KB)`} {
		if !strings.Contains(html, want) {
			t.Errorf("lacks %q:\n%s", want, html)
		}
	}
	if strings.Contains(html, "javascript:") || strings.Contains(html, "<b>") {
		t.Errorf("script URL kept: %s", html)
	}
	if len(out.Headings) != 2 || out.Headings[1].ID != "intro-1" || out.Headings[0].Level != 1 {
		t.Errorf("headings %+v", out.Headings)
	}
}

// TestRenderGitBookBlocks: GitBook's blocks, read from a page body as an
// import stores it, render as blocks (not as their source text).
func TestRenderGitBookBlocks(t *testing.T) {
	src, err := os.ReadFile("../importer/testdata/gitbook-repo/guides/getting-started/blocks.md")
	if err != nil {
		t.Fatal(err)
	}
	html := string(Render(markdown.ToDocument(string(src), nil), res).HTML)
	for _, want := range []string{`class="hint hint-info"`, `<summary>macOS</summary>`, `<details class="expandable"><summary>Advanced options</summary>`,
		`Hidden until opened.`, `<ol class="stepper">`, `<div class="columns">`, `<div class="column">`, `<figcaption>`, `How it fits together`,
		`class="math"`, `class="embed"`, `class="openapi"`, `class="reusable"`} {
		if !strings.Contains(html, want) {
			t.Errorf("lacks %q", want)
		}
	}
	if strings.Contains(html, "{%") || strings.Contains(html, "&lt;details") || strings.Contains(html, "&lt;figure") {
		t.Errorf("GitBook syntax left as text:\n%s", html)
	}
}
