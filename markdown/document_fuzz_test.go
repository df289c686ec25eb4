package markdown

import (
	"encoding/json"
	"testing"

	"docsapi/internal/costcheck"
)

// TestDocumentTable checks a table in the 0.130.0 model: one text column
// per Markdown column titled by its header, a record per body row whose
// values name the fragments holding the cells.
func TestDocumentTable(t *testing.T) {
	doc := ToDocument("| Name | Size |\n|:---|---:|\n| a | **1** |\n| b | 2 |\n", nil)
	tbl := doc.Nodes[0]
	if tbl.Type != "table" || tbl.IsVoid == nil || !*tbl.IsVoid || tbl.Fragments == nil || len(*tbl.Fragments) != 4 {
		t.Fatalf("table: %+v", tbl)
	}
	def := tbl.Data["definition"].(map[string]any)
	if c0 := def["c0"].(map[string]any); c0["title"] != "Name" || c0["type"] != "text" || c0["textAlignment"] != "left" {
		t.Errorf("first column: %v", c0)
	}
	if c1 := def["c1"].(map[string]any); c1["title"] != "Size" || c1["textAlignment"] != "right" {
		t.Errorf("second column: %v", c1)
	}
	view := tbl.Data["view"].(map[string]any)
	if cols := view["columns"].([]string); len(cols) != 2 || cols[0] != "c0" || view["hideHeader"] != false {
		t.Errorf("view: %v", view)
	}
	r1 := tbl.Data["records"].(map[string]any)["r1"].(map[string]any)
	if r1["orderIndex"] != "a000001" || r1["values"].(map[string]any)["c0"] != "r1c0" {
		t.Errorf("second record: %v", r1)
	}
	cell := (*tbl.Fragments)[1] // r0c1: **1**
	if cell.Object != "fragment" || cell.Fragment != "r0c1" || cell.Nodes[0].Type != "paragraph" ||
		cell.Nodes[0].Nodes[0].Leaves[0].Marks[0].Type != "bold" {
		t.Errorf("cell fragment: %+v", cell)
	}
}

// FuzzToDocument: any Markdown gives a document that encodes to JSON, whose
// blocks all carry data, whose images and tables carry their fragments, and
// whose table records name existing columns and fragments.
func FuzzToDocument(f *testing.F) {
	for _, seed := range append([]string{sample, "", "| a |\n|---|\n| 1 | 2 | 3 |\n", "![x](y.png)", "a\n\n---\n\n> [!TIP]\n> t", "- [ ] x\n  | t |\n  |---|\n  | c |"}, hostileSeeds...) {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, src string) {
		var doc *Document
		costcheck.Linear(t, "document", len(src), func() {
			doc = ToDocument(src, nil)
			if _, err := json.Marshal(doc); err != nil {
				t.Fatalf("encode: %v", err)
			}
		})
		var walk func(n *Node)
		walk = func(n *Node) {
			if n.Object == "block" && n.Data == nil {
				t.Fatalf("block %s without data", n.Type)
			}
			switch n.Type {
			case "image", "table":
				if n.Fragments == nil || n.IsVoid == nil || !*n.IsVoid {
					t.Fatalf("%s without fragments or isVoid: %+v", n.Type, n)
				}
			case "images":
				if n.IsVoid == nil || *n.IsVoid {
					t.Fatalf("images without isVoid false")
				}
			}
			if n.Type == "table" {
				frags := map[string]bool{}
				for _, fr := range *n.Fragments {
					frags[fr.Fragment] = true
				}
				def := n.Data["definition"].(map[string]any)
				for id, rec := range n.Data["records"].(map[string]any) {
					for col, frag := range rec.(map[string]any)["values"].(map[string]any) {
						if def[col] == nil || !frags[frag.(string)] {
							t.Fatalf("record %s names column %s or fragment %v that does not exist", id, col, frag)
						}
					}
				}
			}
			for _, c := range n.Nodes {
				walk(c)
			}
			if n.Fragments != nil {
				for _, c := range *n.Fragments {
					walk(c)
				}
			}
		}
		for _, n := range doc.Nodes {
			walk(n)
		}
	})
}
