package graph

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"docsapi/apierr"
	"docsapi/graph/model"
	"docsapi/jsonshape"
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

// A refusal case derived from the schema: the valid body with one value
// broken, and the field path the 400 must name.
type shapeCase struct {
	name string
	path string
	body map[string]any
}

func cloneJSON(v any) any {
	b, _ := json.Marshal(v)
	var out any
	json.Unmarshal(b, &out)
	return out
}

// setAt returns a copy of body with the value at keys replaced (del:
// removed).
func setAt(body map[string]any, keys []string, v any, del bool) map[string]any {
	out := cloneJSON(body).(map[string]any)
	m := out
	for _, k := range keys[:len(keys)-1] {
		m = m[k].(map[string]any)
	}
	if del {
		delete(m, keys[len(keys)-1])
	} else {
		m[keys[len(keys)-1]] = v
	}
	return out
}

// resolve follows $ref and, for a oneOf, the branch the valid value v
// matches (branched: there was a choice).
// (kin-openapi's loader has resolved every $ref into SchemaRef.Value.)
func resolve(s *openapi3.Schema, v any) (_ *openapi3.Schema, branched bool) {
	for {
		if len(s.OneOf) == 0 {
			return s, branched
		}
		branched = true
		var next *openapi3.Schema
		for _, b := range s.OneOf {
			if jsonshape.Check(b.Value, "", v) == nil {
				next = b.Value
				break
			}
		}
		if next == nil {
			return s, branched
		}
		s = next
	}
}

// deriveCases walks the valid body beside its schema and, for every
// constraint met on the way (enum, pattern, length, bounds, type,
// required, unknown keys), makes one body that breaks it there.
func deriveCases(root *openapi3.Schema, body map[string]any) []shapeCase {
	var cases []shapeCase
	var walk func(s *openapi3.Schema, v any, keys []string, branched bool)
	walk = func(s *openapi3.Schema, v any, keys []string, branched bool) {
		s, b := resolve(s, v)
		branched = branched || b
		path := strings.Join(keys, ".")
		keep := func(c shapeCase) {
			// Below a oneOf, breaking one branch can make another match
			// (a favicon without its emoji is the empty favicon): that is
			// no refusal.
			if branched && jsonshape.Check(root, "", c.body) == nil {
				return
			}
			cases = append(cases, c)
		}
		add := func(what string, bad any) {
			keep(shapeCase{name: path + " " + what, path: path, body: setAt(body, keys, bad, false)})
		}
		switch x := v.(type) {
		case string:
			if len(s.Enum) > 0 {
				add("outside its enum", "not-one-of-them")
			}
			if s.Pattern != "" {
				pattern := regexp.MustCompile(s.Pattern)
				for _, bad := range []string{"x", "#zzz", "not a match at all"} {
					if !pattern.MatchString(bad) {
						add("against its pattern", bad)
						break
					}
				}
			}
			if s.MaxLength != nil {
				add("too long", strings.Repeat("a", int(*s.MaxLength)+1))
			}
			if s.MinLength > 0 {
				add("too short", strings.Repeat("a", int(s.MinLength)-1))
			}
			if s.Format == "uri" {
				add("not a URL", "no scheme here")
			}
			if s.Type.Is(openapi3.TypeString) && len(keys) > 0 {
				add("not a string", 12.0)
			}
		case float64:
			if s.Max != nil {
				add("above its maximum", *s.Max+1)
			}
			if s.Min != nil {
				add("below its minimum", *s.Min-1)
			}
		case bool:
			if s.Type.Is(openapi3.TypeBoolean) {
				add("not a boolean", "yes")
			}
		case map[string]any:
			if len(keys) > 0 && s.Type.Is(openapi3.TypeObject) {
				add("not an object", "flat")
			}
			for _, r := range s.Required {
				if _, ok := x[r]; ok {
					k := append(append([]string{}, keys...), r)
					keep(shapeCase{name: strings.Join(k, ".") + " missing", path: strings.Join(k, "."), body: setAt(body, k, nil, true)})
				}
			}
			// jsonshape.Compile stated additionalProperties: false where
			// the published schema listed properties and said nothing.
			if len(s.Properties) > 0 && s.AdditionalProperties.Has != nil && !*s.AdditionalProperties.Has {
				k := append(append([]string{}, keys...), "notInTheSchema")
				keep(shapeCase{name: strings.Join(k, ".") + " unknown", path: strings.Join(k, "."), body: setAt(body, k, true, false)})
			}
			for name, e := range x {
				if p, ok := s.Properties[name]; ok {
					walk(p.Value, e, append(append([]string{}, keys...), name), branched)
				}
			}
		}
	}
	walk(root, body, nil, false)
	return cases
}

func validCustomization() map[string]any {
	return cloneJSON(siteCustomization(&model.Site{Title: "Docs", Icon: &model.SiteIcon{Emoji: ptrTo("📘")}})).(map[string]any)
}

