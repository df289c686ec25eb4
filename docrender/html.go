// Package docrender turns the API's page documents (the block model that
// markdown.ToDocument builds and GET .../document answers) into HTML for
// the reader site. It walks the same model as the Markdown and PDF outputs
// and knows nothing of storage, sites or HTTP: links and files are resolved
// by the caller's Resolver.
package docrender

import (
	"encoding/json"
	"fmt"
	"html"
	"html/template"
	"sort"
	"strconv"
	"strings"

	"github.com/alecthomas/chroma/v2"
	chromahtml "github.com/alecthomas/chroma/v2/formatters/html"
	"github.com/alecthomas/chroma/v2/lexers"
	"github.com/alecthomas/chroma/v2/styles"

	"docsapi/markdown"
)

// File is a file of the revision, as a page shows it.
type File struct {
	Name        string
	URL         string
	ContentType string
	Size        int
	Width       int
	Height      int
}

// Resolver resolves the references a document makes. Any may be nil.
type Resolver struct {
	// Link is the URL of a link destination written in the page (a
	// relative page path, a ".md" file, an anchor or an absolute URL);
	// ok false keeps it as written.
	Link func(dest string) (href string, ok bool)
	// File is the revision's file with this id.
	File func(id string) (File, bool)
}

// Heading is an entry of the in-page table of contents.
type Heading struct {
	ID    string
	Title string
	Level int
}

// Result is a rendered document.
type Result struct {
	HTML     template.HTML
	Headings []Heading
	// Text is the document's plain text (descriptions, llms-full.txt).
	Text string
}

