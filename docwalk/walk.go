// Package docwalk is the one walk over the API's page documents (the block
// model markdown.ToDocument builds and GET .../document answers). The
// reader site's HTML (docrender), the Markdown writer (docrender's
// Markdown: pages as .md, llms-full.txt) and the PDF export (pdf) are
// Visitors of it: a block kind is named once, in Blocks, and the Visitor
// interface makes every output give it a form (a missing method does not
// compile).
package docwalk

import (
	"sort"
	"strconv"
	"strings"

	"docsapi/markdown"
)

// Node is a block, an inline, a text node or a fragment of a document.
type Node = markdown.Node

// Visitor writes one output of a document. Each method writes its node's
// form and walks the node's contents through the Walker (w.Blocks,
// w.Inlines) where the form has them.
type Visitor interface {
	Heading(w *Walker, n *Node, level int) // heading-1 … heading-3
	Paragraph(w *Walker, n *Node)
	List(w *Walker, n *Node) // list-unordered, list-ordered, list-tasks
	ListItem(w *Walker, n *Node)
	Divider(w *Walker, n *Node)
	Quote(w *Walker, n *Node)
	Hint(w *Walker, n *Node)
	If(w *Walker, n *Node) // content a condition keeps (the site filters before)
	Images(w *Walker, n *Node)
	Image(w *Walker, n *Node)
	File(w *Walker, n *Node)
	Drawing(w *Walker, n *Node)
	Embed(w *Walker, n *Node)
	Code(w *Walker, n *Node)
	CodeLine(w *Walker, n *Node)
	Math(w *Walker, n *Node)
	Expandable(w *Walker, n *Node)
	Tabs(w *Walker, n *Node)
	TabsItem(w *Walker, n *Node)
	Table(w *Walker, n *Node)
	// OpenAPI is swagger, openapi-operation, openapi-schemas and
	// openapi-webhook: the operation a block points at.
	OpenAPI(w *Walker, n *Node)
	ContentRef(w *Walker, n *Node)
	Integration(w *Walker, n *Node)
	ReusableContent(w *Walker, n *Node)
	Stepper(w *Walker, n *Node)
	StepperStep(w *Walker, n *Node)
	Columns(w *Walker, n *Node)
	Column(w *Walker, n *Node)
	// Unknown is a block of a type the model does not name (a newer
	// model's): its contents, never lost.
	Unknown(w *Walker, n *Node)

	Leaf(w *Walker, l *markdown.Leaf)
	Link(w *Walker, n *Node)
	InlineImage(w *Walker, n *Node)
	InlineMath(w *Walker, n *Node)
	// Inline is any other inline (emoji, icon, expression, annotation,
	// mention, button): its text.
	Inline(w *Walker, n *Node)
}

// Blocks maps every block type of the 0.130.0 document model
// (DocumentBlock's oneOf) to its Visitor method.
var Blocks = map[string]func(v Visitor, w *Walker, n *Node){
	"heading-1":         func(v Visitor, w *Walker, n *Node) { v.Heading(w, n, 1) },
	"heading-2":         func(v Visitor, w *Walker, n *Node) { v.Heading(w, n, 2) },
	"heading-3":         func(v Visitor, w *Walker, n *Node) { v.Heading(w, n, 3) },
	"paragraph":         Visitor.Paragraph,
	"list-unordered":    Visitor.List,
	"list-ordered":      Visitor.List,
	"list-tasks":        Visitor.List,
	"list-item":         Visitor.ListItem,
	"divider":           Visitor.Divider,
	"blockquote":        Visitor.Quote,
	"hint":              Visitor.Hint,
	"if":                Visitor.If,
	"images":            Visitor.Images,
	"image":             Visitor.Image,
	"file":              Visitor.File,
	"drawing":           Visitor.Drawing,
	"embed":             Visitor.Embed,
	"code":              Visitor.Code,
	"code-line":         Visitor.CodeLine,
	"math":              Visitor.Math,
	"expandable":        Visitor.Expandable,
	"tabs":              Visitor.Tabs,
	"tabs-item":         Visitor.TabsItem,
	"table":             Visitor.Table,
	"swagger":           Visitor.OpenAPI,
	"openapi-operation": Visitor.OpenAPI,
	"openapi-schemas":   Visitor.OpenAPI,
	"openapi-webhook":   Visitor.OpenAPI,
	"content-ref":       Visitor.ContentRef,
	"integration":       Visitor.Integration,
	"reusable-content":  Visitor.ReusableContent,
	"stepper":           Visitor.Stepper,
	"stepper-step":      Visitor.StepperStep,
	"columns":           Visitor.Columns,
	"column":            Visitor.Column,
}

