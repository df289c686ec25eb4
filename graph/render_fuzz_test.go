package graph

import (
	"testing"

	lzstring "github.com/daku10/go-lz-string"
)

// FuzzRenderRequest: any request parameter is refused or parsed, never a
// panic; a parsed request completes an element output with object state
// and props (0.130.0 requires both).
func FuzzRenderRequest(f *testing.F) {
	for _, raw := range []string{
		`{"componentId":"c","props":{"a":1},"context":{"type":"configuration_account","theme":"light","organizationId":"o"}}`,
		`{"componentId":"c","props":{},"state":{"n":2},"context":{"type":"document","theme":"dark","spaceId":"s","editable":true}}`,
		`{"componentId":"c","props":{},"context":{"type":"configuration_site","theme":"dark"}}`,
		`{"componentId":"","props":{},"context":{}}`, `[]`, `null`,
	} {
		enc, err := lzstring.CompressToEncodedURIComponent(raw)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(enc, true)
	}
	f.Add("!!!", false)
	f.Fuzz(func(t *testing.T, compressed string, answered bool) {
		req, err := parseRenderRequest(compressed)
		if err != nil {
			return
		}
		out := map[string]any{"type": "element", "element": map[string]any{"type": "block"}}
		if answered {
			out["state"], out["props"] = map[string]any{"kept": true}, map[string]any{"kept": true}
		}
		keepStateAndProps(out, req)
		state, sok := out["state"].(map[string]any)
		props, pok := out["props"].(map[string]any)
		if !sok || !pok {
			t.Fatalf("state or props not objects: %#v", out)
		}
		if answered && (state["kept"] != true || props["kept"] != true) {
			t.Fatalf("the runtime's own state and props were replaced: %#v", out)
		}
	})
}
