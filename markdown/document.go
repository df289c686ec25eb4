package markdown

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/yuin/goldmark/ast"
	east "github.com/yuin/goldmark/extension/ast"
)

// Document is the JSON document of the API: {object: "document", data,
// nodes}. Blocks follow {object: "block", type, key, nodes, isVoid, data};
// text is {object: "text", leaves: [{object: "leaf", text, marks}]}; links
// are inlines {object: "inline", type: "link", data: {ref}}.
type Document struct {
	Object string         `json:"object"`
	Data   map[string]any `json:"data"`
	Nodes  []*Node        `json:"nodes"`
}

// Node is a block, an inline or a text node.
type Node struct {
	Object string         `json:"object"`
	Type   string         `json:"type,omitempty"`
	Key    string         `json:"key,omitempty"`
	IsVoid *bool          `json:"isVoid,omitempty"`
	Data   map[string]any `json:"data,omitzero"` // blocks always carry data (some types require it)
	Nodes  []*Node        `json:"nodes,omitempty"`
	// Fragments are an image's caption fragments (0.130.0 requires the
	// list on images; Markdown images have no caption, so it is empty) or a
	// table's cells; Fragment is a fragment node's id.
	Fragments *[]*Node `json:"fragments,omitempty"`
	Fragment  string   `json:"fragment,omitempty"`
	Leaves    []*Leaf  `json:"leaves,omitempty"`
}

var (
	voidTrue  = true
	voidFalse = false
)

type Leaf struct {
	Object string `json:"object"`
	Text   string `json:"text"`
	Marks  []Mark `json:"marks"`
}

type Mark struct {
	Object string `json:"object"`
	Type   string `json:"type"`
}

// SchemaVersion of the documents this package builds.
const SchemaVersion = 1

// RefFunc turns a link destination into the content reference the document
// carries ({kind: "url", url} by default; pages and files when resolved).
type RefFunc func(dest string) map[string]any

// ToDocument builds the JSON document of src. Headings deeper than 3 become
// heading-3; GitHub alerts (> [!NOTE]) become hint blocks; a paragraph made
// only of images becomes an images block.
func ToDocument(src string, ref RefFunc) *Document {
	if ref == nil {
		ref = func(dest string) map[string]any { return map[string]any{"kind": "url", "url": dest} }
	}
	b := &builder{src: []byte(src), ref: ref}
	doc := &Document{Object: "document", Data: map[string]any{"schemaVersion": SchemaVersion}, Nodes: []*Node{}}
	if Check(src) != nil {
		doc.Nodes = append(doc.Nodes, b.rawBlock(src))
		return doc
	}
	if blocks := ParseGitBook(src); len(blocks) != 1 || blocks[0].Kind != "" {
		doc.Nodes = append(doc.Nodes, b.gitbookNodes(blocks)...)
		return doc
	}
	for c := parse(b.src).FirstChild(); c != nil; c = c.NextSibling() {
		if n := b.block(c); n != nil {
			doc.Nodes = append(doc.Nodes, n)
		}
	}
	return doc
}

// rawBlock is src as a Markdown code block: the document of a body over
// the bounds (stored before them), built without parsing it.
func (b *builder) rawBlock(src string) *Node {
	var lines []*Node
	for line := range strings.Lines(src) {
		lines = append(lines, b.newBlock("code-line", nil, b.text(strings.TrimRight(line, "\r\n"))))
	}
	return b.newBlock("code", map[string]any{"syntax": "markdown"}, lines...)
}

// documents keeps the JSON of recent documents (a page's document is
// built once per content and file references, not per read). The JSON is
// kept rather than the tree: it is several times smaller.
var documents = newMemo[json.RawMessage](32 << 20)

