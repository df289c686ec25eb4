// Package pdf renders pages (their document model, walked by docwalk, as
// the reader site's HTML and Markdown are) to a PDF document with
// github.com/go-pdf/fpdf (the maintained fork of gofpdf): headings,
// paragraphs with bold, italic, code and link marks, ordered and unordered
// lists, code blocks, blockquotes, tables, rules and images (PNG, JPEG and
// GIF files of the content). Text uses the PDF core fonts, so characters
// outside Windows-1252 are replaced.
package pdf

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/draw"
	_ "image/gif" // images of the content
	_ "image/jpeg"
	"image/png"
	"path"
	"strconv"
	"strings"

	"github.com/go-pdf/fpdf"

	"docsapi/docwalk"
	"docsapi/imagecheck"
	"docsapi/markdown"
)

// Page is one page of content; Depth is its nesting in the page tree.
// Its content is Document, or when nil the document of Markdown.
type Page struct {
	Title    string
	Depth    int
	Markdown string
	Document *markdown.Document
}

// Document is what Render renders. Image returns the bytes of an image a
// page refers to (by its destination as written), when the content has it.
type Document struct {
	Title string
	Pages []Page
	Image func(dest string) (data []byte, contentType string, ok bool)
	// OpenAPI and Reusable resolve those blocks as the reader site does
	// (either may be nil).
	OpenAPI  func(block *markdown.Node) (*markdown.Document, bool)
	Reusable func(id, space string) (*markdown.Document, bool)
	// Integration is an integration block's output as its integration
	// renders it (its Markdown read back into blocks); nil or ok false:
	// the block's stored children, else a label naming the integration.
	Integration func(block *markdown.Node) (*markdown.Document, bool)
}

const (
	margin     = 20.0
	lineHeight = 5.5
	bodySize   = 11.0
)

// Bounds of one PDF. Pages are stored in revisions of at most 1 MiB each,
// but a revision holds any number of them and images are decoded to pixels:
// past these bounds the document ends with a notice instead.
const (
	// MaxSheets bounds the sheets of a document (about 3 KB each of text).
	MaxSheets = 2000
	// MaxImagePixels bounds the pixels of all images of a document
	// together (one image is bounded by imagecheck.MaxPixels).
	MaxImagePixels = 4 * imagecheck.MaxPixels
	// MaxImageBytes bounds the embedded (re-encoded) images of a document.
	MaxImageBytes = 24 << 20
	// maxIndent bounds the indentation of nested lists and quotes (deeper
	// levels are written at this indentation, inside the page).
	maxIndent = 60.0
)

// The image budgets the writer applies (tests lower them).
var maxImagePixels, maxImageBytes = MaxImagePixels, MaxImageBytes

// errTruncated stops a render that reached MaxSheets.
var errTruncated = errors.New("pdf: too many sheets")

