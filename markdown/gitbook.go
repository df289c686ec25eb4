package markdown

import (
	"regexp"
	"strings"

	"golang.org/x/net/html"
)

// GitBook writes blocks the CommonMark syntax has no words for as Liquid-
// style tags ({% hint style="info" %} … {% endhint %}) and HTML
// (<details>, <figure>, <picture>, <img>), plus $$ math. Page bodies keep
// that syntax as GitBook writes it (so a Git export gives the files back);
// this parser finds those blocks so that documents and renderers see them
// as blocks, and so that imports and exports can rewrite the references
// they carry. Everything else is left to goldmark, a run at a time.

// GitBookBlock is one block of a body: Kind "" is a run of plain Markdown
// (Text, lines included whole); a tag name (hint, tabs, tab, code, embed,
// file, content-ref, include, openapi, swagger, openapi-operation,
// stepper, step, columns, column, updates, update) is that tag with its
// attributes and its content (Children, or the caption Text of the tags
// whose end is optional); "details" an expandable (Text its summary);
// "math" a $$ formula (Text); "image" an <img>, <figure> or <picture>
// (attributes src, alt, width, srcDark and caption).
type GitBookBlock struct {
	Kind     string
	Attrs    []GitBookAttr
	Text     string
	Children []*GitBookBlock
}

// GitBookAttr is one attribute of a tag; a positional one (include's
// path) has no Key.
type GitBookAttr struct{ Key, Value string }

// Attr is the value of the attribute key ("" when absent).
func (b *GitBookBlock) Attr(key string) string {
	for _, a := range b.Attrs {
		if a.Key == key {
			return a.Value
		}
	}
	return ""
}

// MaxGitBookDepth bounds GitBook blocks nested in one another; a tag
// deeper than that is read as text.
const MaxGitBookDepth = 16

// maxHTMLBlockLines bounds the lines of one <figure> or <picture>
// gathered before it is read as an image; a longer one is text.
const maxHTMLBlockLines = 64

// containerTags end with {% end<name> %}; optionalEnd tags end there when
// their end follows before any other tag (with a caption in between),
// else they stand alone; include always stands alone.
var (
	containerTags = map[string]bool{"hint": true, "tabs": true, "tab": true, "code": true, "content-ref": true,
		"stepper": true, "step": true, "columns": true, "column": true, "updates": true, "update": true}
	optionalEnd = map[string]bool{"embed": true, "file": true, "openapi": true, "swagger": true, "openapi-operation": true}
)

var (
	summary = regexp.MustCompile(`(?is)^<summary>(.*?)</summary>$`)
)

// parseTag reads a tag line ({% name attrs %}), trimmed of indentation:
// a hand-written scan (a regular expression per line was most of the
// pass's time).
func parseTag(line string) (name string, attrs []GitBookAttr, ok bool) {
	inner, ok := strings.CutPrefix(line, "{%")
	if !ok {
		return "", nil, false
	}
	if inner, ok = strings.CutSuffix(inner, "%}"); !ok || strings.Contains(inner, "%}") {
		return "", nil, false
	}
	inner = strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(inner, "-"), "-"))
	n := 0
	for n < len(inner) && (inner[n] >= 'a' && inner[n] <= 'z' || n > 0 && inner[n] == '-') {
		n++
	}
	if n == 0 || n < len(inner) && inner[n] != ' ' && inner[n] != '\t' {
		return "", nil, false
	}
	name, rest := inner[:n], inner[n:]
	for len(attrs) < 32 {
		rest = strings.TrimLeft(rest, " \t")
		if rest == "" {
			break
		}
		key := ""
		if c := rest[0]; c != '"' && c != '\'' {
			k := 0
			for k < len(rest) && rest[k] != '=' && rest[k] != ' ' && rest[k] != '\t' {
				k++
			}
			key, rest = rest[:k], strings.TrimLeft(rest[k:], " \t")
			if !strings.HasPrefix(rest, "=") {
				continue // a bare word: no value
			}
			rest = strings.TrimLeft(rest[1:], " \t")
		}
		var val string
		if rest != "" && (rest[0] == '"' || rest[0] == '\'') {
			q := rest[0]
			end := strings.IndexByte(rest[1:], q)
			if end < 0 {
				val, rest = rest[1:], ""
			} else {
				val, rest = rest[1:1+end], rest[2+end:]
			}
		} else {
			v := strings.IndexAny(rest, " \t")
			if v < 0 {
				v = len(rest)
			}
			val, rest = rest[:v], rest[v:]
		}
		attrs = append(attrs, GitBookAttr{key, val})
	}
	return name, attrs, true
}

