package markdown

import (
	"strings"
	"unicode"

	"github.com/yuin/goldmark/ast"
)

// TextRun is a stretch of prose in a Markdown source: what a translation
// replaces. Everything outside the runs (markup, code, URLs, link
// destinations, HTML) stays byte for byte.
type TextRun struct {
	Start, Stop int    // byte range in the source
	Text        string // the prose, soft line breaks folded into spaces
}

// TextRuns lists the prose of src in document order: the text of
// paragraphs, headings, list items, table cells, emphasis, link labels and
// image descriptions. Code spans, code blocks, HTML and autolinks are not
// prose (a body over the bounds has none). Adjacent text nodes separated only by a soft line break form one
// run (a sentence is translated whole); runs without a letter are left out.
func TextRuns(src string) []TextRun {
	if Check(src) != nil {
		return nil // over the bounds: not parsed, nothing to translate
	}
	b := []byte(src)
	var nodes []*ast.Text
	ast.Walk(parse(b), func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch v := n.(type) {
		case *ast.CodeSpan, *ast.RawHTML, *ast.HTMLBlock, *ast.CodeBlock, *ast.FencedCodeBlock, *ast.AutoLink:
			return ast.WalkSkipChildren, nil
		case *ast.Text:
			nodes = append(nodes, v)
		}
		return ast.WalkContinue, nil
	})
	var runs []TextRun
	for i := 0; i < len(nodes); {
		start, stop := nodes[i].Segment.Start, nodes[i].Segment.Stop
		j := i + 1
		for ; j < len(nodes); j++ {
			prev, next := nodes[j-1], nodes[j]
			if ast.Node(prev) != next.PreviousSibling() || prev.HardLineBreak() || next.Segment.Start < stop ||
				strings.TrimSpace(src[stop:next.Segment.Start]) != "" {
				break
			}
			stop = next.Segment.Stop
		}
		i = j
		raw := src[start:stop]
		lead := len(raw) - len(strings.TrimLeftFunc(raw, unicode.IsSpace))
		trail := len(raw) - len(strings.TrimRightFunc(raw, unicode.IsSpace))
		if lead == len(raw) || !strings.ContainsFunc(raw, unicode.IsLetter) {
			continue
		}
		start, stop = start+lead, stop-trail
		runs = append(runs, TextRun{Start: start, Stop: stop, Text: strings.Join(strings.Fields(src[start:stop]), " ")})
	}
	return runs
}

// markupChars are the characters that could turn translated prose into
// markup (emphasis, code, links, HTML, table cells).
const markupChars = "\\`*_[]<>|"

// ReplaceRuns returns src with runs[i] replaced by out[i]. A replacement is
// kept on one line, and markup characters it brings that its run did not
// have are escaped, so a translation cannot change the document's
// structure.
func ReplaceRuns(src string, runs []TextRun, out []string) string {
	var b strings.Builder
	b.Grow(len(src) + len(src)/4)
	pos := 0
	for i, r := range runs {
		b.WriteString(src[pos:r.Start])
		b.WriteString(SafeText(out[i], src[r.Start:r.Stop]))
		pos = r.Stop
	}
	b.WriteString(src[pos:])
	return b.String()
}

// OneLine is a translation of a plain-text field (a title, a description):
// whitespace folded to single spaces and nothing escaped, since the field is
// text, not Markdown.
func OneLine(translated string) string { return strings.Join(strings.Fields(translated), " ") }

// SafeText makes a translation of original fit where original was in a
// Markdown body: one line, with markup characters original did not contain
// escaped.
func SafeText(translated, original string) string {
	translated = OneLine(translated)
	if !strings.ContainsAny(translated, markupChars) {
		return translated
	}
	var b strings.Builder
	for _, c := range translated {
		if strings.ContainsRune(markupChars, c) && !strings.ContainsRune(original, c) {
			b.WriteByte('\\')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// Words counts the words of s (runs of non-space characters).
func Words(s string) int { return len(strings.Fields(s)) }
