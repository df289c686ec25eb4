// Package contentkit turns an integration's ContentKit output (the element
// tree of @gitbook/api 0.130.0's ContentKit schemas, as a runtime answers a
// ui_render) into what a reader reads: safe HTML for the reader site, and
// Markdown for a page's .md, llms-full.txt and the PDF. One walk writes
// both. It knows nothing of integrations, storage or HTTP; the caller
// supplies how Markdown elements become HTML and which frames a page may
// show.
//
// Elements rendered: block, box, vstack, hstack, text (bold, italic, code,
// strikethrough), link, markdown, codeblock, image, divider, button and
// card (an action is followed only when it opens an http(s) URL), hint,
// input and textinput (shown disabled), webframe (a sandboxed iframe when
// Options.Frame allows its URL, else a link). Every other element
// (select, switch, checkbox, radio, step, modal, ...) is skipped.
package contentkit

import (
	"errors"
	"html"
	"html/template"
	"math"
	"net/url"
	"strconv"
	"strings"
)

// Default bounds of one output tree.
const (
	DefaultMaxDepth = 32
	DefaultMaxNodes = 2000
	// maxURL bounds a URL written into an attribute.
	maxURL = 2048
)

// ErrTooLarge is returned for a tree deeper or larger than the bounds.
var ErrTooLarge = errors.New("contentkit: output exceeds the depth or node bound")

// ErrNotBlock is returned when the root is not a block element.
var ErrNotBlock = errors.New("contentkit: the root element is not a block")

// Options are what the caller decides.
type Options struct {
	// Markdown is the sanitized HTML of a markdown element's source (the
	// caller's Markdown path); nil writes the source as escaped text.
	Markdown func(src string) template.HTML
	// Frame tells whether a webframe of this URL may be shown in an
	// iframe (the page's Content-Security-Policy allows it); nil: never.
	Frame func(u *url.URL) bool
	// MaxDepth and MaxNodes bound the tree (0: the defaults).
	MaxDepth, MaxNodes int
}

// Output is one tree rendered.
type Output struct {
	HTML     template.HTML
	Markdown string
}

// Render renders root, a ContentKit block element (the "element" of a
// render output), checking the bounds before it descends.
func Render(root map[string]any, o Options) (Output, error) {
	if root == nil || root["type"] != "block" {
		return Output{}, ErrNotBlock
	}
	if o.MaxDepth <= 0 {
		o.MaxDepth = DefaultMaxDepth
	}
	if o.MaxNodes <= 0 {
		o.MaxNodes = DefaultMaxNodes
	}
	w := &walk{o: o}
	w.h.WriteString(`<div class="ck">`)
	w.blocks(list(root["children"]), 1)
	w.h.WriteString("</div>")
	if w.err != nil {
		return Output{}, w.err
	}
	return Output{HTML: template.HTML(w.h.String()), Markdown: strings.TrimSpace(w.m.String())}, nil
}

// walk writes the HTML (h) and the Markdown (m) of one tree.
type walk struct {
	o     Options
	h, m  strings.Builder
	nodes int
	err   error
}

// enter counts a node at depth d; false once a bound is passed.
func (w *walk) enter(d int) bool {
	if w.err != nil {
		return false
	}
	w.nodes++
	if d > w.o.MaxDepth || w.nodes > w.o.MaxNodes {
		w.err = ErrTooLarge
		return false
	}
	return true
}

func (w *walk) hs(parts ...string) {
	for _, p := range parts {
		w.h.WriteString(p)
	}
}

// para ends the Markdown written so far with a blank line (a new block).
func (w *walk) para() {
	s := w.m.String()
	if s == "" || strings.HasSuffix(s, "\n\n") {
		return
	}
	if strings.HasSuffix(s, "\n") {
		w.m.WriteByte('\n')
		return
	}
	w.m.WriteString("\n\n")
}

func (w *walk) blocks(children []any, d int) {
	for _, c := range children {
		if w.err != nil {
			return
		}
		if e, ok := c.(map[string]any); ok {
			w.block(e, d)
		}
	}
}