// ParseGitBook splits src into GitBook blocks and runs of Markdown. It
// reads src once, line by line, with an explicit stack (no recursion) no
// deeper than MaxGitBookDepth; fenced code is never read for blocks.
func ParseGitBook(src string) []*GitBookBlock {
	lines := splitLines(src)
	root := &GitBookBlock{}
	stack := []*GitBookBlock{root}
	var run strings.Builder
	var fence string // the open fence's run of ` or ~, else ""
	flush := func() {
		if run.Len() > 0 {
			top := stack[len(stack)-1]
			top.Children = append(top.Children, &GitBookBlock{Text: run.String()})
			run.Reset()
		}
	}
	add := func(b *GitBookBlock) {
		flush()
		top := stack[len(stack)-1]
		top.Children = append(top.Children, b)
	}
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		t := strings.TrimSpace(line)
		if fence != "" {
			run.WriteString(line)
			if strings.HasPrefix(t, fence[:1]) && len(t)-len(strings.TrimLeft(t, fence[:1])) >= len(fence) && strings.TrimLeft(t, fence[:1]) == "" {
				fence = ""
			}
			continue
		}
		if f := fenceRun(strings.TrimLeft(line, " ")); f != "" && len(line)-len(strings.TrimLeft(line, " ")) < 4 {
			fence = f
			run.WriteString(line)
			continue
		}
		depth := len(stack) - 1
		if name, attrs, ok := parseTag(t); ok {
			switch {
			case strings.HasPrefix(name, "end") && closes(stack, name[3:]):
				flush()
				for stack[len(stack)-1].Kind != name[3:] {
					stack = stack[:len(stack)-1]
				}
				stack = stack[:len(stack)-1]
				continue
			case depth >= MaxGitBookDepth:
			case containerTags[name]:
				b := &GitBookBlock{Kind: name, Attrs: attrs}
				add(b)
				stack = append(stack, b)
				continue
			case name == "include":
				add(&GitBookBlock{Kind: name, Attrs: attrs})
				continue
			case optionalEnd[name]:
				b := &GitBookBlock{Kind: name, Attrs: attrs}
				add(b)
				// Its end, when the next tag line is that end: the lines
				// between are its caption.
				j := i + 1
				for j < len(lines) && !isTagLine(lines[j]) {
					j++
				}
				if j < len(lines) {
					if end, _, _ := parseTag(strings.TrimSpace(lines[j])); end == "end"+name {
						b.Text = strings.Join(lines[i+1:j], "")
						i = j
					}
				}
				continue
			}
		}
		if depth < MaxGitBookDepth {
			switch {
			case strings.HasPrefix(t, "<details") && (t == "<details>" || strings.HasPrefix(t, "<details>") || strings.HasPrefix(t, "<details ")):
				b := &GitBookBlock{Kind: "details"}
				if _, rest, ok := strings.Cut(t, ">"); ok {
					if m := summary.FindStringSubmatch(strings.TrimSpace(rest)); m != nil {
						b.Text = m[1]
					}
				}
				add(b)
				stack = append(stack, b)
				continue
			case strings.HasPrefix(t, "<summary") && summary.MatchString(t) && stack[len(stack)-1].Kind == "details" && stack[len(stack)-1].Text == "" && onlyBlank(stack[len(stack)-1], run.String()):
				run.Reset()
				top := stack[len(stack)-1]
				top.Children = nil
				top.Text = summary.FindStringSubmatch(t)[1]
				continue
			case t == "$$":
				j := i + 1
				for j < len(lines) && strings.TrimSpace(lines[j]) != "$$" {
					j++
				}
				if j < len(lines) {
					add(&GitBookBlock{Kind: "math", Text: strings.TrimSuffix(strings.Join(lines[i+1:j], ""), "\n")})
					i = j
					continue
				}
			case len(t) > 4 && strings.HasPrefix(t, "$$") && strings.HasSuffix(t, "$$") && !strings.Contains(t[2:len(t)-2], "$$"):
				add(&GitBookBlock{Kind: "math", Text: t[2 : len(t)-2]})
				continue
			case strings.HasPrefix(t, "<figure") || strings.HasPrefix(t, "<picture") || strings.HasPrefix(t, "<img ") && strings.HasSuffix(t, ">"):
				end := "</figure>"
				if strings.HasPrefix(t, "<picture") {
					end = "</picture>"
				}
				j := i
				if !strings.HasPrefix(t, "<img") {
					for j < len(lines) && j-i < maxHTMLBlockLines && !strings.Contains(lines[j], end) {
						j++
					}
				}
				if j < len(lines) && j-i < maxHTMLBlockLines {
					if img := imageOf(strings.Join(lines[i:j+1], "")); img != nil {
						add(img)
						i = j
						continue
					}
				}
			case t == "</details>" && closes(stack, "details"):
				flush()
				for stack[len(stack)-1].Kind != "details" {
					stack = stack[:len(stack)-1]
				}
				stack = stack[:len(stack)-1]
				continue
			}
		}
		run.WriteString(line)
	}
	flush()
	return root.Children
}