// Document decodes a page document as the resolvers answer it (a
// *markdown.Document, or the same JSON decoded into maps).
func Document(doc any) (*markdown.Document, error) {
	switch d := doc.(type) {
	case *markdown.Document:
		return d, nil
	case nil:
		return &markdown.Document{Object: "document"}, nil
	}
	b, err := json.Marshal(doc)
	if err != nil {
		return nil, err
	}
	var out markdown.Document
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// Render renders doc's blocks.
func Render(doc *markdown.Document, res Resolver) Result {
	w := &writer{res: res, ids: map[string]int{}, shift: 1}
	// The page title is the h1; the document's top heading level comes
	// next (h2), so that no level is skipped.
	top := 9
	for _, n := range doc.Nodes {
		if l := headingLevel(n.Type); l > 0 && l < top {
			top = l
		}
	}
	if top < 9 {
		w.shift = 2 - top
	}
	for _, n := range doc.Nodes {
		w.block(n)
	}
	return Result{HTML: template.HTML(w.b.String()), Headings: w.headings, Text: strings.TrimSpace(w.text.String())}
}

type writer struct {
	b        strings.Builder
	text     strings.Builder
	res      Resolver
	headings []Heading
	ids      map[string]int // heading ids used, so that repeated titles stay unique
	shift    int            // heading-N is h(N+shift)
}

// headingLevel is N of heading-N (0 for other types).
func headingLevel(typ string) int {
	if len(typ) == 9 && strings.HasPrefix(typ, "heading-") && typ[8] >= '1' && typ[8] <= '6' {
		return int(typ[8] - '0')
	}
	return 0
}

func (w *writer) s(parts ...string) {
	for _, p := range parts {
		w.b.WriteString(p)
	}
}

func esc(s string) string { return html.EscapeString(s) }

// BlockKinds are the block types this package renders: every type the
// document model allows (markdown.ToDocument builds the first group; the
// others come from GitBook's model and are rendered as faithfully as their
// data allows).
var BlockKinds = []string{
	"heading-1", "heading-2", "heading-3", "paragraph", "list-unordered", "list-ordered", "list-tasks", "list-item",
	"code", "code-line", "blockquote", "hint", "divider", "table", "images", "image",
	"tabs", "tabs-item", "expandable", "embed", "math", "file", "content-ref", "reusable-content",
	"openapi-operation", "swagger", "integration-block", "stepper", "stepper-step", "columns", "column",
}

// InlineKinds are the inline types rendered, and MarkKinds the marks.
var (
	InlineKinds = []string{"link", "inline-image", "inline-math", "annotation", "mention"}
	MarkKinds   = []string{"bold", "italic", "strikethrough", "code", "underline", "color"}
)

func str(d map[string]any, k string) string {
	s, _ := d[k].(string)
	return s
}

func (w *writer) children(n *markdown.Node) {
	for _, c := range n.Nodes {
		w.block(c)
	}
}

func (w *writer) block(n *markdown.Node) {
	if n == nil {
		return
	}
	switch n.Object {
	case "text", "inline":
		w.inline(n)
		return
	}
	d := n.Data
	switch n.Type {
	case "heading-1", "heading-2", "heading-3":
		level := min(headingLevel(n.Type)+w.shift, 6)
		title := plainText(n)
		id := w.uniqueID(str(d, "id"), title)
		w.headings = append(w.headings, Heading{ID: id, Title: title, Level: level - 1})
		tag := "h" + strconv.Itoa(level)
		w.s("<", tag, ` id="`, esc(id), `">`)
		w.inlines(n)
		w.s(` <a class="anchor" href="#`, esc(id), `" aria-label="Link to this section">#</a></`, tag, ">\n")
		w.text.WriteString("\n" + title + "\n")
	case "paragraph":
		w.s("<p>")
		w.inlines(n)
		w.s("</p>\n")
		w.text.WriteString("\n")
	case "list-unordered":
		w.s("<ul>\n")
		w.children(n)
		w.s("</ul>\n")
	case "list-ordered":
		w.s("<ol")
		if start, ok := d["start"].(float64); ok {
			w.s(` start="`, strconv.Itoa(int(start)), `"`)
		} else if start, ok := d["start"].(int); ok {
			w.s(` start="`, strconv.Itoa(start), `"`)
		}
		w.s(">\n")
		w.children(n)
		w.s("</ol>\n")
	case "list-tasks":
		w.s(`<ul class="tasks">`, "\n")
		w.children(n)
		w.s("</ul>\n")
	case "list-item":
		w.s("<li>")
		if checked, ok := d["checked"].(bool); ok {
			w.s(`<input type="checkbox" disabled aria-label="task"`)
			if checked {
				w.s(" checked")
			}
			w.s("> ")
		}
		w.listItem(n)
		w.s("</li>\n")
	case "code":
		w.code(n)
	case "code-line":
		w.inlines(n)
	case "blockquote":
		w.s("<blockquote>\n")
		w.children(n)
		w.s("</blockquote>\n")
	case "hint":
		style := str(d, "style")
		if style == "" {
			style = "info"
		}
		w.s(`<div class="hint hint-`, esc(style), `" role="note"><span class="hint-label">`, esc(hintLabel(style)), "</span>\n")
		w.children(n)
		w.s("</div>\n")
	case "divider":
		w.s("<hr>\n")
	case "table":
		w.table(n)
	case "images":
		w.s(`<div class="images">`)
		w.children(n)
		w.s("</div>\n")
	case "image":
		w.image(d, n)
	case "tabs":
		w.s(`<div class="tabs">`)
		for i, t := range n.Nodes {
			w.s("<details class=\"tab\"")
			if i == 0 {
				w.s(" open")
			}
			w.s("><summary>", esc(str(t.Data, "title")), "</summary>\n")
			w.children(t)
			w.s("</details>\n")
		}
		w.s("</div>\n")
	case "tabs-item":
		w.s(`<details class="tab" open><summary>`, esc(str(d, "title")), "</summary>\n")
		w.children(n)
		w.s("</details>\n")
	case "expandable":
		w.s("<details class=\"expandable\"><summary>")
		if n.Fragments != nil && len(*n.Fragments) > 0 { // 0.130.0: title and body fragments
			for _, f := range *n.Fragments {
				if f.Fragment == "expandable-title" && len(f.Nodes) > 0 {
					w.inlines(f.Nodes[0])
				}
			}
			w.s("</summary>\n")
			for _, f := range *n.Fragments {
				if f.Fragment == "expandable-body" {
					w.children(f)
				}
			}
			w.s("</details>\n")
			break
		}
		title := str(d, "title")
		if len(n.Nodes) > 0 && title == "" {
			title = plainText(n.Nodes[0])
			w.s(esc(title), "</summary>\n")
			for _, c := range n.Nodes[1:] {
				w.block(c)
			}
		} else {
			w.s(esc(title), "</summary>\n")
			w.children(n)
		}
		w.s("</details>\n")
	case "embed":
		u := str(d, "url")
		w.s(`<p class="embed"><a href="`, esc(safeURL(u)), `" rel="noopener">`, esc(u), "</a></p>\n")
	case "math":
		w.s(`<div class="math"><code>`, esc(str(d, "formula")), "</code></div>\n")
	case "file":
		w.fileBlock(refOf(d))
	case "content-ref":
		href, label := w.ref(refOf(d))
		w.s(`<p class="content-ref"><a href="`, esc(href), `">`, esc(label), "</a></p>\n")
	case "reusable-content":
		w.s(`<div class="reusable">`)
		w.children(n)
		w.s("</div>\n")
	case "openapi-operation", "swagger":
		w.s(`<div class="openapi"><code>`, esc(strings.ToUpper(str(d, "method"))), " ", esc(str(d, "path")), "</code>")
		w.children(n)
		w.s("</div>\n")
	case "stepper":
		w.s(`<ol class="stepper">`, "\n")
		w.children(n)
		w.s("</ol>\n")
	case "stepper-step":
		w.s(`<li class="step">`, "\n")
		w.children(n)
		w.s("</li>\n")
	case "columns":
		w.s(`<div class="columns">`, "\n")
		w.children(n)
		w.s("</div>\n")
	case "column":
		w.s(`<div class="column">`, "\n")
		w.children(n)
		w.s("</div>\n")
	case "integration-block":
		// Integration blocks carry their rendered output as child blocks.
		w.s(`<div class="integration">`)
		w.children(n)
		w.s("</div>\n")
	default:
		// A kind this renderer does not know: its content, never lost.
		w.s(`<div class="block-`, esc(n.Type), `">`)
		w.children(n)
		w.s("</div>\n")
	}
}

// listItem writes an item's blocks; a single paragraph stays inline so
// that tight lists are not spaced as paragraphs.
func (w *writer) listItem(n *markdown.Node) {
	if len(n.Nodes) > 0 && n.Nodes[0].Type == "paragraph" {
		w.inlines(n.Nodes[0])
		w.text.WriteString("\n")
		for _, c := range n.Nodes[1:] {
			w.block(c)
		}
		return
	}
	w.children(n)
}

func hintLabel(style string) string {
	switch style {
	case "warning":
		return "Warning"
	case "danger":
		return "Danger"
	case "success":
		return "Tip"
	}
	return "Note"
}

// uniqueID is a heading's anchor: its stored id (else its title's slug),
// suffixed when an earlier heading took it.
func (w *writer) uniqueID(id, title string) string {
	if id == "" {
		id = markdown.Slugify(title)
	}
	if id == "" {
		id = "section"
	}
	n := w.ids[id]
	w.ids[id] = n + 1
	if n > 0 {
		id += "-" + strconv.Itoa(n)
	}
	return id
}

func (w *writer) inlines(n *markdown.Node) {
	for _, c := range n.Nodes {
		w.inline(c)
	}
}

func (w *writer) inline(n *markdown.Node) {
	switch n.Object {
	case "text":
		for _, l := range n.Leaves {
			w.leaf(l)
		}
		return
	case "block":
		w.block(n)
		return
	}
	d := n.Data
	switch n.Type {
	case "link":
		href, _ := w.ref(refOf(d))
		w.s(`<a href="`, esc(href), `"`)
		if strings.Contains(href, "://") {
			w.s(` rel="noopener"`)
		}
		w.s(">")
		w.inlines(n)
		w.s("</a>")
		if ref := refOf(d); str(ref, "kind") == "file" && w.res.File != nil {
			if f, ok := w.res.File(str(ref, "file")); ok {
				w.s(` <span class="size">(`, esc(Size(f.Size)), ")</span>")
			}
		}
	case "inline-image":
		w.image(d, nil)
	case "inline-math":
		w.s(`<code class="math">`, esc(str(d, "formula")), "</code>")
	default:
		w.inlines(n)
	}
}

func (w *writer) leaf(l *markdown.Leaf) {
	w.text.WriteString(l.Text)
	open, closing := "", ""
	for _, m := range l.Marks {
		var tag string
		switch m.Type {
		case "bold":
			tag = "strong"
		case "italic":
			tag = "em"
		case "strikethrough":
			tag = "s"
		case "code":
			tag = "code"
		case "underline":
			tag = "u"
		case "color":
			tag = "mark"
		default:
			continue
		}
		open += "<" + tag + ">"
		closing = "</" + tag + ">" + closing
	}
	text := esc(l.Text)
	if strings.Contains(text, "\n") {
		text = strings.ReplaceAll(text, "\n", "<br>")
	}
	w.s(open, text, closing)
}

// refOf is a node's content reference (data.ref).
func refOf(d map[string]any) map[string]any {
	ref, _ := d["ref"].(map[string]any)
	return ref
}

// ref is the URL and label of a content reference.
func (w *writer) ref(ref map[string]any) (href, label string) {
	switch str(ref, "kind") {
	case "file":
		if w.res.File != nil {
			if f, ok := w.res.File(str(ref, "file")); ok {
				return f.URL, f.Name
			}
		}
		return "#", str(ref, "file")
	case "url":
		u := str(ref, "url")
		if w.res.Link != nil {
			if h, ok := w.res.Link(u); ok {
				return h, u
			}
		}
		return safeURL(u), u
	case "page":
		if w.res.Link != nil {
			if h, ok := w.res.Link(str(ref, "page")); ok {
				return h, str(ref, "page")
			}
		}
	case "anchor":
		return "#" + str(ref, "anchor"), str(ref, "anchor")
	}
	return "#", ""
}

// safeURL refuses script URLs: a page's author is not trusted with the
// reader's session.
func safeURL(u string) string {
	l := strings.ToLower(strings.TrimSpace(u))
	if strings.HasPrefix(l, "javascript:") || strings.HasPrefix(l, "vbscript:") || strings.HasPrefix(l, "data:text/html") {
		return "#"
	}
	return u
}

func (w *writer) image(d map[string]any, n *markdown.Node) {
	src, _ := w.ref(refOf(d))
	alt := str(d, "alt")
	w.s(`<img src="`, esc(src), `" alt="`, esc(alt), `" loading="lazy" decoding="async"`)
	if ref := refOf(d); str(ref, "kind") == "file" && w.res.File != nil {
		if f, ok := w.res.File(str(ref, "file")); ok && f.Width > 0 && f.Height > 0 {
			// Known dimensions reserve the image's box: no layout shift.
			w.s(` width="`, strconv.Itoa(f.Width), `" height="`, strconv.Itoa(f.Height), `"`)
		}
	}
	w.s(">")
	if n != nil && n.Fragments != nil && len(*n.Fragments) > 0 {
		w.s("<figcaption>")
		for _, f := range *n.Fragments {
			w.children(f)
		}
		w.s("</figcaption>")
	}
}

func (w *writer) fileBlock(ref map[string]any) {
	if w.res.File == nil {
		return
	}
	f, ok := w.res.File(str(ref, "file"))
	if !ok {
		return
	}
	w.s(`<p class="file"><a href="`, esc(f.URL), `" download>`, esc(f.Name), `</a> <span class="size">`, esc(Size(f.Size)), "</span></p>\n")
}

// Size is a file size for people.
func Size(n int) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KB", float64(n)/(1<<10))
	}
	return strconv.Itoa(n) + " B"
}