// Kinds is the block types of Blocks, sorted.
func Kinds() []string {
	out := make([]string, 0, len(Blocks))
	for k := range Blocks {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// MaxDepth bounds the nesting the walk follows: documents come from
// outside (a decoded JSON body); blocks deeper than this are written as
// their plain text.
const MaxDepth = 48

// Walker walks a document for one Visitor.
type Walker struct {
	V     Visitor
	depth int
	// Stop, when set, is asked before each block; true ends the walk
	// (the PDF export's sheet bound and its request's end).
	Stop func() bool
}

// Walk walks doc's blocks with v.
func Walk(doc *markdown.Document, v Visitor) {
	if doc == nil {
		return
	}
	(&Walker{V: v}).Blocks(doc.Nodes)
}

// Blocks walks nodes in order.
func (w *Walker) Blocks(nodes []*Node) {
	for _, n := range nodes {
		w.Block(n)
	}
}

// Block walks one node (a block, or an inline or text met among blocks).
func (w *Walker) Block(n *Node) {
	if n == nil || (w.Stop != nil && w.Stop()) {
		return
	}
	switch n.Object {
	case "text", "inline":
		w.Inline(n)
		return
	}
	if w.depth >= MaxDepth {
		w.V.Leaf(w, &markdown.Leaf{Object: "leaf", Text: PlainText(n)})
		return
	}
	w.depth++
	defer func() { w.depth-- }()
	if f, ok := Blocks[n.Type]; ok {
		f(w.V, w, n)
		return
	}
	w.V.Unknown(w, n)
}

// Inlines walks n's children as inline content.
func (w *Walker) Inlines(n *Node) {
	for _, c := range n.Nodes {
		w.Inline(c)
	}
}

// Inline walks one inline node (a block met inline is walked as a block).
func (w *Walker) Inline(n *Node) {
	if n == nil {
		return
	}
	switch n.Object {
	case "text":
		for _, l := range n.Leaves {
			if l != nil {
				w.V.Leaf(w, l)
			}
		}
		return
	case "block":
		w.Block(n)
		return
	}
	if w.depth >= MaxDepth {
		w.V.Leaf(w, &markdown.Leaf{Object: "leaf", Text: PlainText(n)})
		return
	}
	w.depth++
	defer func() { w.depth-- }()
	switch n.Type {
	case "link":
		w.V.Link(w, n)
	case "inline-image":
		w.V.InlineImage(w, n)
	case "inline-math":
		w.V.InlineMath(w, n)
	default:
		w.V.Inline(w, n)
	}
}

// Str is the string d[k] ("" when absent or not a string).
func Str(d map[string]any, k string) string {
	s, _ := d[k].(string)
	return s
}

// Ref is a node's content reference (data.ref).
func Ref(d map[string]any) map[string]any {
	ref, _ := d["ref"].(map[string]any)
	return ref
}

// Int is the number d[k] (JSON numbers decode as float64).
func Int(d map[string]any, k string) (int, bool) {
	switch v := d[k].(type) {
	case float64:
		return int(v), true
	case int:
		return v, true
	}
	return 0, false
}

// HeadingLevel is N of heading-N (0 for other types).
func HeadingLevel(typ string) int {
	if len(typ) == 9 && strings.HasPrefix(typ, "heading-") && typ[8] >= '1' && typ[8] <= '6' {
		return int(typ[8] - '0')
	}
	return 0
}

// PlainText is the text of a node's leaves, in order (iterative: a
// document nested without bound costs no stack).
func PlainText(n *Node) string {
	var b strings.Builder
	stack := []*Node{n}
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if n == nil {
			continue
		}
		for _, l := range n.Leaves {
			if l != nil {
				b.WriteString(l.Text)
			}
		}
		for i := len(n.Nodes) - 1; i >= 0; i-- {
			stack = append(stack, n.Nodes[i])
		}
	}
	return b.String()
}

// CodeText is a code block's source: its lines' text joined.
func CodeText(n *Node) string {
	var b strings.Builder
	for i, line := range n.Nodes {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(PlainText(line))
	}
	return b.String()
}

// TableView is a table block read for output: its column titles and
// alignments, and its rows in orderIndex order, each cell the fragment
// holding its content (nil when none) or a scalar value.
type TableView struct {
	Titles []string
	Align  []string // "left", "center" or "right"
	Rows   [][]Cell
}

// Cell is one table cell.
type Cell struct {
	Nodes []*Node // the cell's fragment's blocks
	Value string  // a value that is no fragment (a number, a checkbox)
}

// Table reads a table block of the 0.130.0 model: columns from the view
// (else the definition's, sorted), records in orderIndex order, cells from
// fragments.
func Table(n *Node) TableView {
	d := n.Data
	def, _ := d["definition"].(map[string]any)
	var cols []string
	if view, ok := d["view"].(map[string]any); ok {
		switch cs := view["columns"].(type) {
		case []any:
			for _, c := range cs {
				if s, ok := c.(string); ok {
					cols = append(cols, s)
				}
			}
		case []string:
			cols = cs
		}
	}
	if cols == nil {
		for id := range def {
			cols = append(cols, id)
		}
		sort.Strings(cols)
	}
	var t TableView
	for _, c := range cols {
		cd, _ := def[c].(map[string]any)
		t.Titles = append(t.Titles, Str(cd, "title"))
		a := Str(cd, "textAlignment")
		if a != "center" && a != "right" {
			a = "left"
		}
		t.Align = append(t.Align, a)
	}
	frags := map[string]*Node{}
	if n.Fragments != nil {
		for _, f := range *n.Fragments {
			if f != nil {
				frags[f.Fragment] = f
			}
		}
	}
	records, _ := d["records"].(map[string]any)
	ids := make([]string, 0, len(records))
	for id := range records {
		ids = append(ids, id)
	}
	order := func(id string) string {
		r, _ := records[id].(map[string]any)
		return Str(r, "orderIndex")
	}
	sort.Slice(ids, func(i, j int) bool {
		if oi, oj := order(ids[i]), order(ids[j]); oi != oj {
			return oi < oj
		}
		return ids[i] < ids[j]
	})
	for _, id := range ids {
		r, _ := records[id].(map[string]any)
		values, _ := r["values"].(map[string]any)
		row := make([]Cell, len(cols))
		for i, c := range cols {
			v, ok := values[c]
			if !ok {
				continue
			}
			if s, isFrag := v.(string); isFrag {
				if f := frags[s]; f != nil {
					row[i].Nodes = f.Nodes
				}
				continue
			}
			row[i].Value = scalar(v)
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

func scalar(v any) string {
	switch x := v.(type) {
	case bool:
		if x {
			return "yes"
		}
		return "no"
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case nil:
		return ""
	}
	return ""
}

// ExpandableParts reads an expandable block in any of its three stored
// forms: 0.130.0's title and body fragments (GitBook's <details>), a title
// in data, or the first child as the title (older documents).
func ExpandableParts(n *Node) (title string, body []*Node) {
	if n.Fragments != nil && len(*n.Fragments) > 0 {
		for _, f := range *n.Fragments {
			if f == nil {
				continue
			}
			switch f.Fragment {
			case "expandable-title":
				for _, t := range f.Nodes {
					title += PlainText(t)
				}
			case "expandable-body":
				body = append(body, f.Nodes...)
			}
		}
		return title, body
	}
	title, body = Str(n.Data, "title"), n.Nodes
	if title == "" && len(body) > 0 {
		title, body = PlainText(body[0]), body[1:]
	}
	return title, body
}