// closes tells whether a block of kind is open on the stack.
func closes(stack []*GitBookBlock, kind string) bool {
	for i := len(stack) - 1; i > 0; i-- {
		if stack[i].Kind == kind {
			return true
		}
	}
	return false
}

func onlyBlank(b *GitBookBlock, run string) bool {
	if strings.TrimSpace(run) != "" {
		return false
	}
	for _, c := range b.Children {
		if c.Kind != "" || strings.TrimSpace(c.Text) != "" {
			return false
		}
	}
	return true
}

func isTagLine(line string) bool {
	_, _, ok := parseTag(strings.TrimSpace(line))
	return ok
}

// splitLines is src's lines, each with its line ending.
func splitLines(src string) []string {
	var out []string
	for line := range strings.Lines(src) {
		out = append(out, line)
	}
	return out
}

// imageOf reads an <img>, <figure> or <picture> into an image block, or
// nil when it holds no <img src>: the first <img>, a <source> for dark
// mode, the <figcaption>'s text.
func imageOf(h string) *GitBookBlock {
	z := html.NewTokenizer(strings.NewReader(h))
	var img map[string]string
	var dark, caption strings.Builder
	inCaption := false
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			break
		}
		name, hasAttr := z.TagName()
		switch {
		case tt == html.TextToken && inCaption:
			caption.Write(z.Text())
		case (tt == html.StartTagToken || tt == html.SelfClosingTagToken) && string(name) == "img" && img == nil:
			img = tagAttrs(z, hasAttr)
		case (tt == html.StartTagToken || tt == html.SelfClosingTagToken) && string(name) == "source" && dark.Len() == 0:
			if a := tagAttrs(z, hasAttr); strings.Contains(a["media"], "dark") {
				dark.WriteString(a["srcset"])
			}
		case tt == html.StartTagToken && string(name) == "figcaption":
			inCaption = true
		case tt == html.EndTagToken && string(name) == "figcaption":
			inCaption = false
		}
	}
	if img["src"] == "" {
		return nil
	}
	b := &GitBookBlock{Kind: "image", Attrs: []GitBookAttr{{"src", img["src"]}, {"alt", img["alt"]}}}
	if w := img["width"]; w != "" {
		b.Attrs = append(b.Attrs, GitBookAttr{"width", w})
	}
	if dark.Len() > 0 {
		b.Attrs = append(b.Attrs, GitBookAttr{"srcDark", dark.String()})
	}
	if c := strings.TrimSpace(caption.String()); c != "" {
		b.Attrs = append(b.Attrs, GitBookAttr{"caption", c})
	}
	return b
}

func tagAttrs(z *html.Tokenizer, more bool) map[string]string {
	out := map[string]string{}
	for more && len(out) < 32 {
		var k, v []byte
		k, v, more = z.TagAttr()
		out[string(k)] = string(v)
	}
	return out
}

// GitBookRef is a reference a GitBook block carries in an attribute: Key
// is how it is written before the value in the source (url=", src=",
// srcset=" or the include's opening quote), Dest its value.
type GitBookRef struct{ Key, Dest string }

// GitBookRefs lists the references of src's GitBook blocks to other
// content (pages, files, reusable content), as written; links of the
// Markdown runs are Links'. Embeds (outside URLs) are not references.
func GitBookRefs(src string) []GitBookRef {
	var out []GitBookRef
	var walk func([]*GitBookBlock)
	walk = func(bs []*GitBookBlock) { // as deep as the parser's stack: MaxGitBookDepth
		for _, b := range bs {
			switch b.Kind {
			case "content-ref":
				out = append(out, GitBookRef{`url="`, b.Attr("url")})
			case "file":
				out = append(out, GitBookRef{`src="`, b.Attr("src")})
			case "include":
				out = append(out, GitBookRef{`include "`, b.Attr("")})
			case "image":
				out = append(out, GitBookRef{`src="`, b.Attr("src")})
				if d := b.Attr("srcDark"); d != "" {
					out = append(out, GitBookRef{`srcset="`, d})
				}
			}
			walk(b.Children)
		}
	}
	walk(ParseGitBook(src))
	return out
}
