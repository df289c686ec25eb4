package markdown

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"docsapi/internal/costcheck"
)

// TestCheck: each bound refuses its shape, names itself, and lets an
// ordinary body just inside it through.
func TestCheck(t *testing.T) {
	for name, c := range map[string]struct {
		src   string
		limit string // "" within the bounds
	}{
		"sample":                {sample, ""},
		"63 quotes":             {strings.Repeat("> ", 63) + "x\n", ""},
		"65 quotes":             {strings.Repeat(">", 65) + " x\n", "nesting"},
		"40k list items":        {strings.Repeat("- ", 40_000) + "x\n", "nesting"},
		"ordered list items":    {strings.Repeat("1. ", 70) + "x\n", "nesting"},
		"deep indentation":      {indented(300), "nesting"},
		"quote markers alone":   {strings.Repeat(">", 100) + "\n", "nesting"},
		"blank indented line":   {strings.Repeat(" ", 1000) + "\n", ""},
		"10,000 links":          {strings.Repeat("[a](b) ", MaxLinks), ""},
		"10,001 links":          {strings.Repeat("[a](b) ", MaxLinks+1), "links"},
		"link openings":         {strings.Repeat("[a](", 5000), "linkScan"},
		"angled link openings":  {strings.Repeat("[a](<", 5000), "linkScan"},
		"many [":                {strings.Repeat("[", MaxNodes+1), "nodes"},
		"links with spaces":     {strings.Repeat("[a]( ", 9000), ""},
		"many lines":            {strings.Repeat("a\n", MaxNodes+1), "nodes"},
		"marks in fenced code":  {"```c\n" + strings.Repeat("*p = a[i] | b_c;\n", 10_000) + "```\n\n\n", ""},
		"marks in quoted code":  {"> ~~~\n" + strings.Repeat("> *p = a[i] | b_c;\n", 10_000) + "> ~~~\n", ""},
		"marks after the fence": {"```\n```\n" + strings.Repeat("*p = a[i] | b_c;\n", 10_000), "nodes"},
		"fence left by a list":  {"- ```\n" + strings.Repeat("[", MaxNodes+1) + "\n", "nodes"},
		"fence left by a quote": {"> ```\n" + strings.Repeat("[", MaxNodes+1) + "\n", "nodes"},
		"blank in a fence":      {"    - ```\n\n" + strings.Repeat("    [\n", 10) + "```\n", ""},
	} {
		err := Check(c.src)
		var le *LimitError
		switch {
		case c.limit == "" && err != nil:
			t.Errorf("%s: refused: %v", name, err)
		case c.limit != "" && (!errors.As(err, &le) || le.Limit != c.limit):
			t.Errorf("%s: %v, want the %s bound", name, err, c.limit)
		}
	}
}

func indented(n int) string {
	var b strings.Builder
	for i := range n {
		b.WriteString(strings.Repeat(" ", 2*i) + "- x\n")
	}
	return b.String()
}

// TestCheckIsLinear: 1 MiB of each hostile shape is measured in
// milliseconds (the check reads the body once).
func TestCheckIsLinear(t *testing.T) {
	for _, unit := range []string{">", "- ", "[a](", "[a](<", "[", "*a ", "a\n", " "} {
		src := strings.Repeat(unit, (1<<20)/len(unit))
		start := time.Now()
		Check(src)
		if took := time.Since(start); took > 200*time.Millisecond {
			t.Errorf("%q x %d: %v", unit, len(src)/len(unit), took)
		}
	}
}

// TestOverTheBoundsReadAsText: a body over the bounds (stored before
// them) is never parsed: no links or title, one section of its text, a
// document of one Markdown code block.
func TestOverTheBoundsReadAsText(t *testing.T) {
	src := strings.Repeat("> ", 100) + "[x](y)\n"
	a := Analyze(src)
	if a.Err == nil || a.Links != nil || a.Title != "" || len(a.Sections) != 1 || !strings.Contains(a.Sections[0].Body, "[x](y)") {
		t.Fatalf("analysis: %+v", a)
	}
	doc := ToDocument(src, nil)
	if len(doc.Nodes) != 1 || doc.Nodes[0].Type != "code" || doc.Nodes[0].Data["syntax"] != "markdown" {
		t.Fatalf("document: %+v", doc.Nodes)
	}
	if TextRuns(src) != nil {
		t.Fatal("text runs of a body over the bounds")
	}
}

// TestDocumentJSONOnce: a document is built once per content and
// reference key, concurrent reads included; another key builds anew.
func TestDocumentJSONOnce(t *testing.T) {
	src := "# Once\n\n[a](a.png) [b](b.png)\n" + strings.Repeat("text ", 1000)
	var refs atomic.Int32
	ref := func(dest string) map[string]any { refs.Add(1); return map[string]any{"kind": "url", "url": dest} }
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() { defer wg.Done(); DocumentJSON(src, "files-1", ref) }()
	}
	wg.Wait()
	if n := refs.Load(); n != 2 {
		t.Fatalf("references resolved %d times, want 2 (one build)", n)
	}
	DocumentJSON(src, "files-2", ref)
	if n := refs.Load(); n != 4 {
		t.Fatalf("another reference key: resolved %d times, want 4", n)
	}
}

// TestNestedEmphasisIsLinear: marks are carried once however deep the
// emphasis nests (each level copied the list: quadratic).
func TestNestedEmphasisIsLinear(t *testing.T) {
	src := strings.Repeat("*a", 20_000) + strings.Repeat("a*", 20_000)
	start := time.Now()
	doc := ToDocument(src, nil)
	if took := time.Since(start); took > 2*time.Second {
		t.Fatalf("%v", took)
	}
	var deepest int
	var walk func(n *Node)
	walk = func(n *Node) {
		for _, l := range n.Leaves {
			deepest = max(deepest, len(l.Marks))
		}
		for _, c := range n.Nodes {
			walk(c)
		}
	}
	for _, n := range doc.Nodes {
		walk(n)
	}
	if deepest > 4 {
		t.Fatalf("a leaf carries %d marks", deepest)
	}
}

// TestDocumentAtTheBoundsIsLinear: the document of a body just inside the
// bounds (quotes 60 deep, 4,000 list items of links, marks and code:
// about 48,000 elements) is built in time and memory linear in its size.
func TestDocumentAtTheBoundsIsLinear(t *testing.T) {
	var b strings.Builder
	b.WriteString(strings.Repeat("> ", 60) + "deep\n\n")
	for i := range 4_000 {
		fmt.Fprintf(&b, "- **item** [link %d](https://bounds.example/%d) _and_ `code`\n", i, i)
	}
	src := b.String()
	if err := Check(src); err != nil {
		t.Fatal(err)
	}
	costcheck.Linear(t, "document at the bounds", len(src), func() {
		if _, err := json.Marshal(ToDocument(src, nil)); err != nil {
			t.Fatal(err)
		}
	})
}
