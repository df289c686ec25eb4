package graph

import (
	"bytes"
	"encoding/json"
	"os"
	"reflect"
	"strings"
	"testing"
)

const gitbookSpec = "../test/client/node_modules/@gitbook/api/spec/openapi.json"

// cutCustomizationShapes takes from the 0.130.0 document the schemas the
// two customization writes use, transitively.
func cutCustomizationShapes(t *testing.T, spec []byte) map[string]any {
	var doc struct {
		Paths      map[string]map[string]any `json:"paths"`
		Components struct {
			Schemas map[string]any `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(spec, &doc); err != nil {
		t.Fatal(err)
	}
	out := map[string]any{}
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			if ref, ok := x["$ref"].(string); ok {
				name := strings.TrimPrefix(ref, "#/components/schemas/")
				if _, seen := out[name]; !seen {
					out[name] = doc.Components.Schemas[name]
					walk(out[name])
				}
			}
			for _, e := range x {
				walk(e)
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	out["SiteCustomizationSettings"] = doc.Components.Schemas["SiteCustomizationSettings"]
	walk(out["SiteCustomizationSettings"])
	patch, _ := doc.Paths["/orgs/{organizationId}/sites/{siteId}/site-spaces/{siteSpaceId}/customization"]["patch"].(map[string]any)
	body := dig(patch, "requestBody", "content", "application/json", "schema")
	if body == nil {
		t.Fatal("overrideSiteSpaceCustomizationById has no request body schema")
	}
	out[overridesShape] = body
	walk(body)
	return out
}

func dig(v any, keys ...string) any {
	for _, k := range keys {
		m, _ := v.(map[string]any)
		v = m[k]
	}
	return v
}

func TestCustomizationShapesFresh(t *testing.T) {
	spec, err := os.ReadFile(gitbookSpec)
	if err != nil {
		t.Skip("no @gitbook/api in test/client/node_modules (cd test/client && npm ci)")
	}
	want := cutCustomizationShapes(t, spec)
	if os.Getenv("DOCSAPI_UPDATE_SHAPES") == "1" {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetIndent("", " ")
		enc.Encode(want)
		if err := os.WriteFile("sitecustomization_shapes.json", buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	var have map[string]any
	if err := json.Unmarshal(customizationShapesJSON, &have); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(have, want) {
		t.Fatal("sitecustomization_shapes.json differs from 0.130.0's: DOCSAPI_UPDATE_SHAPES=1 go test -run TestCustomizationShapesFresh ./graph")
	}
}
