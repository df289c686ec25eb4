package site_test

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"docsapi/docwalk/docwalktest"
	"docsapi/site"
)

const petsSpec = `{"openapi":"3.0.3","info":{"title":"Petstore","version":"1"},
"paths":{"/pets/{id}":{"put":{"summary":"Replace a pet","parameters":[{"name":"id","in":"path","required":true,"schema":{"type":"string"}}],
"requestBody":{"required":true,"content":{"application/json":{"schema":{"$ref":"#/components/schemas/Pet"}}}},
"responses":{"200":{"description":"The pet, replaced"},"404":{"description":"No such pet"}}}}},
"components":{"schemas":{"Pet":{"type":"object","properties":{"name":{"type":"string"}}}}}}`

// OpenAPI blocks show the operation from the organization's stored spec
// (summary, parameters, request body, responses), reusable content blocks
// the content they name, integration blocks a placeholder naming the
// integration: on the page and in its Markdown, as the visitor reads them.
func TestBlocksFromTheOrganization(t *testing.T) {
	f := newReaderFixture(t, "public")
	admin := f.Admin.Token
	org := "/v1/orgs/" + f.Org + "/openapi"
	f.Must(201, "POST", org, admin, map[string]any{"slug": "pets", "source": map[string]any{"text": petsSpec}})
	f.Must(201, "POST", org, admin, map[string]any{"slug": "internal", "source": map[string]any{"text": petsSpec}})
	if _, err := f.Server.OpenAPIProcessor().RunPending(context.Background()); err != nil {
		t.Fatal(err)
	}
	f.Must(200, "PATCH", org+"/pets", admin, map[string]any{"visibility": "public"})
	// A reusable content in the site's API space.
	f.Must(201, "POST", "/v1/spaces/"+f.api+"/content/template", admin, map[string]any{"id": "knowledge-base"})
	rcs := f.Must(200, "GET", "/v1/spaces/"+f.api+"/content", admin, nil).JSON()["reusableContents"].([]any)
	rcID := rcs[0].(map[string]any)["id"].(string)
	rcDoc := f.Must(200, "GET", "/v1/spaces/"+f.api+"/documents/"+rcs[0].(map[string]any)["document"].(string), admin, nil).JSON()
	rcText := ""
	for _, n := range rcDoc["nodes"].([]any) {
		if s := textOf(n); s != "" {
			rcText = s
			break
		}
	}

	op := func(spec string) map[string]any {
		return map[string]any{"ref": map[string]any{"kind": "openapi", "spec": spec}, "method": "put", "path": "/pets/{id}"}
	}
	doc := docwalktest.Document(
		docwalktest.Block("openapi-operation", op("pets")),
		docwalktest.Block("openapi-operation", op("internal")),
		docwalktest.Block("reusable-content", map[string]any{"ref": map[string]any{"kind": "reusable-content", "reusableContent": rcID, "space": f.api}}),
		docwalktest.Block("integration", map[string]any{"integration": "mermaid", "block": "diagram", "props": map[string]any{}}),
	)
	h := site.New(f.Server.Resolver, slog.Default(), http.NotFoundHandler())
	r := httptest.NewRequest("GET", f.base+"/install", nil)
	html, md, err := site.RenderDocument(h, r, doc)
	if err != nil {
		t.Fatal(err)
	}
	for _, out := range []string{html, md} {
		for _, want := range []string{"Replace a pet", "/pets/{id}", "Request body", "No such pet", rcText, "mermaid"} {
			if !strings.Contains(out, want) {
				t.Errorf("lacks %q:\n%s", want, out)
			}
		}
	}
	// The private spec is not the visitor's: the block shows what it points
	// at, not the spec's content (once: the public spec's is there).
	if strings.Count(html, "Replace a pet") != 1 || !strings.Contains(html, "<code>PUT /pets/{id}</code>") {
		t.Errorf("a spec the visitor may not read was rendered:\n%s", html)
	}
}

// textOf is the first text of a document node (JSON).
func textOf(n any) string {
	m, _ := n.(map[string]any)
	for _, l := range asList(m["leaves"]) {
		if s, _ := l.(map[string]any)["text"].(string); strings.TrimSpace(s) != "" {
			return s
		}
	}
	for _, c := range asList(m["nodes"]) {
		if s := textOf(c); s != "" {
			return s
		}
	}
	return ""
}

func asList(v any) []any { l, _ := v.([]any); return l }
