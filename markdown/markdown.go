// Package markdown reads page bodies with goldmark (CommonMark + GFM): it
// extracts the links a page makes, builds the JSON "document" of blocks the
// API returns for format=document, and cuts a page into heading-delimited
// sections for full-text search. It knows nothing of storage or the API.
package markdown

import (
	"bytes"
	"regexp"
	"strings"
	"unicode"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

var md = goldmark.New(goldmark.WithExtensions(extension.GFM))

// parse returns the document tree of src.
func parse(src []byte) ast.Node { return md.Parser().Parse(text.NewReader(src)) }

// Link is one link or image a page makes, as written.
type Link struct {
	Dest  string // destination as written (URL, relative path, #anchor)
	Text  string // link text or image alt
	Image bool
}

// Analysis is what a write needs of a body: its links, its search
// sections and its title, read from one parse. Err is the bound the body
// exceeds (*LimitError): such a body is not parsed; it has no links, no
// title and one section of its raw text. Analyses are shared between
// callers: their slices are read, never modified.
type Analysis struct {
	Links    []Link
	Sections []Section
	Title    string
	Err      error
}

// analyses keeps recent analyses: a page's body is parsed when it is
// written (before the write transaction) and again only when evicted.
var analyses = newMemo[*Analysis](32 << 20)

// Analyze is the analysis of src, parsed once per content.
func Analyze(src string) *Analysis {
	return analyses.get(contentKey(src, ""), func() (*Analysis, int64) {
		a := analyze(src)
		cost := 2*int64(len(src)) + 1024 // the sections hold the text again
		for _, l := range a.Links {
			cost += int64(len(l.Dest)+len(l.Text)) + 64
		}
		return a, cost
	})
}

func analyze(src string) *Analysis {
	if err := Check(src); err != nil {
		var out []Section
		if body := strings.TrimSpace(blankLines.ReplaceAllString(src, "\n")); body != "" {
			out = []Section{{Body: body}}
		}
		return &Analysis{Sections: out, Err: err}
	}
	b := []byte(src)
	root := parse(b)
	return &Analysis{Links: blockLinks(src, links(root, b)), Sections: sections(root, b), Title: title(root, b)}
}

// blockLinks adds to out the references GitBook blocks make to pages and
// files (content-ref url=, file src=, <img src=>, <source srcset=>) that
// no Markdown link of the body already makes: links as much as Markdown's.
func blockLinks(src string, out []Link) []Link {
	if !strings.Contains(src, "{%") && !strings.Contains(src, "<") {
		return out
	}
	seen := make(map[string]bool, len(out))
	for _, l := range out {
		seen[l.Dest] = true
	}
	for _, r := range GitBookRefs(src) {
		if r.Key == `include "` || r.Dest == "" || seen[r.Dest] {
			continue
		}
		seen[r.Dest] = true
		out = append(out, Link{Dest: r.Dest, Image: r.Key != `url="`})
	}
	return out
}

// Links lists the links and images of src in document order, then the
// references of its GitBook blocks.
func Links(src string) []Link { return Analyze(src).Links }

func links(root ast.Node, b []byte) []Link {
	var out []Link
	ast.Walk(root, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch v := n.(type) {
		case *ast.Link:
			out = append(out, Link{Dest: string(v.Destination), Text: plain(v, b)})
		case *ast.Image:
			out = append(out, Link{Dest: string(v.Destination), Text: plain(v, b), Image: true})
		case *ast.AutoLink:
			if v.AutoLinkType == ast.AutoLinkURL {
				out = append(out, Link{Dest: string(v.URL(b)), Text: string(v.Label(b))})
			}
		}
		return ast.WalkContinue, nil
	})
	return out
}

// plain is the text content of n's inline descendants.
func plain(n ast.Node, src []byte) string {
	var buf bytes.Buffer
	writePlain(&buf, n, src)
	return strings.TrimSpace(buf.String())
}

func writePlain(buf *bytes.Buffer, n ast.Node, src []byte) {
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		switch v := c.(type) {
		case *ast.Text:
			buf.Write(inlineText(v.Segment.Value(src)))
			if v.SoftLineBreak() || v.HardLineBreak() {
				buf.WriteByte(' ')
			}
		case *ast.String:
			buf.Write(v.Value)
		case *ast.CodeSpan:
			buf.WriteString(codeText(v, src))
		case *ast.AutoLink:
			buf.Write(v.Label(src))
		case *ast.RawHTML:
		default:
			if c.Type() == ast.TypeBlock {
				if buf.Len() > 0 {
					buf.WriteByte('\n')
				}
				if lines := c.Lines(); c.ChildCount() == 0 && lines != nil {
					for i := 0; i < lines.Len(); i++ {
						seg := lines.At(i)
						buf.Write(seg.Value(src))
					}
					continue
				}
			}
			writePlain(buf, c, src)
		}
	}
}

