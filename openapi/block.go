package openapi

import (
	"context"
	"fmt"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
)

// A page's OpenAPI blocks (openapi-operation, swagger, openapi-webhook,
// openapi-schemas) point into a stored specification; the reader site,
// the page's Markdown and its PDF show what they point at, rendered here
// as Markdown in the form of the computed pages (RenderMarkdown).

// ErrNoSuchOperation is returned when a specification has no operation
// (or webhook) at the method and path a block names.
var ErrNoSuchOperation = fmt.Errorf("openapi: no such operation in the specification")

// RenderOperation renders one operation of a stored (already validated)
// document: method and path, summary, description, parameters, request
// body and responses. webhook names a webhook (OpenAPI 3.1) instead of a
// path.
func RenderOperation(ctx context.Context, data []byte, method, path string, webhook bool) (string, error) {
	doc, err := load(ctx, data)
	if err != nil {
		return "", err
	}
	m := strings.ToUpper(strings.TrimSpace(method))
	var item *openapi3.PathItem
	switch {
	case webhook:
		item = doc.Webhooks[path]
	case doc.Paths != nil:
		item = doc.Paths.Value(path)
	}
	if item == nil {
		return "", ErrNoSuchOperation
	}
	op := item.GetOperation(m)
	if op == nil {
		return "", ErrNoSuchOperation
	}
	var b strings.Builder
	renderOperation(&b, m, path, op)
	return strings.TrimRight(b.String(), "\n") + "\n", nil
}

// RenderSchemas renders the named component schemas of a stored document
// (those it has; none is ErrNoSuchOperation).
func RenderSchemas(ctx context.Context, data []byte, names []string) (string, error) {
	doc, err := load(ctx, data)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for _, name := range names {
		if doc.Components == nil {
			break
		}
		s, ok := doc.Components.Schemas[name]
		if !ok {
			continue
		}
		fmt.Fprintf(&b, "## %s\n\n", inline(name))
		if s.Value != nil && s.Value.Description != "" {
			b.WriteString(strings.TrimSpace(s.Value.Description) + "\n\n")
		}
		renderProperties(&b, s)
	}
	if b.Len() == 0 {
		return "", ErrNoSuchOperation
	}
	return strings.TrimRight(b.String(), "\n") + "\n", nil
}
