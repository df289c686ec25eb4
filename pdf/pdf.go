// Package pdf renders pages of Markdown to a PDF document with
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
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/text"

	"docsapi/imagecheck"
)

// Page is one page of content; Depth is its nesting in the page tree.
type Page struct {
	Title    string
	Depth    int
	Markdown string
}

// Document is what Render renders. Image returns the bytes of an image a
// page refers to (by its destination as written), when the content has it.
type Document struct {
	Title string
	Pages []Page
	Image func(dest string) (data []byte, contentType string, ok bool)
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

var md = goldmark.New(goldmark.WithExtensions(extension.GFM))

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
	w := &writer{ctx: ctx, f: f, tr: f.UnicodeTranslatorFromDescriptor(""), image: d.Image, images: map[string]string{}}
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
		w.markdown(p.Markdown)
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
	ctx    context.Context
	err    error // ctx.Err(), or errTruncated: nothing more is written
	f      *fpdf.Fpdf
	tr     func(string) string
	src    []byte
	image  func(string) ([]byte, string, bool)
	images map[string]string // destination -> registered name ("" when unusable)
	// pixels and imageBytes count the images embedded so far.
	pixels, imageBytes int

	bold, italic, mono int
	size               float64
	indent             float64
}

func (w *writer) markdown(src string) {
	w.src = []byte(src)
	w.size = bodySize
	doc := md.Parser().Parse(text.NewReader(w.src))
	for n := doc.FirstChild(); n != nil; n = n.NextSibling() {
		w.block(n)
	}
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

func (w *writer) block(n ast.Node) {
	if w.stopped() {
		return
	}
	f := w.f
	switch v := n.(type) {
	case *ast.Heading:
		w.size = max(17-2*float64(v.Level), 11)
		w.bold++
		w.font()
		f.Ln(2)
		w.inlines(v)
		w.bold--
		w.size = bodySize
		f.Ln(lineHeight + 2)
	case *ast.Paragraph, *ast.TextBlock:
		w.font()
		w.inlines(v)
		f.Ln(lineHeight)
		if _, ok := n.(*ast.Paragraph); ok {
			f.Ln(2)
		}
	case *ast.List:
		w.list(v)
		f.Ln(2)
	case *ast.FencedCodeBlock, *ast.CodeBlock:
		w.code(n)
	case *ast.Blockquote:
		unnest := w.nest()
		f.SetX(margin + w.indent)
		w.italic++
		for c := v.FirstChild(); c != nil; c = c.NextSibling() {
			w.block(c)
		}
		w.italic--
		unnest()
	case *ast.ThematicBreak:
		y := f.GetY() + 2
		pw, _ := f.GetPageSize()
		f.SetDrawColor(180, 180, 180)
		f.Line(margin, y, pw-margin, y)
		f.Ln(6)
	case *east.Table:
		w.table(v)
	case *ast.HTMLBlock:
		// Raw HTML is not rendered.
	default:
		for c := n.FirstChild(); c != nil; c = c.NextSibling() {
			w.block(c)
		}
	}
}

func (w *writer) list(l *ast.List) {
	f := w.f
	n := l.Start
	if n == 0 {
		n = 1
	}
	for item := l.FirstChild(); item != nil; item = item.NextSibling() {
		marker := "\u2022"
		if l.IsOrdered() {
			marker = strconv.Itoa(n) + "."
			n++
		}
		w.font()
		f.SetX(margin + w.indent)
		f.Write(lineHeight, w.tr(marker+" "))
		unnest := w.nest()
		for c := item.FirstChild(); c != nil; c = c.NextSibling() {
			w.block(c)
		}
		unnest()
	}
}

func (w *writer) code(n ast.Node) {
	f := w.f
	var b strings.Builder
	lines := n.Lines()
	for i := 0; i < lines.Len(); i++ {
		seg := lines.At(i)
		b.Write(seg.Value(w.src))
	}
	f.SetFont("Courier", "", 9)
	f.SetFillColor(242, 242, 242)
	f.MultiCell(0, 4.5, w.tr(strings.TrimRight(b.String(), "\n")), "", "L", true)
	f.Ln(3)
}

func (w *writer) table(t *east.Table) {
	f := w.f
	for row := t.FirstChild(); row != nil; row = row.NextSibling() {
		_, header := row.(*east.TableHeader)
		if header {
			w.bold++
		}
		w.font()
		for cell := row.FirstChild(); cell != nil; cell = cell.NextSibling() {
			if cell != row.FirstChild() {
				f.Write(lineHeight, " | ")
			}
			w.inlines(cell)
		}
		if header {
			w.bold--
		}
		f.Ln(lineHeight)
	}
	f.Ln(2)
}

// inlines writes n's inline children, flowing with the current style.
func (w *writer) inlines(n ast.Node) {
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		w.inline(c)
	}
}

func (w *writer) inline(n ast.Node) {
	f := w.f
	switch v := n.(type) {
	case *ast.Text:
		f.Write(lineHeight, w.tr(string(v.Segment.Value(w.src))))
		switch {
		case v.HardLineBreak():
			f.Ln(lineHeight)
		case v.SoftLineBreak():
			f.Write(lineHeight, " ")
		}
	case *ast.String:
		f.Write(lineHeight, w.tr(string(v.Value)))
	case *ast.Emphasis:
		if v.Level >= 2 {
			w.bold++
		} else {
			w.italic++
		}
		w.font()
		w.inlines(v)
		if v.Level >= 2 {
			w.bold--
		} else {
			w.italic--
		}
		w.font()
	case *ast.CodeSpan:
		w.mono++
		w.font()
		w.inlines(v)
		w.mono--
		w.font()
	case *ast.Link:
		w.link(plainText(v, w.src), string(v.Destination))
	case *ast.AutoLink:
		w.link(string(v.Label(w.src)), string(v.URL(w.src)))
	case *ast.Image:
		w.picture(string(v.Destination), plainText(v, w.src))
	case *ast.RawHTML:
	default:
		w.inlines(n)
	}
}

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

func plainText(n ast.Node, src []byte) string {
	var b strings.Builder
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch v := c.(type) {
		case *ast.Text:
			b.Write(v.Segment.Value(src))
		case *ast.String:
			b.Write(v.Value)
		}
		return ast.WalkContinue, nil
	})
	return b.String()
}