// inlineText is the text a Markdown text run stands for: backslash escapes
// (`\[`) and entity references (`&amp;`) resolved, as a renderer shows them.
func inlineText(seg []byte) []byte {
	if bytes.IndexByte(seg, '\\') < 0 && bytes.IndexByte(seg, '&') < 0 {
		return seg
	}
	return util.ResolveEntityNames(util.ResolveNumericReferences(util.UnescapePunctuations(seg)))
}

// codeText is a code span's text, byte for byte: escapes mean nothing there.
func codeText(c *ast.CodeSpan, src []byte) string {
	var b strings.Builder
	for g := c.FirstChild(); g != nil; g = g.NextSibling() {
		switch t := g.(type) {
		case *ast.Text:
			b.Write(t.Segment.Value(src))
		case *ast.String:
			b.Write(t.Value)
		}
	}
	return b.String()
}

// Title returns the text of the first level-1 heading, or "".
func Title(src string) string { return Analyze(src).Title }

func title(root ast.Node, b []byte) string {
	for c := root.FirstChild(); c != nil; c = c.NextSibling() {
		if h, ok := c.(*ast.Heading); ok && h.Level == 1 {
			return plain(h, b)
		}
	}
	return ""
}

// StripTitle removes a leading level-1 heading equal to title (imports keep
// the title in the page's title field, not twice in its body).
func StripTitle(src, title string) string {
	trimmed := strings.TrimLeft(src, " \t\r\n")
	line, rest, _ := strings.Cut(trimmed, "\n")
	if strings.HasPrefix(line, "# ") && strings.TrimSpace(strings.TrimPrefix(line, "# ")) == title {
		return strings.TrimLeft(rest, "\r\n")
	}
	return src
}

// Section is a heading-delimited part of a page: the text under one heading
// up to the next heading (of any level). The part before the first heading
// has an empty ID and Title.
type Section struct {
	ID    string // the heading's anchor (slug of its text)
	Title string
	Body  string // plain text
}

// Sections cuts src at its headings.
func Sections(src string) []Section { return Analyze(src).Sections }

func sections(root ast.Node, b []byte) []Section {
	cur := Section{}
	var body bytes.Buffer
	var out []Section
	flush := func() {
		cur.Body = strings.TrimSpace(blankLines.ReplaceAllString(body.String(), "\n"))
		if cur.Body != "" || cur.Title != "" {
			out = append(out, cur)
		}
		body.Reset()
	}
	seen := map[string]int{}
	for c := root.FirstChild(); c != nil; c = c.NextSibling() {
		if h, ok := c.(*ast.Heading); ok {
			flush()
			title := plain(h, b)
			cur = Section{ID: Anchor(title, seen), Title: title}
			continue
		}
		if body.Len() > 0 {
			body.WriteByte('\n')
		}
		if lines := c.Lines(); c.ChildCount() == 0 && lines != nil {
			for i := 0; i < lines.Len(); i++ {
				seg := lines.At(i)
				body.Write(seg.Value(b))
			}
			continue
		}
		writePlain(&body, c, b)
	}
	flush()
	return out
}

var blankLines = regexp.MustCompile(`\n\s*\n`)

var nonSlug = regexp.MustCompile(`[^a-z0-9]+`)

// Slugify makes a URL slug of s: lower case ASCII letters, digits and dashes.
func Slugify(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		switch {
		case r < unicode.MaxASCII:
			b.WriteRune(r)
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(fold(r))
		default:
			b.WriteByte(' ')
		}
	}
	return strings.Trim(nonSlug.ReplaceAllString(b.String(), "-"), "-")
}

// fold maps common accented letters to ASCII; others become a separator.
func fold(r rune) rune {
	const from, to = "àáâãäåçèéêëìíîïñòóôõöùúûüýÿ", "aaaaaaceeeeiiiinooooouuuuyy"
	if i := strings.IndexRune(from, r); i >= 0 {
		return []rune(to)[len([]rune(from[:i]))]
	}
	return ' '
}

// Anchor is the heading anchor of title, made unique with seen.
func Anchor(title string, seen map[string]int) string {
	a := Slugify(title)
	if a == "" {
		a = "section"
	}
	n := seen[a]
	seen[a] = n + 1
	if n > 0 {
		return a + "-" + itoa(n)
	}
	return a
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var d []byte
	for ; n > 0; n /= 10 {
		d = append([]byte{byte('0' + n%10)}, d...)
	}
	return string(d)
}

// isTaskList reports whether a list has a task checkbox in any item.
func isTaskList(l *ast.List) bool {
	for it := l.FirstChild(); it != nil; it = it.NextSibling() {
		if checkbox(it) != nil {
			return true
		}
	}
	return false
}

func checkbox(item ast.Node) *east.TaskCheckBox {
	first := item.FirstChild()
	if first == nil {
		return nil
	}
	if cb, ok := first.FirstChild().(*east.TaskCheckBox); ok {
		return cb
	}
	return nil
}
