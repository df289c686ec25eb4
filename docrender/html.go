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
	"strconv"
	"strings"

	"github.com/alecthomas/chroma/v2"
	chromahtml "github.com/alecthomas/chroma/v2/formatters/html"
	"github.com/alecthomas/chroma/v2/lexers"
	"github.com/alecthomas/chroma/v2/styles"

	"docsapi/docwalk"
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
	// OpenAPI is the document of the operation an OpenAPI block points at
	// (summary, parameters, request body, responses), read from the
	// organization's stored specification.
	OpenAPI func(block *markdown.Node) (*markdown.Document, bool)
	// Reusable is the document of the reusable content a block refers to
	// (id, and the space it lives in: "" for the page's own).
	Reusable func(id, space string) (*markdown.Document, bool)
	// Integration is the output the integration renders for an
	// integration block (HTML already safe, and its Markdown); ok false
	// shows the block's stored children, else a placeholder.
	Integration func(block *markdown.Node) (IntegrationOutput, bool)
}

// IntegrationOutput is an integration block as its integration renders it.
type IntegrationOutput struct {
	HTML     template.HTML
	Markdown string
}

// integrationOutput is the rendered output of an integration block, when
// the resolver has one.
func integrationOutput(res Resolver, n *markdown.Node) (IntegrationOutput, bool) {
	if res.Integration == nil {
		return IntegrationOutput{}, false
	}
	return res.Integration(n)
}

// lookupOperation is the operation document of an OpenAPI block (nil when
// the resolver has none).
func lookupOperation(res Resolver, n *markdown.Node) *markdown.Document {
	if res.OpenAPI == nil {
		return nil
	}
	if doc, ok := res.OpenAPI(n); ok {
		return doc
	}
	return nil
}

// reusableNodes are the blocks a reusable-content block shows: the
// referenced content's, else the block's own children.
func reusableNodes(res Resolver, n *markdown.Node) []*markdown.Node {
	ref := refOf(n.Data)
	if res.Reusable != nil {
		if doc, ok := res.Reusable(str(ref, "reusableContent"), str(ref, "space")); ok && doc != nil {
			return doc.Nodes
		}
	}
	return n.Nodes
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
	w.wk = &docwalk.Walker{V: w}
	// The page title is the h1; the document's top heading level comes
	// next (h2), so that no level is skipped.
	top := 9
	for _, n := range doc.Nodes {
		if l := docwalk.HeadingLevel(n.Type); l > 0 && l < top {
			top = l
		}
	}
	if top < 9 {
		w.shift = 2 - top
	}
	w.wk.Blocks(doc.Nodes)
	return Result{HTML: template.HTML(w.b.String()), Headings: w.headings, Text: strings.TrimSpace(w.text.String())}
}

type writer struct {
	wk       *docwalk.Walker
	b        strings.Builder
	text     strings.Builder
	res      Resolver
	headings []Heading
	ids      map[string]int // heading ids used, so that repeated titles stay unique
	shift    int            // heading-N is h(N+shift)
}

func (w *writer) s(parts ...string) {
	for _, p := range parts {
		w.b.WriteString(p)
	}
}

func esc(s string) string { return html.EscapeString(s) }

// BlockKinds are the block types this package renders: every type of the
// document model (docwalk.Blocks).
var BlockKinds = docwalk.Kinds()

// InlineKinds are the inline types rendered, and MarkKinds the marks.
var (
	InlineKinds = []string{"link", "inline-image", "inline-math", "annotation", "mention", "emoji", "icon", "expression", "button"}
	MarkKinds   = []string{"bold", "italic", "strikethrough", "code", "underline", "color"}
)

var str, refOf, plainText = docwalk.Str, docwalk.Ref, docwalk.PlainText

func (w *writer) children(n *markdown.Node) { w.wk.Blocks(n.Nodes) }

func (w *writer) block(n *markdown.Node) { w.wk.Block(n) }

func (w *writer) inlines(n *markdown.Node) { w.wk.Inlines(n) }

// The HTML form of each block kind (docwalk.Visitor).

func (w *writer) Heading(_ *docwalk.Walker, n *markdown.Node, level int) {
	level = min(level+w.shift, 6)
	title := plainText(n)
	id := w.uniqueID(str(n.Data, "id"), title)
	w.headings = append(w.headings, Heading{ID: id, Title: title, Level: level - 1})
	tag := "h" + strconv.Itoa(level)
	w.s("<", tag, ` id="`, esc(id), `">`)
	w.inlines(n)
	w.s(` <a class="anchor" href="#`, esc(id), `" aria-label="Link to this section">#</a></`, tag, ">\n")
	w.text.WriteString("\n" + title + "\n")
}

func (w *writer) Paragraph(_ *docwalk.Walker, n *markdown.Node) {
	w.s("<p>")
	w.inlines(n)
	w.s("</p>\n")
	w.text.WriteString("\n")
}