// DocumentJSON is the JSON of ToDocument(src, ref), built once per (src,
// refKey): refKey must change whenever ref answers differently.
func DocumentJSON(src, refKey string, ref RefFunc) json.RawMessage {
	return documents.get(contentKey(src, "/"+refKey), func() (json.RawMessage, int64) {
		// Unescaped HTML, as the API's encoders write (each escapes again
		// as it wants when it copies this in).
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(ToDocument(src, ref)); err != nil {
			panic(err) // the document is made of strings, maps and slices
		}
		out := json.RawMessage(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
		return out, int64(len(out))
	})
}

type builder struct {
	src []byte
	ref RefFunc
	n   int
}

func (b *builder) key() string { b.n++; return "k" + strconv.Itoa(b.n) }

// noData is the data of every block without any: one map, never written
// (a map a block was most of a small document's memory).
var noData = map[string]any{}

func (b *builder) newBlock(typ string, data map[string]any, nodes ...*Node) *Node {
	if data == nil {
		data = noData
	}
	if nodes == nil {
		nodes = []*Node{}
	}
	return &Node{Object: "block", Type: typ, Key: b.key(), Data: data, Nodes: nodes}
}

var alert = regexp.MustCompile(`^\[!(NOTE|TIP|IMPORTANT|WARNING|CAUTION)\]\s*`)

var hintStyle = map[string]string{"NOTE": "info", "TIP": "success", "IMPORTANT": "info", "WARNING": "warning", "CAUTION": "danger"}

func (b *builder) block(n ast.Node) *Node {
	switch v := n.(type) {
	case *ast.Heading:
		level := min(max(v.Level, 1), 3)
		return b.newBlock("heading-"+strconv.Itoa(level), map[string]any{"id": Slugify(plain(v, b.src))}, b.inlines(v)...)
	case *ast.Paragraph, *ast.TextBlock:
		if imgs := b.imagesOnly(n); imgs != nil {
			return imgs
		}
		return b.newBlock("paragraph", nil, b.inlines(n)...)
	case *ast.List:
		typ := "list-unordered"
		if v.IsOrdered() {
			typ = "list-ordered"
		}
		if isTaskList(v) {
			typ = "list-tasks"
		}
		var items []*Node
		for it := v.FirstChild(); it != nil; it = it.NextSibling() {
			var data map[string]any
			if cb := checkbox(it); cb != nil {
				data = map[string]any{"checked": cb.IsChecked}
			}
			items = append(items, b.newBlock("list-item", data, b.children(it)...))
		}
		var data map[string]any
		if v.IsOrdered() && v.Start != 1 {
			data = map[string]any{"start": v.Start}
		}
		return b.newBlock(typ, data, items...)
	case *ast.FencedCodeBlock, *ast.CodeBlock:
		var data map[string]any
		if f, ok := v.(*ast.FencedCodeBlock); ok {
			if lang := string(f.Language(b.src)); lang != "" {
				data = map[string]any{"syntax": lang}
			}
		}
		var lines []*Node
		for i := 0; i < n.Lines().Len(); i++ {
			seg := n.Lines().At(i)
			line := strings.TrimRight(string(seg.Value(b.src)), "\r\n")
			lines = append(lines, b.newBlock("code-line", nil, b.text(line)))
		}
		return b.newBlock("code", data, lines...)
	case *ast.Blockquote:
		if hint := b.hint(v); hint != nil {
			return hint
		}
		return b.newBlock("blockquote", nil, b.children(v)...)
	case *ast.ThematicBreak:
		d := b.newBlock("divider", nil)
		d.IsVoid = &voidTrue
		return d
	case *east.Table:
		return b.table(v)
	case *ast.HTMLBlock:
		var raw strings.Builder
		for i := 0; i < v.Lines().Len(); i++ {
			seg := v.Lines().At(i)
			raw.Write(seg.Value(b.src))
		}
		return b.newBlock("code", map[string]any{"syntax": "html"}, b.newBlock("code-line", nil, b.text(strings.TrimSpace(raw.String()))))
	}
	if n.HasChildren() {
		return b.newBlock("paragraph", nil, b.inlines(n)...)
	}
	return nil
}

func (b *builder) children(n ast.Node) []*Node {
	var out []*Node
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		if blk := b.block(c); blk != nil {
			out = append(out, blk)
		}
	}
	return out
}

// hint turns a GitHub alert blockquote into a hint block.
func (b *builder) hint(q *ast.Blockquote) *Node {
	first, ok := q.FirstChild().(*ast.Paragraph)
	if !ok {
		return nil
	}
	m := alert.FindStringSubmatch(plain(first, b.src))
	if m == nil {
		return nil
	}
	nodes := b.children(q)
	if len(nodes) > 0 {
		nodes[0].Nodes = dropPrefix(nodes[0].Nodes, strings.TrimSpace(m[0]))
	}
	return b.newBlock("hint", map[string]any{"style": hintStyle[m[1]]}, nodes...)
}

// imagesOnly returns an images block when a paragraph holds only images.
func (b *builder) imagesOnly(p ast.Node) *Node {
	var imgs []*Node
	for c := p.FirstChild(); c != nil; c = c.NextSibling() {
		switch v := c.(type) {
		case *ast.Image:
			img := b.newBlock("image", map[string]any{"ref": b.ref(string(v.Destination)), "alt": plain(v, b.src)})
			img.IsVoid, img.Fragments = &voidTrue, &[]*Node{}
			imgs = append(imgs, img)
		case *ast.Text:
			if strings.TrimSpace(string(v.Segment.Value(b.src))) != "" {
				return nil
			}
		default:
			return nil
		}
	}
	if len(imgs) == 0 {
		return nil
	}
	// 0.130.0 requires data and isVoid on an images block.
	images := b.newBlock("images", map[string]any{}, imgs...)
	images.IsVoid = &voidFalse
	return images
}

