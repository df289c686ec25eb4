package openapi

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

const petstore30 = `{"openapi":"3.0.3","info":{"title":"Petstore","version":"1.2.0"},
"paths":{"/pets":{"get":{"summary":"List pets","responses":{"200":{"description":"ok",
"content":{"application/json":{"schema":{"type":"array","items":{"$ref":"#/components/schemas/Pet"}}}}}}}}},
"components":{"schemas":{"Pet":{"type":"object","properties":{"name":{"type":"string","nullable":true}}}}}}`

const webhooks31 = `openapi: 3.1.0
info:
  title: Events
  version: "2025-01"
webhooks:
  newPet:
    post:
      requestBody:
        content:
          application/json:
            schema:
              type: [object, "null"]
              properties:
                id: {type: integer, exclusiveMinimum: 0}
      responses:
        "200": {description: ok}
`

func TestParseValid(t *testing.T) {
	for _, c := range []struct {
		name, doc, title, version, oas, format string
	}{
		{"3.0 JSON", petstore30, "Petstore", "1.2.0", "3.0.3", "json"},
		{"3.1 YAML with webhooks only", webhooks31, "Events", "2025-01", "3.1.0", "yaml"},
	} {
		d, err := Parse(context.Background(), []byte(c.doc))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if d.Title != c.title || d.Version != c.version || d.OpenAPI != c.oas || d.Format != c.format || !strings.HasPrefix(d.ContentHash, "sha256:") {
			t.Errorf("%s: got %+v", c.name, d)
		}
	}
}

func TestParseRefusals(t *testing.T) {
	for name, doc := range map[string]string{
		"empty":                    "  \n",
		"not a doc":                "{not json",
		"swagger 2":                `{"swagger":"2.0","info":{"title":"x","version":"1"},"paths":{}}`,
		"3.2 unsupported":          `{"openapi":"4.0.0","info":{"title":"x","version":"1"},"paths":{}}`,
		"no info":                  `{"openapi":"3.0.3","paths":{}}`,
		"bad response":             `{"openapi":"3.0.3","info":{"title":"x","version":"1"},"paths":{"/a":{"get":{"responses":{"200":{}}}}}}`,
		"external ref":             `{"openapi":"3.0.3","info":{"title":"x","version":"1"},"paths":{"/a":{"get":{"responses":{"200":{"$ref":"http://169.254.169.254/r.json"}}}}}}`,
		"3.0 boolean bound in 3.1": `{"openapi":"3.1.0","info":{"title":"x","version":"1"},"paths":{},"components":{"schemas":{"A":{"type":"integer","minimum":0,"exclusiveMinimum":true}}}}`,
		"3.1 type array in 3.0":    `{"openapi":"3.0.3","info":{"title":"x","version":"1"},"paths":{},"components":{"schemas":{"A":{"type":["string","null"]}}}}`,
	} {
		_, err := Parse(context.Background(), []byte(doc))
		var pe *ParseError
		if !errors.As(err, &pe) {
			t.Errorf("%s: err = %v, want a ParseError", name, err)
		}
	}
}

// TestExternalRefsAreNotFetched: a $ref to a URL (loopback, cloud metadata)
// or a file is refused, and nothing is fetched.
func TestExternalRefsAreNotFetched(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Write([]byte(`{"type":"string"}`))
	}))
	defer srv.Close()
	for _, ref := range []string{srv.URL + "/schema.json", "http://169.254.169.254/latest/meta-data/", "file:///etc/passwd", "/etc/passwd#/x", "other.yaml#/components/schemas/X"} {
		doc := `{"openapi":"3.0.3","info":{"title":"t","version":"1"},"paths":{"/a":{"get":{"responses":{"200":{"description":"ok",
			"content":{"application/json":{"schema":{"$ref":"` + ref + `"}}}}}}}}}`
		if _, err := Parse(context.Background(), []byte(doc)); err == nil {
			t.Errorf("%s: accepted", ref)
		}
		if _, err := RenderMarkdown(context.Background(), []byte(doc), true, 1<<20); err == nil {
			t.Errorf("%s: rendered", ref)
		}
	}
	if hits.Load() != 0 {
		t.Fatalf("the loopback server was fetched %d times", hits.Load())
	}
}