// Render returns the PDF bytes of d: a title, then each page under its
// title (top-level pages start a new sheet), with an outline (bookmarks)
// following the page tree. It stops with ctx.Err() when ctx ends; a
// document over MaxSheets ends with a notice saying where it was cut.
func Render(ctx context.Context, d Document) ([]byte, error) {
	f := fpdf.New("P", "mm", "A4", "")
	f.SetTitle(d.Title, true)
	f.SetCreator("docsapi", true)
	f.SetMargins(margin, margin, margin)
	f.SetAutoPageBreak(true, margin)
	w := &writer{ctx: ctx, f: f, tr: f.UnicodeTranslatorFromDescriptor(""), image: d.Image, images: map[string]string{},
		openAPI: d.OpenAPI, reusable: d.Reusable, integration: d.Integration}
	w.wk = &docwalk.Walker{V: w, Stop: w.stopped}
	f.AddPage()
	f.SetFont("Helvetica", "B", 24)
	f.MultiCell(0, 11, w.tr(d.Title), "", "L", false)
	f.Ln(4)
	for i, p := range d.Pages {
		if w.err != nil {
			break
		}
		if i > 0 && p.Depth == 0 {
			f.AddPage()
		}
		f.Bookmark(w.tr(p.Title), min(p.Depth, 5), -1)
		f.SetFont("Helvetica", "B", max(20-2*float64(p.Depth), 13))
		f.MultiCell(0, 9, w.tr(p.Title), "", "L", false)
		f.Ln(2)
		doc := p.Document
		if doc == nil {
			doc = markdown.ToDocument(p.Markdown, nil)
		}
		w.size = bodySize
		w.wk.Blocks(doc.Nodes)
		f.Ln(4)
		if w.err == errTruncated {
			w.indent = 0
			f.SetLeftMargin(margin)
			f.SetX(margin)
			f.SetFont("Helvetica", "B", bodySize)
			f.MultiCell(0, lineHeight, w.tr(fmt.Sprintf("The document ends here: it reached %d sheets, the most a PDF export holds. Pages after %q are not included.", MaxSheets, p.Title)), "", "L", false)
		}
	}
	if w.err != nil && w.err != errTruncated {
		return nil, w.err
	}
	var buf bytes.Buffer
	if err := f.Output(&buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

type writer struct {
	wk     *docwalk.Walker
	ctx    context.Context
	err    error // ctx.Err(), or errTruncated: nothing more is written
	f      *fpdf.Fpdf
	tr     func(string) string
	image  func(string) ([]byte, string, bool)
	images map[string]string // destination -> registered name ("" when unusable)
	// pixels and imageBytes count the images embedded so far.
	pixels, imageBytes int

	openAPI  func(*markdown.Node) (*markdown.Document, bool)
	reusable func(id, space string) (*markdown.Document, bool)
	// integration renders integration blocks (Document.Integration).
	integration func(*markdown.Node) (*markdown.Document, bool)

	bold, italic, mono int
	size               float64
	indent             float64
}

// font applies the current style.
func (w *writer) font() {
	family, style := "Helvetica", ""
	if w.mono > 0 {
		family = "Courier"
	}
	if w.bold > 0 {
		style += "B"
	}
	if w.italic > 0 {
		style += "I"
	}
	w.f.SetFont(family, style, w.size)
}

// stopped checks, at every block, whether the render must stop: the
// client left, or the document is full.
func (w *writer) stopped() bool {
	if w.err == nil {
		if err := w.ctx.Err(); err != nil {
			w.err = err
		} else if w.f.PageNo() >= MaxSheets {
			w.err = errTruncated
		}
	}
	return w.err != nil
}

// nest indents by one level, up to maxIndent; it returns the undo.
func (w *writer) nest() func() {
	step := 6.0
	if w.indent+step > maxIndent {
		step = 0
	}
	w.indent += step
	w.f.SetLeftMargin(margin + w.indent)
	return func() {
		w.indent -= step
		w.f.SetLeftMargin(margin + w.indent)
	}
}

// The PDF form of each block kind (docwalk.Visitor).

func (w *writer) Heading(_ *docwalk.Walker, n *markdown.Node, level int) {
	w.size = max(17-2*float64(level), 11)
	w.bold++
	w.font()
	w.f.Ln(2)
	w.wk.Inlines(n)
	w.bold--
	w.size = bodySize
	w.f.Ln(lineHeight + 2)
}

// para writes inline content as a paragraph.
func (w *writer) para(n *markdown.Node) {
	w.font()
	w.f.SetX(margin + w.indent)
	w.wk.Inlines(n)
	w.f.Ln(lineHeight)
}

func (w *writer) Paragraph(_ *docwalk.Walker, n *markdown.Node) {
	w.para(n)
	w.f.Ln(2)
}

func (w *writer) List(_ *docwalk.Walker, n *markdown.Node) {
	num := 1
	if start, ok := docwalk.Int(n.Data, "start"); ok {
		num = start
	}
	for _, item := range n.Nodes {
		if item == nil {
			continue
		}
		marker := "\u2022"
		switch {
		case n.Type == "list-ordered":
			marker = strconv.Itoa(num) + "."
			num++
		case n.Type == "list-tasks":
			marker = "[ ]"
			if checked, _ := item.Data["checked"].(bool); checked {
				marker = "[x]"
			}
		}
		w.marked(marker, item)
	}
	w.f.Ln(2)
}

// marked writes a list marker, then item's blocks indented.
func (w *writer) marked(marker string, item *markdown.Node) {
	w.font()
	w.f.SetX(margin + w.indent)
	w.f.Write(lineHeight, w.tr(marker+" "))
	unnest := w.nest()
	w.wk.Block(item)
	unnest()
}

func (w *writer) ListItem(_ *docwalk.Walker, n *markdown.Node) {
	for _, c := range n.Nodes {
		if c != nil && c.Type == "paragraph" {
			w.para(c) // an item's paragraph follows its marker
			continue
		}
		w.wk.Block(c)
	}
}

func (w *writer) Divider(*docwalk.Walker, *markdown.Node) {
	f := w.f
	y := f.GetY() + 2
	pw, _ := f.GetPageSize()
	f.SetDrawColor(180, 180, 180)
	f.Line(margin, y, pw-margin, y)
	f.Ln(6)
}

// indented writes nodes one level in, italic when quoted.
func (w *writer) indented(nodes []*markdown.Node, italic bool) {
	unnest := w.nest()
	w.f.SetX(margin + w.indent)
	if italic {
		w.italic++
	}
	w.wk.Blocks(nodes)
	if italic {
		w.italic--
	}
	unnest()
}

func (w *writer) Quote(_ *docwalk.Walker, n *markdown.Node) { w.indented(n.Nodes, true) }

// label writes a bold line (a hint's kind, a tab's title, a step's number).
func (w *writer) label(s string) {
	w.bold++
	w.font()
	w.f.SetX(margin + w.indent)
	w.f.MultiCell(0, lineHeight, w.tr(s), "", "L", false)
	w.bold--
	w.font()
}

func (w *writer) Hint(_ *docwalk.Walker, n *markdown.Node) {
	style := docwalk.Str(n.Data, "style")
	label := map[string]string{"warning": "Warning", "danger": "Danger", "success": "Tip"}[style]
	if label == "" {
		label = "Note"
	}
	w.label(label)
	w.indented(n.Nodes, false)
}

func (w *writer) If(_ *docwalk.Walker, n *markdown.Node) { w.wk.Blocks(n.Nodes) }

func (w *writer) Images(_ *docwalk.Walker, n *markdown.Node) {
	w.wk.Blocks(n.Nodes)
	w.f.Ln(lineHeight)
}

func (w *writer) Image(_ *docwalk.Walker, n *markdown.Node) {
	w.picture(refDest(docwalk.Ref(n.Data)), docwalk.Str(n.Data, "alt"))
}

// refDest is the destination of a content reference as Document.Image
// and links take it: a URL as written, a file's id.
func refDest(ref map[string]any) string {
	switch docwalk.Str(ref, "kind") {
	case "file":
		return docwalk.Str(ref, "file")
	case "page":
		return docwalk.Str(ref, "page")
	case "anchor":
		return "#" + docwalk.Str(ref, "anchor")
	}
	return docwalk.Str(ref, "url")
}

func (w *writer) File(_ *docwalk.Walker, n *markdown.Node) {
	w.font()
	w.f.SetX(margin + w.indent)
	w.f.Write(lineHeight, w.tr("File: "+path.Base(refDest(docwalk.Ref(n.Data)))))
	w.f.Ln(lineHeight + 2)
}

func (w *writer) Drawing(_ *docwalk.Walker, n *markdown.Node) {
	w.picture(refDest(docwalk.Ref(n.Data)), "drawing")
	w.f.Ln(lineHeight)
}

func (w *writer) Embed(_ *docwalk.Walker, n *markdown.Node) {
	u := docwalk.Str(n.Data, "url")
	w.font()
	w.f.SetX(margin + w.indent)
	w.link(u, u)
	w.f.Ln(lineHeight + 2)
}

func (w *writer) Code(_ *docwalk.Walker, n *markdown.Node) {
	w.codeText(docwalk.CodeText(n))
}

func (w *writer) codeText(code string) {
	f := w.f
	f.SetFont("Courier", "", 9)
	f.SetFillColor(242, 242, 242)
	f.SetX(margin + w.indent)
	f.MultiCell(0, 4.5, w.tr(strings.TrimRight(code, "\n")), "", "L", true)
	f.Ln(3)
	w.font()
}

func (w *writer) CodeLine(_ *docwalk.Walker, n *markdown.Node) { w.codeText(docwalk.PlainText(n)) }

func (w *writer) Math(_ *docwalk.Walker, n *markdown.Node) {
	w.codeText(docwalk.Str(n.Data, "formula"))
}

func (w *writer) Expandable(_ *docwalk.Walker, n *markdown.Node) {
	title, body := docwalk.ExpandableParts(n)
	w.label(title)
	w.indented(body, false)
}

func (w *writer) Tabs(_ *docwalk.Walker, n *markdown.Node) { w.wk.Blocks(n.Nodes) }

func (w *writer) TabsItem(_ *docwalk.Walker, n *markdown.Node) {
	w.label(docwalk.Str(n.Data, "title"))
	w.indented(n.Nodes, false)
}

func (w *writer) Table(_ *docwalk.Walker, n *markdown.Node) {
	t := docwalk.Table(n)
	f := w.f
	w.bold++
	w.font()
	f.SetX(margin + w.indent)
	f.Write(lineHeight, w.tr(strings.Join(t.Titles, " | ")))
	w.bold--
	w.font()
	f.Ln(lineHeight)
	for _, row := range t.Rows {
		f.SetX(margin + w.indent)
		for i, c := range row {
			if i > 0 {
				f.Write(lineHeight, " | ")
			}
			if c.Value != "" {
				f.Write(lineHeight, w.tr(c.Value))
			}
			for _, b := range c.Nodes {
				if b != nil && b.Type == "paragraph" {
					w.wk.Inlines(b) // a cell's paragraph stays on the row
				} else {
					w.wk.Block(b)
				}
			}
		}
		f.Ln(lineHeight)
	}
	f.Ln(2)
}

func (w *writer) OpenAPI(_ *docwalk.Walker, n *markdown.Node) {
	if w.openAPI != nil {
		if doc, ok := w.openAPI(n); ok && doc != nil {
			w.wk.Blocks(doc.Nodes)
			return
		}
	}
	w.codeText(strings.ToUpper(docwalk.Str(n.Data, "method")) + " " + docwalk.Str(n.Data, "path"))
	w.wk.Blocks(n.Nodes)
}

func (w *writer) ContentRef(_ *docwalk.Walker, n *markdown.Node) {
	dest := refDest(docwalk.Ref(n.Data))
	w.font()
	w.f.SetX(margin + w.indent)
	w.link(dest, dest)
	w.f.Ln(lineHeight + 2)
}

func (w *writer) Integration(_ *docwalk.Walker, n *markdown.Node) {
	if w.integration != nil {
		if doc, ok := w.integration(n); ok && doc != nil {
			w.wk.Blocks(doc.Nodes)
			return
		}
	}
	if len(n.Nodes) > 0 {
		w.wk.Blocks(n.Nodes)
		return
	}
	name := docwalk.Str(n.Data, "integration")
	if name == "" {
		name = "an integration"
	}
	w.label("Content from " + name + " (" + docwalk.Str(n.Data, "block") + ")")
	w.f.Ln(2)
}

func (w *writer) ReusableContent(_ *docwalk.Walker, n *markdown.Node) {
	if w.reusable != nil {
		ref := docwalk.Ref(n.Data)
		if doc, ok := w.reusable(docwalk.Str(ref, "reusableContent"), docwalk.Str(ref, "space")); ok && doc != nil {
			w.wk.Blocks(doc.Nodes)
			return
		}
	}
	w.wk.Blocks(n.Nodes)
}

func (w *writer) Stepper(_ *docwalk.Walker, n *markdown.Node) {
	for i, step := range n.Nodes {
		if step == nil {
			continue
		}
		w.label("Step " + strconv.Itoa(i+1))
		w.wk.Block(step)
	}
}

func (w *writer) StepperStep(_ *docwalk.Walker, n *markdown.Node) { w.indented(n.Nodes, false) }

func (w *writer) Columns(_ *docwalk.Walker, n *markdown.Node) { w.wk.Blocks(n.Nodes) }

func (w *writer) Column(_ *docwalk.Walker, n *markdown.Node) { w.wk.Blocks(n.Nodes) }

func (w *writer) Unknown(_ *docwalk.Walker, n *markdown.Node) { w.wk.Blocks(n.Nodes) }

func (w *writer) Leaf(_ *docwalk.Walker, l *markdown.Leaf) {
	var bold, italic, mono int
	for _, m := range l.Marks {
		switch m.Type {
		case "bold":
			bold = 1
		case "italic":
			italic = 1
		case "code":
			mono = 1
		}
	}
	w.bold, w.italic, w.mono = w.bold+bold, w.italic+italic, w.mono+mono
	w.font()
	text := l.Text
	for {
		line, rest, ok := strings.Cut(text, "\n")
		w.f.Write(lineHeight, w.tr(line))
		if !ok {
			break
		}
		w.f.Ln(lineHeight)
		text = rest
	}
	w.bold, w.italic, w.mono = w.bold-bold, w.italic-italic, w.mono-mono
	w.font()
}

func (w *writer) Link(_ *docwalk.Walker, n *markdown.Node) {
	w.link(docwalk.PlainText(n), refDest(docwalk.Ref(n.Data)))
}

func (w *writer) InlineImage(_ *docwalk.Walker, n *markdown.Node) {
	w.picture(refDest(docwalk.Ref(n.Data)), docwalk.Str(n.Data, "alt"))
}

func (w *writer) InlineMath(_ *docwalk.Walker, n *markdown.Node) {
	w.mono++
	w.font()
	w.f.Write(lineHeight, w.tr(docwalk.Str(n.Data, "formula")))
	w.mono--
	w.font()
}

func (w *writer) Inline(_ *docwalk.Walker, n *markdown.Node) { w.wk.Inlines(n) }

// link writes blue, underlined text that opens dest (absolute URLs only;
// relative links are written as plain text).
func (w *writer) link(label, dest string) {
	f := w.f
	if !strings.Contains(dest, "://") && !strings.HasPrefix(dest, "mailto:") {
		f.Write(lineHeight, w.tr(label))
		return
	}
	f.SetTextColor(30, 80, 200)
	family, style := "Helvetica", "U"
	if w.bold > 0 {
		style += "B"
	}
	f.SetFont(family, style, w.size)
	f.WriteLinkString(lineHeight, w.tr(label), dest)
	f.SetTextColor(0, 0, 0)
	w.font()
}

// picture embeds an image of the content (re-encoded as 8-bit PNG, which
// fpdf reads in every case), scaled to the text width; images that are not
// in the content or cannot be decoded are written as their alt text, and
// images over the pixel bounds (read from their header, never decoded) as
// a placeholder saying so.
func (w *writer) picture(dest, alt string) {
	f := w.f
	name, seen := w.images[dest]
	placeholder := ""
	if !seen {
		w.images[dest] = ""
		name, placeholder = w.embed(dest)
		w.images[dest] = name
	}
	if name == "" {
		switch {
		case placeholder != "":
			f.Write(lineHeight, w.tr("["+placeholder+"]"))
		case alt != "":
			f.Write(lineHeight, w.tr("["+alt+"]"))
		}
		return
	}
	info := f.GetImageInfo(name)
	pw, _ := f.GetPageSize()
	maxW := pw - 2*margin - w.indent
	width := min(info.Width(), maxW)
	f.Ln(lineHeight)
	f.ImageOptions(name, margin+w.indent, f.GetY(), width, 0, true, fpdf.ImageOptions{ImageType: "PNG"}, 0, "")
}

// embed registers the image at dest and returns its name, or "" and, when
// the image is there but over a bound, a placeholder text.
func (w *writer) embed(dest string) (name, placeholder string) {
	if w.image == nil {
		return "", ""
	}
	data, _, ok := w.image(dest)
	if !ok {
		return "", ""
	}
	cfg, _, err := imagecheck.Config(data)
	var tooLarge *imagecheck.TooLargeError
	switch {
	case errors.As(err, &tooLarge):
		return "", fmt.Sprintf("image %s not shown: %dx%d pixels, over the %d the PDF export decodes", path.Base(dest), cfg.Width, cfg.Height, imagecheck.MaxPixels)
	case err != nil:
		return "", ""
	case w.pixels+cfg.Width*cfg.Height > maxImagePixels || w.imageBytes+len(data) > maxImageBytes:
		return "", fmt.Sprintf("image %s not shown: the document's images reached the PDF export's limit", path.Base(dest))
	}
	img, _, err := image.Decode(bytes.NewReader(data))
	if err != nil {
		return "", ""
	}
	rgba := image.NewNRGBA(img.Bounds())
	draw.Draw(rgba, rgba.Bounds(), img, img.Bounds().Min, draw.Src)
	var buf bytes.Buffer
	if png.Encode(&buf, rgba) != nil {
		return "", ""
	}
	w.pixels += cfg.Width * cfg.Height
	w.imageBytes += max(len(data), buf.Len())
	if w.imageBytes > maxImageBytes {
		return "", fmt.Sprintf("image %s not shown: the document's images reached the PDF export's limit", path.Base(dest))
	}
	name = "img" + strconv.Itoa(len(w.images))
	w.f.RegisterImageOptionsReader(name, fpdf.ImageOptions{ImageType: "PNG"}, &buf)
	return name, ""
}