func (w *writer) List(_ *docwalk.Walker, n *markdown.Node) {
	switch n.Type {
	case "list-ordered":
		w.s("<ol")
		if start, ok := docwalk.Int(n.Data, "start"); ok {
			w.s(` start="`, strconv.Itoa(start), `"`)
		}
		w.s(">\n")
		w.children(n)
		w.s("</ol>\n")
		return
	case "list-tasks":
		w.s(`<ul class="tasks">`, "\n")
	default:
		w.s("<ul>\n")
	}
	w.children(n)
	w.s("</ul>\n")
}

func (w *writer) ListItem(_ *docwalk.Walker, n *markdown.Node) {
	w.s("<li>")
	if checked, ok := n.Data["checked"].(bool); ok {
		w.s(`<input type="checkbox" disabled aria-label="task"`)
		if checked {
			w.s(" checked")
		}
		w.s("> ")
	}
	w.listItem(n)
	w.s("</li>\n")
}

func (w *writer) Divider(*docwalk.Walker, *markdown.Node) { w.s("<hr>\n") }

func (w *writer) Quote(_ *docwalk.Walker, n *markdown.Node) {
	w.s("<blockquote>\n")
	w.children(n)
	w.s("</blockquote>\n")
}

func (w *writer) Hint(_ *docwalk.Walker, n *markdown.Node) {
	style := str(n.Data, "style")
	if style == "" {
		style = "info"
	}
	w.s(`<div class="hint hint-`, esc(style), `" role="note"><span class="hint-label">`, esc(hintLabel(style)), "</span>\n")
	w.children(n)
	w.s("</div>\n")
}

func (w *writer) If(_ *docwalk.Walker, n *markdown.Node) { w.children(n) }

func (w *writer) Images(_ *docwalk.Walker, n *markdown.Node) {
	w.s(`<div class="images">`)
	w.children(n)
	w.s("</div>\n")
}

func (w *writer) Image(_ *docwalk.Walker, n *markdown.Node) { w.image(n.Data, n) }

func (w *writer) File(_ *docwalk.Walker, n *markdown.Node) { w.fileBlock(refOf(n.Data)) }

func (w *writer) Drawing(_ *docwalk.Walker, n *markdown.Node) {
	w.s(`<div class="drawing">`)
	w.image(n.Data, nil)
	w.s("</div>\n")
}

func (w *writer) Embed(_ *docwalk.Walker, n *markdown.Node) {
	u := str(n.Data, "url")
	w.s(`<p class="embed"><a href="`, esc(safeURL(u)), `" rel="noopener">`, esc(u), "</a></p>\n")
}

func (w *writer) Code(_ *docwalk.Walker, n *markdown.Node) { w.code(n) }

func (w *writer) CodeLine(_ *docwalk.Walker, n *markdown.Node) { w.inlines(n) }

func (w *writer) Math(_ *docwalk.Walker, n *markdown.Node) {
	w.s(`<div class="math"><code>`, esc(str(n.Data, "formula")), "</code></div>\n")
}

func (w *writer) Expandable(_ *docwalk.Walker, n *markdown.Node) {
	title, body := docwalk.ExpandableParts(n)
	w.s("<details class=\"expandable\"><summary>", esc(title), "</summary>\n")
	w.wk.Blocks(body)
	w.s("</details>\n")
}

func (w *writer) Tabs(_ *docwalk.Walker, n *markdown.Node) {
	w.s(`<div class="tabs">`)
	for i, t := range n.Nodes {
		if t == nil {
			continue
		}
		w.s("<details class=\"tab\"")
		if i == 0 {
			w.s(" open")
		}
		w.s("><summary>", esc(str(t.Data, "title")), "</summary>\n")
		w.children(t)
		w.s("</details>\n")
	}
	w.s("</div>\n")
}

func (w *writer) TabsItem(_ *docwalk.Walker, n *markdown.Node) {
	w.s(`<details class="tab" open><summary>`, esc(str(n.Data, "title")), "</summary>\n")
	w.children(n)
	w.s("</details>\n")
}

func (w *writer) Table(_ *docwalk.Walker, n *markdown.Node) { w.table(n) }

func (w *writer) OpenAPI(_ *docwalk.Walker, n *markdown.Node) { w.openAPI(n) }

func (w *writer) ContentRef(_ *docwalk.Walker, n *markdown.Node) {
	href, label := w.ref(refOf(n.Data))
	w.s(`<p class="content-ref"><a href="`, esc(href), `">`, esc(label), "</a></p>\n")
}

func (w *writer) Integration(_ *docwalk.Walker, n *markdown.Node) { w.integration(n) }

func (w *writer) ReusableContent(_ *docwalk.Walker, n *markdown.Node) { w.reusable(n) }

func (w *writer) Stepper(_ *docwalk.Walker, n *markdown.Node) {
	w.s(`<ol class="stepper">`, "\n")
	w.children(n)
	w.s("</ol>\n")
}

func (w *writer) StepperStep(_ *docwalk.Walker, n *markdown.Node) {
	w.s(`<li class="step">`)
	w.children(n)
	w.s("</li>\n")
}

func (w *writer) Columns(_ *docwalk.Walker, n *markdown.Node) {
	w.s(`<div class="columns">`)
	w.children(n)
	w.s("</div>\n")
}

