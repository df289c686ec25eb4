package markdown

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"docsapi/internal/costcheck"
)

// TestGitBookBlocksToDocument: every GitBook block of the fixture page
// becomes its 0.130.0 block, with the data GitBook's syntax gives.
func TestGitBookBlocksToDocument(t *testing.T) {
	src, err := os.ReadFile("../importer/testdata/gitbook-repo/guides/getting-started/blocks.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := ToDocument(StripTitle(string(src[strings.Index(string(src), "# Blocks"):]), "Blocks"), nil)
	var types []string
	byType := map[string][]*Node{}
	for _, n := range doc.Nodes {
		types = append(types, n.Type)
		byType[n.Type] = append(byType[n.Type], n)
	}
	want := "hint tabs code embed paragraph content-ref reusable-content openapi-operation openapi-operation stepper columns heading-2 paragraph expandable math images images images"
	if got := strings.Join(types, " "); got != want {
		t.Fatalf("blocks:\n got %s\nwant %s", got, want)
	}
	// The file block names a file the ref function does not know: a link.
	if h := byType["hint"][0]; h.Data["style"] != "info" || h.Nodes[0].Type != "paragraph" {
		t.Errorf("hint: %+v", h)
	}
	tabs := byType["tabs"][0]
	if len(tabs.Nodes) != 2 || tabs.Nodes[1].Type != "tabs-item" || tabs.Nodes[1].Data["title"] != "Linux" {
		t.Errorf("tabs: %+v", tabs.Nodes)
	}
	code := byType["code"][0]
	if code.Data["title"] != "main.go" || code.Data["syntax"] != "go" || code.Data["overflow"] != "wrap" || code.Data["lineNumbers"] != true {
		t.Errorf("code: %v", code.Data)
	}
	if e := byType["embed"][0]; e.Data["url"] != "https://www.youtube.com/watch?v=dQw4w9WgXcQ" || !*e.IsVoid {
		t.Errorf("embed: %v", e.Data)
	}
	if r := byType["reusable-content"][0].Data["ref"].(map[string]any); r["reusableContent"] != "rc1" {
		t.Errorf("include: %v", r)
	}
	if o := byType["openapi-operation"][1]; o.Data["path"] != "/pet/{petId}" || o.Data["method"] != "get" {
		t.Errorf("swagger: %v", o.Data)
	}
	if s := byType["stepper"][0]; len(s.Nodes) != 2 || s.Nodes[0].Type != "stepper-step" || s.Nodes[0].Nodes[0].Type != "heading-3" {
		t.Errorf("stepper: %+v", s.Nodes)
	}
	if c := byType["columns"][0]; len(c.Nodes) != 2 || c.Nodes[1].Type != "column" {
		t.Errorf("columns: %+v", c.Nodes)
	}
	ex := byType["expandable"][0]
	if ex.Fragments == nil || len(*ex.Fragments) != 2 || (*ex.Fragments)[0].Fragment != "expandable-title" ||
		plainOf((*ex.Fragments)[0]) != "Advanced options" || plainOf((*ex.Fragments)[1]) != "Hidden until opened." {
		t.Errorf("expandable: %+v", ex.Fragments)
	}
	if m := byType["math"][0]; m.Data["formula"] != "f(x) = x^2" {
		t.Errorf("math: %v", m.Data)
	}
	fig := byType["images"][0].Nodes[0]
	if fig.Data["alt"] != "The diagram" || len(*fig.Fragments) != 1 || plainOf((*fig.Fragments)[0]) != "How it fits together" {
		t.Errorf("figure: %v %+v", fig.Data, fig.Fragments)
	}
	if img := byType["images"][1].Nodes[0]; img.Data["width"] != 300 {
		t.Errorf("img width: %v", img.Data)
	}
	if pic := byType["images"][2].Nodes[0]; pic.Data["refDark"] == nil {
		t.Errorf("picture: %v", pic.Data)
	}
}

func plainOf(n *Node) string {
	var b strings.Builder
	var walk func(*Node)
	walk = func(n *Node) {
		for _, l := range n.Leaves {
			b.WriteString(l.Text)
		}
		for _, c := range n.Nodes {
			walk(c)
		}
	}
	walk(n)
	return strings.TrimSpace(b.String())
}

// TestGitBookBlocksBounds: code fences hide tags, unclosed and stray tags
// stay text, nesting past MaxGitBookDepth is text, not a block.
func TestGitBookBlocksBounds(t *testing.T) {
	if bs := ParseGitBook("```\n{% hint %}\nx\n{% endhint %}\n```\n"); len(bs) != 1 || bs[0].Kind != "" {
		t.Errorf("fenced tags read as blocks: %+v", bs)
	}
	if bs := ParseGitBook("{% endhint %}\n{% unknown %}\n"); len(bs) != 1 || bs[0].Kind != "" {
		t.Errorf("stray tags: %+v", bs)
	}
	deep := strings.Repeat("{% hint %}\n", MaxGitBookDepth+5) + "x\n"
	depth, b := 0, ParseGitBook(deep)
	for len(b) > 0 {
		var next []*GitBookBlock
		for _, c := range b {
			if c.Kind != "" {
				next = c.Children
			}
		}
		if next == nil {
			break
		}
		depth, b = depth+1, next
	}
	if depth != MaxGitBookDepth {
		t.Errorf("nesting %d, want the bound %d", depth, MaxGitBookDepth)
	}
	if bs := ParseGitBook("{% embed url=\"a\" %}\n{% embed url=\"b\" %}\ncap\n{% endembed %}\n"); len(bs) != 2 || bs[0].Text != "" || bs[1].Text != "cap\n" {
		t.Errorf("optional ends: %+v %+v", bs[0], bs[1])
	}
}

// FuzzGitBookBlocks: any text parses in time linear in its size, nests no
// deeper than the bound, loses no Markdown text outside blocks' markup,
// and gives a document that encodes.
func FuzzGitBookBlocks(f *testing.F) {
	for _, seed := range []string{
		"{% hint style=\"info\" %}\nx\n{% endhint %}\n",
		"{% tabs %}\n{% tab title=\"a\" %}\n{% code title=\"t\" %}\n```\nx\n```\n{% endcode %}\n{% endtab %}\n{% endtabs %}\n",
		"<details>\n<summary>s</summary>\n\nb\n</details>\n$$\nx\n$$\n<figure><img src=\"a.png\"><figcaption>c</figcaption></figure>\n",
		strings.Repeat("{% embed url=\"x\" %}\n", 200), strings.Repeat("<figure>\n", 300), strings.Repeat("$$\n", 301),
		strings.Repeat("{% stepper %}\n{% step %}\n", 40) + strings.Repeat("{% endstepper %}\n", 40),
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, src string) {
		if len(src) > MaxBody {
			return
		}
		var blocks []*GitBookBlock
		costcheck.Linear(t, "GitBook blocks", len(src), func() { blocks = ParseGitBook(src) })
		var walk func([]*GitBookBlock, int)
		walk = func(bs []*GitBookBlock, depth int) {
			if len(bs) > 0 && depth > MaxGitBookDepth {
				t.Fatalf("blocks nest %d deep", depth)
			}
			for _, b := range bs {
				if b.Kind == "" && !strings.Contains(src, b.Text) {
					t.Fatalf("a run that is not in the source: %q", b.Text)
				}
				walk(b.Children, depth+1)
			}
		}
		walk(blocks, 0)
		GitBookRefs(src)
		if _, err := json.Marshal(ToDocument(src, nil)); err != nil {
			t.Fatal(err)
		}
	})
}