// code writes a code block highlighted by chroma (classes, so that the
// stylesheet's light and dark themes apply) with a copy button that the
// site's script wires up.
func (w *writer) code(n *markdown.Node) {
	var src strings.Builder
	for i, line := range n.Nodes {
		if i > 0 {
			src.WriteByte('\n')
		}
		src.WriteString(plainText(line))
	}
	code := src.String()
	w.text.WriteString("\n" + code + "\n")
	lang := str(n.Data, "syntax")
	w.s(`<div class="code"><button type="button" class="copy" hidden>Copy</button>`)
	if title := str(n.Data, "title"); title != "" {
		w.s(`<div class="code-title">`, esc(title), "</div>")
	}
	w.s(`<pre class="chroma"`)
	if lang != "" {
		w.s(` data-lang="`, esc(lang), `"`)
	}
	w.s("><code>")
	w.s(highlight(code, lang))
	w.s("</code></pre></div>\n")
}

var formatter = chromahtml.New(chromahtml.WithClasses(true), chromahtml.PreventSurroundingPre(true))

// highlight is code's highlighted HTML (escaped text when no lexer fits).
func highlight(code, lang string) string {
	var lexer chroma.Lexer
	if lang != "" {
		lexer = lexers.Get(lang)
	}
	if lexer == nil {
		return esc(code)
	}
	it, err := chroma.Coalesce(lexer).Tokenise(nil, code)
	if err != nil {
		return esc(code)
	}
	var b strings.Builder
	if err := formatter.Format(&b, styles.Get("github"), it); err != nil {
		return esc(code)
	}
	return b.String()
}