// table builds a table block in the 0.130.0 model: one text column
// definition per Markdown column (titled by the header cell), one record per
// body row whose values name the fragments holding each cell's text.
func (b *builder) table(t *east.Table) *Node {
	definition, columns := map[string]any{}, []string{}
	records := map[string]any{}
	fragments := []*Node{}
	row := 0
	for r := t.FirstChild(); r != nil; r = r.NextSibling() {
		_, header := r.(*east.TableHeader)
		values := map[string]any{}
		col := 0
		for c := r.FirstChild(); c != nil; c, col = c.NextSibling(), col+1 {
			id := "c" + strconv.Itoa(col)
			if header {
				definition[id] = map[string]any{"id": id, "type": "text", "title": plain(c, b.src), "textAlignment": cellAlignment(t, col)}
				columns = append(columns, id)
				continue
			}
			if _, ok := definition[id]; !ok {
				continue // a cell beyond the header's columns
			}
			frag := "r" + strconv.Itoa(row) + id
			values[id] = frag
			fragments = append(fragments, &Node{Object: "fragment", Key: b.key(), Fragment: frag,
				Nodes: []*Node{b.newBlock("paragraph", nil, b.inlines(c)...)}})
		}
		if !header {
			records["r"+strconv.Itoa(row)] = map[string]any{"orderIndex": fmt.Sprintf("a%06d", row), "values": values}
			row++
		}
	}
	tbl := b.newBlock("table", map[string]any{
		"view":       map[string]any{"type": "grid", "columns": columns, "hideHeader": false},
		"records":    records,
		"definition": definition,
	})
	tbl.IsVoid, tbl.Fragments = &voidTrue, &fragments
	return tbl
}

// cellAlignment is a column's text alignment (left unless set).
func cellAlignment(t *east.Table, col int) string {
	if col < len(t.Alignments) {
		switch t.Alignments[col] {
		case east.AlignCenter:
			return "center"
		case east.AlignRight:
			return "right"
		}
	}
	return "left"
}

func (b *builder) text(s string, marks ...string) *Node {
	ms := make([]Mark, 0, len(marks))
	for _, m := range marks {
		ms = append(ms, Mark{Object: "mark", Type: m})
	}
	return &Node{Object: "text", Leaves: []*Leaf{{Object: "leaf", Text: s, Marks: ms}}}
}

// inlines converts n's inline children, carrying marks down.
func (b *builder) inlines(n ast.Node) []*Node {
	var out []*Node
	b.inline(n, nil, &out)
	if len(out) == 0 {
		out = append(out, b.text(""))
	}
	return out
}

func (b *builder) inline(n ast.Node, marks []string, out *[]*Node) {
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		switch v := c.(type) {
		case *ast.Text:
			s := string(inlineText(v.Segment.Value(b.src)))
			if v.SoftLineBreak() {
				s += " "
			}
			if v.HardLineBreak() {
				s += "\n"
			}
			*out = append(*out, b.text(s, marks...))
		case *ast.String:
			*out = append(*out, b.text(string(v.Value), marks...))
		case *ast.CodeSpan:
			*out = append(*out, b.text(codeText(v, b.src), withMark(marks, "code")...))
		case *ast.Emphasis:
			m := "italic"
			if v.Level == 2 {
				m = "bold"
			}
			b.inline(v, withMark(marks, m), out)
		case *east.Strikethrough:
			b.inline(v, withMark(marks, "strikethrough"), out)
		case *ast.Link:
			link := &Node{Object: "inline", Type: "link", Key: b.key(), Data: map[string]any{"ref": b.ref(string(v.Destination))}}
			b.inline(v, marks, &link.Nodes)
			*out = append(*out, link)
		case *ast.AutoLink:
			url := string(v.URL(b.src))
			*out = append(*out, &Node{Object: "inline", Type: "link", Key: b.key(), Data: map[string]any{"ref": b.ref(url)},
				Nodes: []*Node{b.text(string(v.Label(b.src)), marks...)}})
		case *ast.Image:
			*out = append(*out, &Node{Object: "inline", Type: "inline-image", Key: b.key(), IsVoid: &voidTrue,
				Data: map[string]any{"ref": b.ref(string(v.Destination)), "alt": plain(v, b.src)}})
		case *east.TaskCheckBox, *ast.RawHTML:
		default:
			b.inline(c, marks, out)
		}
	}
}

// withMark is marks with m added once: nested emphasis of one kind keeps
// the list as it is (at most four marks, whatever the nesting).
func withMark(marks []string, m string) []string {
	if slices.Contains(marks, m) {
		return marks
	}
	return append(slices.Clip(marks), m)
}

// dropPrefix removes the text prefix (split over any number of text nodes)
// from the start of nodes.
func dropPrefix(nodes []*Node, prefix string) []*Node {
	for len(nodes) > 0 && prefix != "" && nodes[0].Object == "text" {
		l := nodes[0].Leaves[0]
		t := strings.TrimLeft(l.Text, " ")
		switch {
		case strings.HasPrefix(prefix, t):
			prefix = strings.TrimLeft(prefix[len(t):], " ")
			nodes = nodes[1:]
		case strings.HasPrefix(t, prefix):
			l.Text = strings.TrimLeft(t[len(prefix):], " \n")
			prefix = ""
			if l.Text == "" {
				nodes = nodes[1:]
			}
		default:
			return nodes
		}
	}
	return nodes
}
