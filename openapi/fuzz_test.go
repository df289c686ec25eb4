package openapi

import (
	"context"
	"testing"
)

// FuzzOpenAPIIngestion: any bytes as an OpenAPI document: refused with a
// parse error, or accepted and then rendered as Markdown without a panic.
func FuzzOpenAPIIngestion(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 256<<10 {
			return
		}
		ctx := context.Background()
		if _, err := Parse(ctx, data); err != nil {
			return
		}
		if _, err := RenderMarkdown(ctx, data, true); err != nil {
			t.Fatalf("an accepted document does not render: %v", err)
		}
		if _, err := DecodeJSON(data, FormatOf(data)); err != nil {
			t.Fatalf("an accepted document does not decode: %v", err)
		}
	})
}
