package jsonshape

import (
	"encoding/json"
	"strings"
	"testing"
)

const testShapes = `{
 "Color": {"type": "string", "pattern": "^#(?:[0-9a-fA-F]{3}){1,2}$"},
 "Themed": {"type": "object", "properties": {"light": {"$ref": "#/components/schemas/Color"}, "dark": {"$ref": "#/components/schemas/Color"}}, "required": ["light", "dark"]},
 "Icon": {"oneOf": [
   {"type": "object", "properties": {"emoji": {"type": "string", "maxLength": 2}}, "required": ["emoji"]},
   {"type": "object", "properties": {}, "additionalProperties": false}]},
 "Root": {"type": "object", "properties": {
   "color": {"$ref": "#/components/schemas/Themed"},
   "icon": {"$ref": "#/components/schemas/Icon"},
   "mode": {"oneOf": [{"type": "string", "enum": ["a", "b"]}, {"type": "string", "nullable": true, "enum": [null]}]},
   "weight": {"type": "integer", "minimum": 1, "maximum": 1000},
   "links": {"type": "array", "minItems": 1, "items": {"type": "object", "properties": {"url": {"type": "string", "format": "uri"}}}},
   "free": {"type": "object"},
   "tags": {"type": "object", "additionalProperties": {"type": "boolean"}},
   "when": {"type": "string", "format": "date-time"},
   "either": {"oneOf": [{"type": "string"}, {"type": "string", "maxLength": 3}]}}}
}`

func TestCheck(t *testing.T) {
	set, err := Compile([]byte(testShapes))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ body, path string }{
		{`{}`, ""},
		{`{"color": {"light": "#fff", "dark": "#000000"}, "icon": {}, "mode": null, "weight": 400, "links": [{"url": "https://x.y"}], "free": {"any": [1]}, "tags": {"x": true}}`, ""},
		{`{"color": {"light": "#ffff", "dark": "#000"}}`, "color.light"},
		{`{"color": {"light": "#fff"}}`, "color.dark"},
		{`{"color": {"light": "#fff", "dark": "#000", "mid": "#111"}}`, "color.mid"},
		{`{"icon": {"emoji": "toolong"}}`, "icon.emoji"},
		{`{"icon": {"other": 1}}`, "icon.emoji"}, // no branch fits: the first of the deepest refusals
		{`{"mode": "c"}`, "mode"},
		{`{"weight": 0}`, "weight"},
		{`{"weight": 1.5}`, "weight"},
		{`{"links": []}`, "links"},
		{`{"links": [{"url": "https://x.y"}, {"url": "nope"}]}`, "links[1].url"},
		{`{"tags": {"x": "yes"}}`, "tags.x"},
		{`{"unknown": 1}`, "unknown"},
		{`{"when": "2026-11-27T09:00:00Z", "either": "long"}`, ""},
		{`{"when": "yesterday"}`, "when"},
		{`{"either": "ab"}`, "either"}, // both branches match: oneOf wants exactly one
		{`{"links": [{"url": "https://x.y", "extra": 1}]}`, "links[0].extra"},
		{`[]`, "body"},
	} {
		var v any
		if err := json.Unmarshal([]byte(c.body), &v); err != nil {
			t.Fatal(err)
		}
		got := Check(set["Root"], "", v)
		switch {
		case c.path == "" && got != nil:
			t.Errorf("%s: refused: %v", c.body, got)
		case c.path != "" && (got == nil || got.Path != c.path):
			t.Errorf("%s: got %v, want a refusal at %s", c.body, got, c.path)
		}
	}
}

// A body nested past MaxDepth, or made of more than MaxNodes values, is
// refused before it is validated at all.
func TestCheckBounds(t *testing.T) {
	set, err := Compile([]byte(`{"Tree": {"type": "object", "properties": {"child": {"$ref": "#/components/schemas/Tree"}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	// "unknown" alone would be refused at the root: the bounds come first.
	deep := `{"unknown": 1, "child":` + strings.Repeat(`{"child":`, MaxDepth+5) + `{}` + strings.Repeat(`}`, MaxDepth+6)
	var v any
	json.Unmarshal([]byte(deep), &v)
	if got := Check(set["Tree"], "", v); got == nil || !strings.Contains(got.Message, "deeper") {
		t.Errorf("deep body: %v", got)
	}
	wide := make([]any, MaxNodes+1)
	for i := range wide {
		wide[i] = true
	}
	set2, _ := Compile([]byte(`{"L": {"type": "array", "items": {"type": "boolean"}}}`))
	if got := Check(set2["L"], "", wide); got == nil || !strings.Contains(got.Message, "more than") {
		t.Errorf("wide body: %v", got)
	}
}

func TestCompileRefusesUnresolvedRef(t *testing.T) {
	if _, err := Compile([]byte(`{"A": {"$ref": "#/components/schemas/B"}}`)); err == nil {
		t.Error("unresolved $ref compiled")
	}
}