// table writes a table of the 0.130.0 model: columns from the view (else
// the definition), records in orderIndex order, cells from fragments.
func (w *writer) table(n *markdown.Node) {
	d := n.Data
	def, _ := d["definition"].(map[string]any)
	var cols []string
	if view, ok := d["view"].(map[string]any); ok {
		if cs, ok := view["columns"].([]any); ok {
			for _, c := range cs {
				if s, ok := c.(string); ok {
					cols = append(cols, s)
				}
			}
		} else if cs, ok := view["columns"].([]string); ok {
			cols = cs
		}
	}
	if cols == nil {
		for id := range def {
			cols = append(cols, id)
		}
		sort.Strings(cols)
	}
	frags := map[string]*markdown.Node{}
	if n.Fragments != nil {
		for _, f := range *n.Fragments {
			frags[f.Fragment] = f
		}
	}
	align := func(col string) string {
		c, _ := def[col].(map[string]any)
		switch a := str(c, "textAlignment"); a {
		case "center", "right":
			return ` style="text-align:` + a + `"`
		}
		return ""
	}
	w.s(`<div class="table"><table><thead><tr>`)
	for _, c := range cols {
		cd, _ := def[c].(map[string]any)
		w.s("<th", align(c), ">", esc(str(cd, "title")), "</th>")
		w.text.WriteString(str(cd, "title") + "\t")
	}
	w.s("</tr></thead><tbody>\n")
	w.text.WriteString("\n")
	records, _ := d["records"].(map[string]any)
	ids := make([]string, 0, len(records))
	for id := range records {
		ids = append(ids, id)
	}
	order := func(id string) string {
		r, _ := records[id].(map[string]any)
		return str(r, "orderIndex")
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
		w.s("<tr>")
		for _, c := range cols {
			w.s("<td", align(c), ">")
			if f := frags[str(values, c)]; f != nil {
				for _, b := range f.Nodes {
					if b.Type == "paragraph" {
						w.inlines(b) // a cell's one paragraph stays inline
					} else {
						w.block(b)
					}
				}
			} else if v, ok := values[c]; ok {
				if _, isFrag := v.(string); !isFrag {
					w.s(esc(fmt.Sprint(v)))
				}
			}
			w.s("</td>")
			w.text.WriteString("\t")
		}
		w.s("</tr>\n")
		w.text.WriteString("\n")
	}
	w.s("</tbody></table></div>\n")
}

// plainText is the text of a node's leaves.
func plainText(n *markdown.Node) string {
	var b strings.Builder
	var walk func(*markdown.Node)
	walk = func(n *markdown.Node) {
		for _, l := range n.Leaves {
			b.WriteString(l.Text)
		}
		for _, c := range n.Nodes {
			walk(c)
		}
	}
	walk(n)
	return b.String()
}