// block writes a descendant element at block level.
func (w *walk) block(e map[string]any, d int) {
	if !w.enter(d) {
		return
	}
	t, _ := e["type"].(string)
	switch t {
	case "box", "vstack", "hstack":
		class := "ck-" + t
		if a, _ := e["align"].(string); a == "center" || a == "end" {
			class += " ck-align-" + a
		}
		w.hs(`<div class="`, class, `">`)
		w.blocks(list(e["children"]), d+1)
		w.hs("</div>")
	case "text", "link":
		w.para()
		w.hs(`<p class="ck-text">`)
		w.inline(e, d)
		w.hs("</p>")
	case "markdown":
		src, ok := e["content"].(string)
		if !ok {
			return // a binding to state: nothing to show a reader
		}
		w.para()
		w.m.WriteString(strings.TrimSpace(src))
		if w.o.Markdown != nil {
			w.hs(`<div class="ck-markdown">`, string(w.o.Markdown(src)), "</div>")
		} else {
			w.hs(`<p class="ck-markdown">`, esc(src), "</p>")
		}
	case "codeblock":
		w.code(e, d)
	case "image":
		w.para()
		w.image(e)
	case "divider":
		w.para()
		w.m.WriteString("---")
		w.hs(`<hr class="ck-divider">`)
	case "button":
		w.para()
		w.button(e)
	case "card":
		w.card(e, d)
	case "hint":
		w.para()
		w.m.WriteString("> ")
		w.hs(`<p class="ck-hint">`)
		for _, c := range list(e["children"]) {
			if ce, ok := c.(map[string]any); ok {
				w.inline(ce, d+1)
			}
		}
		w.hs("</p>")
	case "input":
		w.input(e, d)
	case "textinput":
		w.para()
		w.textInput(e, "")
	case "webframe":
		w.para()
		w.webframe(e)
	}
}

// inline writes an inline element: text, link or image.
func (w *walk) inline(e map[string]any, d int) {
	if !w.enter(d) {
		return
	}
	switch e["type"] {
	case "text":
		open, close, mark := "", "", ""
		switch e["style"] {
		case "bold":
			open, close, mark = "<strong>", "</strong>", "**"
		case "italic":
			open, close, mark = "<em>", "</em>", "_"
		case "code":
			open, close, mark = "<code>", "</code>", "`"
		case "strikethrough":
			open, close, mark = "<s>", "</s>", "~~"
		}
		w.hs(open)
		w.m.WriteString(mark)
		if mark == "`" {
			w.rawText(e["children"], d)
		} else {
			w.texts(e["children"], d)
		}
		w.m.WriteString(mark)
		w.hs(close)
	case "link":
		label := plain(e["children"])
		href := linkURL(e["target"])
		if href == "" {
			w.hs(esc(label))
			w.m.WriteString(escapeMD(label))
			return
		}
		w.hs(`<a href="`, esc(href), `" rel="noopener nofollow">`, esc(label), "</a>")
		w.m.WriteString("[" + escapeMD(label) + "](<" + mdURL(href) + ">)")
	case "image":
		w.image(e)
	}
}

// texts writes a text's children: a string, or strings, texts and links.
func (w *walk) texts(v any, d int) {
	switch c := v.(type) {
	case string:
		w.hs(esc(c))
		w.m.WriteString(escapeMD(c))
	case []any:
		for _, x := range c {
			switch x := x.(type) {
			case string:
				w.hs(esc(x))
				w.m.WriteString(escapeMD(x))
			case map[string]any:
				if x["type"] == "text" || x["type"] == "link" {
					w.inline(x, d+1)
				}
			}
		}
	}
}

// rawText writes a code span's text (no Markdown escaping inside).
func (w *walk) rawText(v any, d int) {
	if !w.enter(d + 1) {
		return
	}
	s := strings.ReplaceAll(plain(v), "`", "'")
	w.hs(esc(s))
	w.m.WriteString(s)
}

func (w *walk) code(e map[string]any, d int) {
	src, ok := e["content"].(string)
	if !ok {
		return
	}
	w.blocks(list(e["header"]), d+1)
	syntax, _ := e["syntax"].(string)
	if !isWord(syntax) {
		syntax = ""
	}
	w.para()
	fence := "```"
	for strings.Contains(src, fence) {
		fence += "`"
	}
	w.m.WriteString(fence + syntax + "\n" + strings.TrimRight(src, "\n") + "\n" + fence)
	class := "ck-code"
	if syntax != "" {
		class += " language-" + syntax
	}
	w.hs(`<pre class="`, class, `"><code>`, esc(src), "</code></pre>")
	w.blocks(list(e["footer"]), d+1)
}

