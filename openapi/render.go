package openapi

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
)

// methodOrder is the order operations of one path are rendered in.
var methodOrder = []string{"GET", "PUT", "POST", "DELETE", "OPTIONS", "HEAD", "PATCH", "TRACE"}

// RenderMarkdown renders a stored (already validated) document as the
// Markdown body of a computed page: a short introduction, then one section
// per operation (method and path, summary, description, parameters, request
// body, responses), paths in alphabetical order; with models, a section per
// component schema. The Markdown is at most maxBytes long: a larger
// description ends, after its last whole section, with a notice saying how
// much is left out (a page read stays readable, and pages hold at most
// 1 MiB). It stops with ctx.Err() when ctx ends.
func RenderMarkdown(ctx context.Context, data []byte, models bool, maxBytes int) (string, error) {
	doc, err := load(ctx, data)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	var section strings.Builder
	omitted := 0 // sections left out
	// add appends the section written into section, unless the page is full.
	add := func() {
		if omitted == 0 && b.Len()+section.Len() <= maxBytes-truncationNoticeBytes {
			b.WriteString(section.String())
		} else {
			omitted++
		}
		section.Reset()
	}
	if doc.Info != nil {
		fmt.Fprintf(&section, "%s, version %s (OpenAPI %s).\n\n", inline(doc.Info.Title), inline(doc.Info.Version), doc.OpenAPI)
		if d := strings.TrimSpace(doc.Info.Description); d != "" {
			section.WriteString(d + "\n\n")
		}
	}
	if len(doc.Servers) > 0 {
		section.WriteString("Servers:\n\n")
		for _, s := range doc.Servers {
			fmt.Fprintf(&section, "- `%s`\n", s.URL)
		}
		section.WriteString("\n")
	}
	add()
	var paths []string
	if doc.Paths != nil {
		for p := range doc.Paths.Map() {
			paths = append(paths, p)
		}
	}
	slices.Sort(paths)
	n := 0
	for _, p := range paths {
		if err := ctx.Err(); err != nil {
			return "", err
		}
		ops := doc.Paths.Value(p).Operations()
		for _, m := range methodOrder {
			if op := ops[m]; op != nil {
				renderOperation(&section, m, p, op)
				add()
				n++
			}
		}
	}
	if n == 0 {
		b.WriteString("The specification describes no operations.\n\n")
	}
	if models && doc.Components != nil && len(doc.Components.Schemas) > 0 {
		section.WriteString("## Models\n\n")
		names := make([]string, 0, len(doc.Components.Schemas))
		for name := range doc.Components.Schemas {
			names = append(names, name)
		}
		slices.Sort(names)
		for _, name := range names {
			if err := ctx.Err(); err != nil {
				return "", err
			}
			s := doc.Components.Schemas[name]
			fmt.Fprintf(&section, "### %s\n\n", inline(name))
			if s.Value != nil && s.Value.Description != "" {
				section.WriteString(strings.TrimSpace(s.Value.Description) + "\n\n")
			}
			renderProperties(&section, s)
			add()
		}
	}
	if omitted > 0 {
		fmt.Fprintf(&b, "> [!WARNING]\n> This page ends here: the specification renders to more than %d bytes, the most a page holds. %d more sections (operations and models) are left out; read them in the specification itself.\n", maxBytes, omitted)
	}
	return strings.TrimRight(b.String(), "\n") + "\n", nil
}

// truncationNoticeBytes is the room kept for the notice of a truncated page.
const truncationNoticeBytes = 512