func TestCustomizationShapeRefusals(t *testing.T) {
	settings := validCustomization()
	if err := checkCustomizationShape("SiteCustomizationSettings", settings); err != nil {
		t.Fatalf("the defaults are not a 0.130.0 SiteCustomizationSettings: %v", err)
	}
	overrides := map[string]any{"title": "Beta", "styling": map[string]any{"theme": "muted", "primaryColor": map[string]any{"light": "#ff0000", "dark": "#f00"}},
		"internationalization": map[string]any{"locale": "fr"}, "pdf": map[string]any{"enabled": false}, "privacyPolicy": map[string]any{"url": "https://example.com/privacy"}}
	if err := checkCustomizationShape(overridesShape, overrides); err != nil {
		t.Fatalf("overrides refused: %v", err)
	}
	for _, set := range []struct {
		shape string
		body  map[string]any
		min   int
	}{{"SiteCustomizationSettings", settings, 60}, {overridesShape, overrides, 10}} {
		cases := deriveCases(customizationShapes[set.shape], set.body)
		t.Logf("%s: %d refusals derived", set.shape, len(cases))
		if len(cases) < set.min {
			t.Errorf("%s: only %d cases derived", set.shape, len(cases))
		}
		for _, c := range cases {
			err := checkCustomizationShape(set.shape, c.body)
			if err == nil {
				t.Errorf("%s: %s: accepted", set.shape, c.name)
				continue
			}
			var e *apierr.Error
			if !errors.As(err, &e) || e.Status != 400 || e.Field != c.path {
				t.Errorf("%s: %s: got %v (field %q), want 400 naming %s", set.shape, c.name, err, e.Field, c.path)
			}
		}
	}
}

// The examples the issue names, spelled out.
func TestCustomizationShapeNamedFields(t *testing.T) {
	bad := validCustomization()
	bad["styling"].(map[string]any)["primaryColor"] = map[string]any{"light": "red", "dark": "#000"}
	for _, c := range []struct {
		shape string
		body  map[string]any
		field string
	}{
		{"SiteCustomizationSettings", bad, "styling.primaryColor.light"},
		{overridesShape, map[string]any{"styling": map[string]any{"primaryColor": map[string]any{"light": "#fff", "dark": "blue"}}}, "styling.primaryColor.dark"},
		{overridesShape, map[string]any{"styling": map[string]any{"theme": "neon"}}, "styling.theme"},
		{overridesShape, map[string]any{"favicon": map[string]any{"emoji": "x", "icon": "y"}}, "favicon.emoji"},
		{overridesShape, map[string]any{"footer": map[string]any{"groups": []any{map[string]any{"title": 3, "links": []any{}}}}}, "footer.groups[0].title"},
	} {
		err := checkCustomizationShape(c.shape, c.body)
		var e *apierr.Error
		if !errors.As(err, &e) || e.Field != c.field {
			t.Errorf("%v: got %v, want 400 naming %s", c.body, err, c.field)
		}
	}
	// Nulls reset overrides: accepted at both levels.
	if err := checkCustomizationShape(overridesShape, map[string]any{"title": nil, "styling": map[string]any{"theme": nil}}); err != nil {
		t.Errorf("nulls refused: %v", err)
	}
}

// FuzzCustomizationShape: any JSON body is answered (never a panic, never
// unbounded work), the same way twice, and a body accepted survives a
// round trip through JSON.
func FuzzCustomizationShape(f *testing.F) {
	for _, seed := range []string{`{}`, `{"styling":{"primaryColor":{"light":"#fff","dark":"#000"}}}`, `{"favicon":{"icon":{"light":"https://x.y/a.png","dark":"https://x.y/b.png"}}}`,
		`{"header":{"links":[{"title":"a","links":[],"to":null}]}}`, strings.Repeat(`{"a":`, 100) + `1` + strings.Repeat(`}`, 100)} {
		f.Add([]byte(seed))
	}
	valid, _ := json.Marshal(validCustomization())
	f.Add(valid)
	f.Fuzz(func(t *testing.T, data []byte) {
		var v map[string]any
		if json.Unmarshal(data, &v) != nil || v == nil {
			return
		}
		for _, shape := range []string{"SiteCustomizationSettings", overridesShape} {
			e1 := checkCustomizationShape(shape, v)
			e2 := checkCustomizationShape(shape, v)
			if (e1 == nil) != (e2 == nil) || (e1 != nil && e1.Error() != e2.Error()) {
				t.Fatalf("%s: %v then %v", shape, e1, e2)
			}
			if e1 == nil {
				if err := checkCustomizationShape(shape, cloneJSON(v).(map[string]any)); err != nil {
					t.Fatalf("%s: accepted, then refused after a round trip: %v", shape, err)
				}
			} else if apierr.Status(e1) != 400 {
				t.Fatalf("%s: %v is not a 400", shape, e1)
			}
		}
	})
}

func ptrTo[T any](v T) *T { return &v }