func (w *walk) image(e map[string]any) {
	src := webURL(str(obj(e["source"]), "url"))
	if src == "" {
		return
	}
	style := ""
	if r, ok := e["aspectRatio"].(float64); ok && r > 0 && r < 100 && !math.IsInf(r, 0) {
		style = ` style="aspect-ratio:` + strconv.FormatFloat(r, 'f', 4, 64) + `"`
	}
	w.hs(`<img class="ck-image" src="`, esc(src), `" alt=""`, style, ` loading="lazy" referrerpolicy="no-referrer">`)
	w.m.WriteString("![](<" + mdURL(src) + ">)")
}

// actionURL is the URL an action opens, when it is @ui.url.open with an
// http(s) URL; other actions need the integration's runtime and a reader
// cannot run them.
func actionURL(v any) string {
	a := obj(v)
	if a["action"] != "@ui.url.open" {
		return ""
	}
	return webURL(str(a, "url"))
}

func (w *walk) button(e map[string]any) {
	label := str(e, "label")
	if label == "" {
		label = str(e, "tooltip")
	}
	class := "ck-button"
	if s, _ := e["style"].(string); s == "primary" || s == "secondary" || s == "danger" {
		class += " ck-" + s
	}
	if href := actionURL(e["onPress"]); href != "" && e["disabled"] != true {
		w.hs(`<a class="`, class, `" href="`, esc(href), `" rel="noopener nofollow">`, esc(label), "</a>")
		w.m.WriteString("[" + escapeMD(label) + "](<" + mdURL(href) + ">)")
		return
	}
	if label == "" {
		return
	}
	w.hs(`<button class="`, class, `" type="button" disabled>`, esc(label), "</button>")
	w.m.WriteString(escapeMD(label))
}

func (w *walk) card(e map[string]any, d int) {
	w.para()
	w.hs(`<div class="ck-card">`)
	title := str(e, "title")
	href := actionURL(e["onPress"])
	if title != "" {
		if href != "" {
			w.hs(`<p class="ck-card-title"><a href="`, esc(href), `" rel="noopener nofollow">`, esc(title), "</a></p>")
			w.m.WriteString("**[" + escapeMD(title) + "](<" + mdURL(href) + ">)**")
		} else {
			w.hs(`<p class="ck-card-title">`, esc(title), "</p>")
			w.m.WriteString("**" + escapeMD(title) + "**")
		}
	}
	switch hint := e["hint"].(type) {
	case string:
		if hint != "" {
			w.para()
			w.hs(`<p class="ck-card-hint">`, esc(hint), "</p>")
			w.m.WriteString(escapeMD(hint))
		}
	case []any:
		w.para()
		w.hs(`<p class="ck-card-hint">`)
		for _, c := range hint {
			if ce, ok := c.(map[string]any); ok {
				w.inline(ce, d+1)
			}
		}
		w.hs("</p>")
	}
	w.blocks(list(e["children"]), d+1)
	for _, b := range list(e["buttons"]) {
		if be, ok := b.(map[string]any); ok && be["type"] == "button" && w.enter(d+1) {
			w.para()
			w.button(be)
		}
	}
	w.hs("</div>")
}

func (w *walk) input(e map[string]any, d int) {
	el := obj(e["element"])
	if el["type"] != "textinput" || !w.enter(d+1) {
		return // other controls need the runtime: skipped
	}
	w.para()
	w.hs(`<label class="ck-input">`, esc(str(e, "label")), " ")
	w.textInput(el, str(e, "label"))
	w.hs("</label>")
	if hint, ok := e["hint"].(string); ok && hint != "" {
		w.hs(`<span class="ck-input-hint">`, esc(hint), "</span>")
	}
}

// textInput is shown disabled: a reader cannot send it to the runtime.
func (w *walk) textInput(e map[string]any, label string) {
	value, placeholder := str(e, "initialValue"), str(e, "placeholder")
	w.hs(`<input class="ck-textinput" type="text" disabled value="`, esc(value), `" placeholder="`, esc(placeholder), `">`)
	shown := value
	if shown == "" {
		shown = placeholder
	}
	switch {
	case label != "" && shown != "":
		w.m.WriteString(escapeMD(label) + ": " + escapeMD(shown))
	case label != "":
		w.m.WriteString(escapeMD(label))
	default:
		w.m.WriteString(escapeMD(shown))
	}
}