func renderOperation(b *strings.Builder, method, path string, op *openapi3.Operation) {
	fmt.Fprintf(b, "## %s %s\n\n", method, inline(path))
	if op.Deprecated {
		b.WriteString("Deprecated.\n\n")
	}
	if op.Summary != "" {
		fmt.Fprintf(b, "**%s**\n\n", inline(op.Summary))
	}
	if d := strings.TrimSpace(op.Description); d != "" {
		b.WriteString(d + "\n\n")
	}
	if op.OperationID != "" {
		fmt.Fprintf(b, "Operation ID: `%s`\n\n", op.OperationID)
	}
	if len(op.Parameters) > 0 {
		b.WriteString("### Parameters\n\n| Name | In | Type | Required | Description |\n|---|---|---|---|---|\n")
		for _, pr := range op.Parameters {
			if p := pr.Value; p != nil {
				fmt.Fprintf(b, "| `%s` | %s | %s | %s | %s |\n", p.Name, p.In, schemaType(p.Schema), yesNo(p.Required), cell(p.Description))
			}
		}
		b.WriteString("\n")
	}
	if rb := op.RequestBody; rb != nil && rb.Value != nil {
		b.WriteString("### Request body\n\n")
		if d := strings.TrimSpace(rb.Value.Description); d != "" {
			b.WriteString(d + "\n\n")
		}
		fmt.Fprintf(b, "Required: %s.\n\n", yesNo(rb.Value.Required))
		renderContent(b, rb.Value.Content)
	}
	if op.Responses != nil && op.Responses.Len() > 0 {
		b.WriteString("### Responses\n\n| Status | Description | Content |\n|---|---|---|\n")
		codes := make([]string, 0, op.Responses.Len())
		for code := range op.Responses.Map() {
			codes = append(codes, code)
		}
		slices.Sort(codes)
		for _, code := range codes {
			r := op.Responses.Value(code)
			if r == nil || r.Value == nil {
				continue
			}
			desc := ""
			if r.Value.Description != nil {
				desc = *r.Value.Description
			}
			fmt.Fprintf(b, "| %s | %s | %s |\n", code, cell(desc), contentSummary(r.Value.Content))
		}
		b.WriteString("\n")
	}
}

func renderContent(b *strings.Builder, c openapi3.Content) {
	if len(c) == 0 {
		return
	}
	b.WriteString("| Content type | Schema |\n|---|---|\n")
	for _, mt := range sortedKeys(c) {
		fmt.Fprintf(b, "| `%s` | %s |\n", mt, schemaType(c[mt].Schema))
	}
	b.WriteString("\n")
}

func contentSummary(c openapi3.Content) string {
	var parts []string
	for _, mt := range sortedKeys(c) {
		parts = append(parts, "`"+mt+"`: "+schemaType(c[mt].Schema))
	}
	return strings.Join(parts, "; ")
}

func renderProperties(b *strings.Builder, s *openapi3.SchemaRef) {
	if s == nil || s.Value == nil || len(s.Value.Properties) == 0 {
		fmt.Fprintf(b, "Type: %s.\n\n", schemaType(s))
		return
	}
	b.WriteString("| Property | Type | Required | Description |\n|---|---|---|---|\n")
	for _, name := range sortedKeys(s.Value.Properties) {
		p := s.Value.Properties[name]
		desc := ""
		if p.Value != nil {
			desc = p.Value.Description
		}
		fmt.Fprintf(b, "| `%s` | %s | %s | %s |\n", name, schemaType(p), yesNo(slices.Contains(s.Value.Required, name)), cell(desc))
	}
	b.WriteString("\n")
}

// schemaType is a short description of a schema: the referenced
// component's name, or its type ("array of Pet").
func schemaType(s *openapi3.SchemaRef) string {
	if s == nil {
		return "any"
	}
	if s.Ref != "" {
		return cell(s.Ref[strings.LastIndex(s.Ref, "/")+1:])
	}
	v := s.Value
	if v == nil || v.Type == nil || len(*v.Type) == 0 {
		return "any"
	}
	types := v.Type.Slice()
	if v.Type.Is("array") {
		return "array of " + schemaType(v.Items)
	}
	t := strings.Join(types, " or ")
	if v.Format != "" {
		t += " (" + v.Format + ")"
	}
	return cell(t)
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// inline keeps text on one line.
func inline(s string) string { return strings.Join(strings.Fields(s), " ") }

// cell makes text safe in a table cell.
func cell(s string) string { return strings.ReplaceAll(inline(s), "|", `\|`) }
