// Package docwalktest builds documents for the tests of docwalk's
// outputs: one block of each kind with the data GitBook's model carries
// for it, so that every output is checked against the same blocks.
package docwalktest

import "docsapi/markdown"

// Text is a text node of one leaf with marks.
func Text(s string, marks ...string) *markdown.Node {
	ms := []markdown.Mark{}
	for _, m := range marks {
		ms = append(ms, markdown.Mark{Object: "mark", Type: m})
	}
	return &markdown.Node{Object: "text", Leaves: []*markdown.Leaf{{Object: "leaf", Text: s, Marks: ms}}}
}

// Block is a block node.
func Block(typ string, data map[string]any, nodes ...*markdown.Node) *markdown.Node {
	if data == nil {
		data = map[string]any{}
	}
	return &markdown.Node{Object: "block", Type: typ, Data: data, Nodes: nodes}
}

// FileRef is the file reference samples use ("f1").
var FileRef = map[string]any{"kind": "file", "file": "f1"}

// Marker is the text a sample of kind typ carries where its kind has text
// (an output that shows the block shows it).
func Marker(typ string) string { return "inside " + typ }

// Sample is one block of kind typ with its data.
func Sample(typ string) *markdown.Node {
	p := Block("paragraph", nil, Text(Marker(typ)))
	switch typ {
	case "list-unordered", "list-ordered", "list-tasks":
		return Block(typ, nil, Block("list-item", map[string]any{"checked": true}, p))
	case "code":
		return Block(typ, map[string]any{"syntax": "go"}, Block("code-line", nil, Text("func main() {} // "+Marker(typ))))
	case "code-line":
		return Block(typ, nil, Text("x := 1 // "+Marker(typ)))
	case "table":
		frags := []*markdown.Node{{Object: "fragment", Fragment: "f", Nodes: []*markdown.Node{p}}}
		n := Block(typ, map[string]any{"view": map[string]any{"type": "grid", "columns": []any{"c"}},
			"definition": map[string]any{"c": map[string]any{"title": "Col", "type": "text"}},
			"records":    map[string]any{"r": map[string]any{"orderIndex": "a", "values": map[string]any{"c": "f"}}}})
		n.Fragments = &frags
		return n
	case "image":
		return Block(typ, map[string]any{"ref": FileRef, "alt": Marker(typ)})
	case "images":
		return Block(typ, nil, Block("image", map[string]any{"ref": FileRef, "alt": Marker(typ)}))
	case "drawing":
		return Block(typ, map[string]any{"ref": FileRef})
	case "tabs":
		return Block(typ, nil, Block("tabs-item", map[string]any{"title": "Tab one"}, p))
	case "tabs-item":
		return Block(typ, map[string]any{"title": "Tab one"}, p)
	case "stepper":
		return Block(typ, nil, Block("stepper-step", nil, p))
	case "columns":
		return Block(typ, nil, Block("column", nil, p))
	case "expandable":
		return Block(typ, map[string]any{"title": "More"}, p)
	case "embed":
		return Block(typ, map[string]any{"url": "https://example.com/" + typ})
	case "math":
		return Block(typ, map[string]any{"formula": "e = mc^2"})
	case "file":
		return Block(typ, map[string]any{"ref": FileRef})
	case "content-ref":
		return Block(typ, map[string]any{"ref": map[string]any{"kind": "url", "url": "https://example.com/" + typ}})
	case "openapi-operation", "openapi-webhook":
		return Block(typ, map[string]any{"ref": map[string]any{"kind": "openapi", "spec": "petstore"}, "method": "get", "path": "/pets", "name": "newPet"})
	case "openapi-schemas":
		return Block(typ, map[string]any{"ref": map[string]any{"kind": "openapi", "spec": "petstore"}, "schemas": []any{"Pet"}})
	case "swagger":
		return Block(typ, map[string]any{"ref": map[string]any{"kind": "url", "url": "https://example.com/openapi.json"}, "method": "get", "path": "/pets"})
	case "integration":
		return Block(typ, map[string]any{"integration": "mermaid", "block": "diagram", "props": map[string]any{}})
	case "reusable-content":
		return Block(typ, map[string]any{"ref": map[string]any{"kind": "reusable-content", "reusableContent": "rc1"}}, p)
	case "divider":
		return Block(typ, nil)
	case "if":
		return Block(typ, map[string]any{"expression": "visitor.claims.beta"}, p)
	case "heading-1", "heading-2", "heading-3", "paragraph":
		return Block(typ, nil, Text(Marker(typ)))
	}
	return Block(typ, map[string]any{"style": "warning"}, p)
}

// Document is a document of nodes.
func Document(nodes ...*markdown.Node) *markdown.Document {
	return &markdown.Document{Object: "document", Data: map[string]any{}, Nodes: nodes}
}