// webframe is a sandboxed iframe (scripts, no same origin, no top
// navigation) where the page's policy allows its URL, else a link to it.
func (w *walk) webframe(e map[string]any) {
	raw := str(obj(e["source"]), "url")
	u, err := url.Parse(raw)
	if raw == "" || len(raw) > maxURL || err != nil || strings.ContainsAny(raw, "\\\t\r\n") || !(u.Scheme == "https" || u.Scheme == "http" || u.Scheme == "" && strings.HasPrefix(u.Path, "/") && u.Host == "") {
		return
	}
	style := ""
	if r, ok := e["aspectRatio"].(float64); ok && r > 0 && r < 100 {
		style = ` style="aspect-ratio:` + strconv.FormatFloat(r, 'f', 4, 64) + `"`
	}
	src := u.String()
	if w.o.Frame != nil && w.o.Frame(u) {
		w.hs(`<iframe class="ck-webframe" sandbox="allow-scripts allow-popups" src="`, esc(src), `"`, style,
			` loading="lazy" referrerpolicy="no-referrer" title="Content from the integration"></iframe>`)
	} else {
		w.hs(`<p class="ck-webframe-link"><a href="`, esc(src), `" rel="noopener nofollow">`, esc(src), "</a></p>")
	}
	w.m.WriteString("[" + escapeMD(src) + "](<" + mdURL(src) + ">)")
}

// linkURL is a link target's URL: a string, or {host, pathname, query}
// (bindings to state are left out).
func linkURL(v any) string {
	t := obj(v)
	switch u := t["url"].(type) {
	case string:
		return webURL(u)
	case map[string]any:
		host, path := str(u, "host"), str(u, "pathname")
		if host == "" || strings.ContainsAny(host, "/\\@?#") {
			return ""
		}
		out := url.URL{Scheme: "https", Host: host, Path: path}
		q := url.Values{}
		for k, v := range obj(u["query"]) {
			if s, ok := v.(string); ok {
				q.Set(k, s)
			}
		}
		out.RawQuery = q.Encode()
		return webURL(out.String())
	}
	return ""
}

// webURL is s when it is an absolute http(s) or mailto URL of bounded
// length, else "".
func webURL(s string) string {
	if s == "" || len(s) > maxURL {
		return ""
	}
	u, err := url.Parse(strings.TrimSpace(s))
	if err != nil {
		return ""
	}
	switch strings.ToLower(u.Scheme) {
	case "http", "https":
		if u.Host == "" {
			return ""
		}
	case "mailto":
	default:
		return ""
	}
	return u.String()
}

// plain is the text of children (a string, or a list of strings and
// texts), without marks.
func plain(v any) string {
	var b strings.Builder
	var rec func(v any, d int)
	rec = func(v any, d int) {
		if d > DefaultMaxDepth || b.Len() > 1<<16 {
			return
		}
		switch c := v.(type) {
		case string:
			b.WriteString(c)
		case []any:
			for _, x := range c {
				rec(x, d+1)
			}
		case map[string]any:
			rec(c["children"], d+1)
		}
	}
	rec(v, 0)
	return b.String()
}

func list(v any) []any { l, _ := v.([]any); return l }

func obj(v any) map[string]any { m, _ := v.(map[string]any); return m }

func str(m map[string]any, k string) string { s, _ := m[k].(string); return s }

func esc(s string) string { return html.EscapeString(s) }

// isWord: a code block's syntax name (letters, digits, + - # .).
func isWord(s string) bool {
	if len(s) > 32 {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("+-#._", r)) {
			return false
		}
	}
	return true
}

// escapeMD escapes what Markdown would read as syntax in running text.
func escapeMD(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune("\\`*_[]<>#|~!", r) {
			b.WriteByte('\\')
		}
		if r == '\n' || r == '\r' {
			r = ' '
		}
		b.WriteRune(r)
	}
	return b.String()
}

// mdURL is a URL inside <…> in a Markdown link destination.
func mdURL(u string) string {
	return strings.NewReplacer("<", "%3C", ">", "%3E", "\n", "", "\r", "", " ", "%20").Replace(u)
}
