package docwalk_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	lpdf "github.com/ledongthuc/pdf"

	"docsapi/docrender"
	"docsapi/docwalk"
	"docsapi/docwalk/docwalktest"
	"docsapi/markdown"
	"docsapi/pdf"
)

// specKinds reads the committed list of 0.130.0's block types.
func specKinds(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile("testdata/blocks-0.130.0.txt")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for line := range strings.Lines(string(b)) {
		if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
			out = append(out, line)
		}
	}
	return out
}

// The walk names exactly the block types of the 0.130.0 document model;
// the committed list is checked against the package's own spec when the
// official client's node_modules are installed.
func TestBlockKindsAreTheSpecs(t *testing.T) {
	want := specKinds(t)
	if got := docwalk.Kinds(); !slices.Equal(got, want) {
		t.Errorf("docwalk.Blocks names %v\nthe 0.130.0 model has %v", got, want)
	}
	raw, err := os.ReadFile("../test/client/node_modules/@gitbook/api/spec/openapi.json")
	if errors.Is(err, fs.ErrNotExist) {
		t.Log("test/client/node_modules absent (cd test/client && npm ci): the committed list is not rechecked")
		return
	} else if err != nil {
		t.Fatal(err)
	}
	type schema struct {
		OneOf []struct {
			Ref string `json:"$ref"`
		} `json:"oneOf"`
		Properties struct {
			Type struct {
				Enum []string `json:"enum"`
			} `json:"type"`
		} `json:"properties"`
	}
	var spec struct {
		Components struct {
			Schemas map[string]schema `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(raw, &spec); err != nil {
		t.Fatal(err)
	}
	var fromSpec []string
	for _, r := range spec.Components.Schemas["DocumentBlock"].OneOf {
		name := r.Ref[strings.LastIndex(r.Ref, "/")+1:]
		fromSpec = append(fromSpec, spec.Components.Schemas[name].Properties.Type.Enum...)
	}
	slices.Sort(fromSpec)
	if len(fromSpec) == 0 || !slices.Equal(fromSpec, want) {
		t.Errorf("testdata/blocks-0.130.0.txt %v\nthe package's spec %v", want, fromSpec)
	}
}

// resolver answers the references the samples make, for all three outputs.
var (
	operationDoc = func(n *markdown.Node) (*markdown.Document, bool) {
		return docwalktest.Document(docwalktest.Block("paragraph", nil, docwalktest.Text("operation of "+n.Type))), true
	}
	reusableDoc = func(id, space string) (*markdown.Document, bool) {
		return docwalktest.Document(docwalktest.Block("paragraph", nil, docwalktest.Text("reused "+id))), id == "rc1"
	}
	res = docrender.Resolver{OpenAPI: operationDoc, Reusable: reusableDoc}
)

// shown is the text each output must show for a sample of typ ("" for
// kinds without text of their own: their output must still differ from
// an empty document's).
func shown(typ string) string {
	switch typ {
	case "divider", "drawing", "file":
		return ""
	case "embed", "content-ref":
		return "example.com/" + typ
	case "math":
		return "e = mc^2"
	case "openapi-operation", "openapi-webhook", "openapi-schemas", "swagger":
		return "operation of " + typ
	case "reusable-content":
		return "reused rc1"
	case "integration":
		return "mermaid"
	}
	return docwalktest.Marker(typ)
}

func pdfText(t *testing.T, data []byte) string {
	t.Helper()
	r, err := lpdf.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for i := 1; i <= r.NumPage(); i++ {
		s, err := r.Page(i).GetPlainText(nil)
		if err != nil {
			t.Fatal(err)
		}
		b.WriteString(s)
	}
	return b.String()
}

// Every block kind the 0.130.0 model allows has an HTML, a Markdown and a
// PDF form: each output of a one-block document shows the block's text
// (or, for kinds without text, differs from the empty document's).
func TestEveryBlockKindHasThreeForms(t *testing.T) {
	outputs := map[string]func(*markdown.Document) string{
		"HTML":     func(d *markdown.Document) string { return string(docrender.Render(d, res).HTML) },
		"Markdown": func(d *markdown.Document) string { return docrender.Markdown(d, res) },
		"PDF": func(d *markdown.Document) string {
			data, err := pdf.Render(context.Background(), pdf.Document{Title: "T", Pages: []pdf.Page{{Title: "P", Document: d}},
				OpenAPI: operationDoc, Reusable: reusableDoc})
			if err != nil {
				t.Fatal(err)
			}
			// Its text, and its size: a rule has no text but draws.
			return pdfText(t, data) + "\n" + strconv.Itoa(len(data)) + " bytes"
		},
	}
	for name, render := range outputs {
		empty := render(docwalktest.Document())
		for _, typ := range specKinds(t) {
			out := render(docwalktest.Document(docwalktest.Sample(typ)))
			want := shown(typ)
			squash := func(s string) string { return strings.Join(strings.Fields(s), "") }
			switch {
			case want == "" && out == empty:
				t.Errorf("%s has no form for %s: %q", name, typ, out)
			case want != "" && !strings.Contains(squash(out), squash(want)):
				t.Errorf("%s of %s lacks %q:\n%s", name, typ, want, out)
			case name == "HTML" && strings.Contains(out, `class="block-`):
				t.Errorf("HTML of %s is the unknown-kind fallback: %s", typ, out)
			}
		}
	}
}

// A document nested past MaxDepth (a decoded JSON body can nest without
// bound) is walked to the bound, its deeper text kept.
func TestDepthIsBounded(t *testing.T) {
	n := docwalktest.Block("paragraph", nil, docwalktest.Text("deep text"))
	for range 10 * docwalk.MaxDepth {
		n = docwalktest.Block("blockquote", nil, n)
	}
	out := docrender.Markdown(docwalktest.Document(n), docrender.Resolver{})
	if !strings.Contains(out, "deep text") {
		t.Errorf("deep text lost")
	}
	if got := strings.Count(strings.SplitN(out, "\n", 2)[0], ">"); got > docwalk.MaxDepth+1 {
		t.Errorf("%d levels written, bound %d", got, docwalk.MaxDepth)
	}
}