func (w *writer) Column(_ *docwalk.Walker, n *markdown.Node) {
	w.s(`<div class="column">`)
	w.children(n)
	w.s("</div>\n")
}

func (w *writer) Unknown(_ *docwalk.Walker, n *markdown.Node) {
	w.s(`<div class="block-`, esc(n.Type), `">`)
	w.children(n)
	w.s("</div>\n")
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

func (w *writer) Link(_ *docwalk.Walker, n *markdown.Node) {
	d := n.Data
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
}

func (w *writer) InlineImage(_ *docwalk.Walker, n *markdown.Node) { w.image(n.Data, nil) }

func (w *writer) InlineMath(_ *docwalk.Walker, n *markdown.Node) {
	w.s(`<code class="math">`, esc(str(n.Data, "formula")), "</code>")
}

func (w *writer) Inline(_ *docwalk.Walker, n *markdown.Node) { w.inlines(n) }

func (w *writer) Leaf(_ *docwalk.Walker, l *markdown.Leaf) {
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

// ref is the URL and label of a content reference.
func (w *writer) ref(ref map[string]any) (href, label string) { return refHref(w.res, ref) }

// refHref is the URL and label of a content reference, through res.
func refHref(res Resolver, ref map[string]any) (href, label string) {
	switch str(ref, "kind") {
	case "file":
		if res.File != nil {
			if f, ok := res.File(str(ref, "file")); ok {
				return f.URL, f.Name
			}
		}
		return "#", str(ref, "file")
	case "url":
		u := str(ref, "url")
		if res.Link != nil {
			if h, ok := res.Link(u); ok {
				return h, u
			}
		}
		return safeURL(u), u
	case "page":
		if res.Link != nil {
			if h, ok := res.Link(str(ref, "page")); ok {
				return h, str(ref, "page")
			}
		}
	case "anchor":
		// An anchor in another page (0.130.0's page field) goes to that page.
		if page := str(ref, "page"); page != "" && res.Link != nil {
			if h, ok := res.Link(page); ok {
				return h + "#" + str(ref, "anchor"), str(ref, "anchor")
			}
		}
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
	var f File
	ok := false
	if w.res.File != nil {
		f, ok = w.res.File(str(ref, "file"))
	}
	if !ok {
		// A file the revision no longer has: its name, no link.
		w.s(`<p class="file missing">`, esc(str(ref, "file")), "</p>\n")
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

// table writes a table block (docwalk.Table reads its model).
func (w *writer) table(n *markdown.Node) {
	t := docwalk.Table(n)
	align := func(i int) string {
		if a := t.Align[i]; a != "left" {
			return ` style="text-align:` + a + `"`
		}
		return ""
	}
	w.s(`<div class="table"><table><thead><tr>`)
	for i, title := range t.Titles {
		w.s("<th", align(i), ">", esc(title), "</th>")
		w.text.WriteString(title + "\t")
	}
	w.s("</tr></thead><tbody>\n")
	w.text.WriteString("\n")
	for _, row := range t.Rows {
		w.s("<tr>")
		for i, c := range row {
			w.s("<td", align(i), ">")
			for _, b := range c.Nodes {
				if b != nil && b.Type == "paragraph" {
					w.inlines(b) // a cell's one paragraph stays inline
				} else {
					w.block(b)
				}
			}
			w.s(esc(c.Value), "</td>")
			w.text.WriteString("\t")
		}
		w.s("</tr>\n")
		w.text.WriteString("\n")
	}
	w.s("</tbody></table></div>\n")
}

// openAPI writes an OpenAPI block: the operation it points at.
func (w *writer) openAPI(n *markdown.Node) {
	d := n.Data
	w.s(`<div class="openapi">`)
	if op := lookupOperation(w.res, n); op != nil {
		w.wk.Blocks(op.Nodes)
	} else {
		w.s(`<p><code>`, esc(strings.ToUpper(str(d, "method"))), " ", esc(str(d, "path")), "</code></p>")
	}
	w.children(n)
	w.s("</div>\n")
}

// integration writes an integration block: the output its integration
// renders, else its stored child blocks, else a placeholder naming the
// integration.
func (w *writer) integration(n *markdown.Node) {
	w.s(`<div class="integration">`)
	if out, ok := integrationOutput(w.res, n); ok {
		w.s(string(out.HTML), "</div>\n")
		w.text.WriteString(out.Markdown)
		w.text.WriteString("\n")
		return
	}
	if len(n.Nodes) == 0 {
		w.s(`<p class="placeholder">`, esc(integrationLabel(n)), "</p>")
	}
	w.children(n)
	w.s("</div>\n")
}

func integrationLabel(n *markdown.Node) string {
	name := str(n.Data, "integration")
	if name == "" {
		name = "an integration"
	}
	return "Content from " + name + " (" + str(n.Data, "block") + ")"
}

// reusable writes a reusable-content block: its child blocks.
func (w *writer) reusable(n *markdown.Node) {
	w.s(`<div class="reusable">`)
	w.wk.Blocks(reusableNodes(w.res, n))
	w.s("</div>\n")
}
