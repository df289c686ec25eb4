package docrender

import (
	"strconv"
	"strings"

	"docsapi/docwalk"
	"docsapi/markdown"
)

// Markdown writes doc as GitBook-flavoured Markdown (a page's .md, its
// part of llms-full.txt): CommonMark and GFM where they have a form, and
// GitBook's {% … %} blocks (hint, tabs, stepper, columns, embed, file,
// content-ref, openapi) where they do not. Links and files go through res
// as in Render; reusable content is written from its child blocks,
// integration blocks from their integration's output (else their child
// blocks), as the HTML shows them.
func Markdown(doc *markdown.Document, res Resolver) string {
	m := &mdWriter{res: res}
	m.wk = &docwalk.Walker{V: m}
	if doc != nil {
		m.blocks(doc.Nodes)
	}
	return strings.TrimSpace(m.b.String()) + "\n"
}

type mdWriter struct {
	wk  *docwalk.Walker
	b   strings.Builder
	res Resolver
	// order numbers the items of the ordered list being written (0: bullets).
	order, tasks bool
	item         int
}

// blocks writes nodes as blocks separated by blank lines.
func (m *mdWriter) blocks(nodes []*markdown.Node) {
	for _, n := range nodes {
		if n == nil {
			continue
		}
		if m.b.Len() > 0 && !strings.HasSuffix(m.b.String(), "\n\n") {
			if !strings.HasSuffix(m.b.String(), "\n") {
				m.b.WriteByte('\n')
			}
			m.b.WriteByte('\n')
		}
		m.wk.Block(n)
	}
}

// sub is the Markdown of nodes written apart (to be indented or quoted).
func (m *mdWriter) sub(nodes []*markdown.Node) string {
	saved := m.b
	m.b = strings.Builder{}
	m.blocks(nodes)
	out := strings.TrimRight(m.b.String(), "\n")
	m.b = saved
	return out
}

// inline is the Markdown of n's inline children.
func (m *mdWriter) inline(n *markdown.Node) string {
	saved := m.b
	m.b = strings.Builder{}
	m.wk.Inlines(n)
	out := m.b.String()
	m.b = saved
	return out
}

// prefixed is text with prefix before each line (first before the first).
func prefixed(text, first, rest string) string {
	var b strings.Builder
	for i, line := range strings.Split(text, "\n") {
		p := rest
		if i == 0 {
			p = first
		}
		if line == "" {
			b.WriteString(strings.TrimRight(p, " "))
		} else {
			b.WriteString(p + line)
		}
		b.WriteByte('\n')
	}
	return strings.TrimRight(b.String(), "\n")
}

func (m *mdWriter) w(parts ...string) {
	for _, p := range parts {
		m.b.WriteString(p)
	}
}

// tag writes a GitBook block: {% name attrs %} contents {% endname %}.
func (m *mdWriter) tag(name, attrs string, body string) {
	if attrs != "" {
		attrs = " " + attrs
	}
	m.w("{% ", name, attrs, " %}\n")
	if body != "" {
		m.w(body, "\n")
	}
	m.w("{% end", name, " %}")
}

func attr(k, v string) string { return k + "=" + strconv.Quote(v) }

func (m *mdWriter) Heading(_ *docwalk.Walker, n *markdown.Node, level int) {
	m.w(strings.Repeat("#", level), " ", strings.ReplaceAll(m.inline(n), "\n", " "))
}

func (m *mdWriter) Paragraph(_ *docwalk.Walker, n *markdown.Node) { m.w(m.inline(n)) }

func (m *mdWriter) List(_ *docwalk.Walker, n *markdown.Node) {
	order, tasks, item := m.order, m.tasks, m.item
	m.order, m.tasks, m.item = n.Type == "list-ordered", n.Type == "list-tasks", 1
	if start, ok := docwalk.Int(n.Data, "start"); ok && m.order {
		m.item = start
	}
	for i, c := range n.Nodes {
		if i > 0 {
			m.w("\n")
		}
		m.wk.Block(c)
	}
	m.order, m.tasks, m.item = order, tasks, item
}

func (m *mdWriter) ListItem(_ *docwalk.Walker, n *markdown.Node) {
	marker := "- "
	if m.order {
		marker = strconv.Itoa(m.item) + ". "
		m.item++
	}
	if checked, ok := n.Data["checked"].(bool); ok || m.tasks {
		if checked {
			marker += "[x] "
		} else {
			marker += "[ ] "
		}
	}
	order, tasks := m.order, m.tasks
	m.order, m.tasks = false, false
	body := m.sub(n.Nodes)
	m.order, m.tasks = order, tasks
	m.w(prefixed(body, marker, strings.Repeat(" ", len(marker))))
}

func (m *mdWriter) Divider(*docwalk.Walker, *markdown.Node) { m.w("---") }

func (m *mdWriter) Quote(_ *docwalk.Walker, n *markdown.Node) {
	m.w(prefixed(m.sub(n.Nodes), "> ", "> "))
}

func (m *mdWriter) Hint(_ *docwalk.Walker, n *markdown.Node) {
	style := docwalk.Str(n.Data, "style")
	if style == "" {
		style = "info"
	}
	m.tag("hint", attr("style", style), m.sub(n.Nodes))
}

func (m *mdWriter) If(_ *docwalk.Walker, n *markdown.Node) { m.blocks(n.Nodes) }

func (m *mdWriter) Images(_ *docwalk.Walker, n *markdown.Node) {
	for i, c := range n.Nodes {
		if i > 0 {
			m.w("\n")
		}
		m.wk.Block(c)
	}
}

func (m *mdWriter) Image(_ *docwalk.Walker, n *markdown.Node) { m.image(n.Data) }

func (m *mdWriter) image(d map[string]any) {
	src, _ := refHref(m.res, docwalk.Ref(d))
	m.w("![", escapeMD(docwalk.Str(d, "alt")), "](", mdURL(src), ")")
}

func (m *mdWriter) File(_ *docwalk.Walker, n *markdown.Node) {
	href, label := refHref(m.res, docwalk.Ref(n.Data))
	m.tag("file", attr("src", href), escapeMD(label))
}

func (m *mdWriter) Drawing(_ *docwalk.Walker, n *markdown.Node) { m.image(n.Data) }

func (m *mdWriter) Embed(_ *docwalk.Walker, n *markdown.Node) {
	m.w("{% embed ", attr("url", docwalk.Str(n.Data, "url")), " %}")
}

func (m *mdWriter) Code(_ *docwalk.Walker, n *markdown.Node) {
	code := docwalk.CodeText(n)
	fence := "```"
	for strings.Contains(code, fence) {
		fence += "`"
	}
	if title := docwalk.Str(n.Data, "title"); title != "" {
		m.w("{% code ", attr("title", title), " %}\n")
		defer m.w("\n{% endcode %}")
	}
	m.w(fence, strings.TrimSpace(docwalk.Str(n.Data, "syntax")), "\n", code, "\n", fence)
}

func (m *mdWriter) CodeLine(_ *docwalk.Walker, n *markdown.Node) { m.w(docwalk.PlainText(n)) }

func (m *mdWriter) Math(_ *docwalk.Walker, n *markdown.Node) {
	m.w("$$\n", docwalk.Str(n.Data, "formula"), "\n$$")
}

func (m *mdWriter) Expandable(_ *docwalk.Walker, n *markdown.Node) {
	title, body := docwalk.ExpandableParts(n)
	m.w("<details>\n\n<summary>", escapeMD(title), "</summary>\n\n", m.sub(body), "\n\n</details>")
}

func (m *mdWriter) Tabs(_ *docwalk.Walker, n *markdown.Node) {
	var b strings.Builder
	for i, c := range n.Nodes {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(m.sub([]*markdown.Node{c}))
	}
	m.tag("tabs", "", b.String())
}

func (m *mdWriter) TabsItem(_ *docwalk.Walker, n *markdown.Node) {
	m.tag("tab", attr("title", docwalk.Str(n.Data, "title")), m.sub(n.Nodes))
}

func (m *mdWriter) Table(_ *docwalk.Walker, n *markdown.Node) {
	t := docwalk.Table(n)
	if len(t.Titles) == 0 {
		return
	}
	cell := func(s string) string {
		return strings.ReplaceAll(strings.ReplaceAll(strings.TrimSpace(s), "\n", "<br>"), "|", `\|`)
	}
	m.w("|")
	for _, title := range t.Titles {
		m.w(" ", cell(escapeMD(title)), " |")
	}
	m.w("\n|")
	for _, a := range t.Align {
		switch a {
		case "center":
			m.w(" :-: |")
		case "right":
			m.w(" --: |")
		default:
			m.w(" --- |")
		}
	}
	for _, row := range t.Rows {
		m.w("\n|")
		for _, c := range row {
			text := c.Value
			if c.Nodes != nil {
				text = m.sub(c.Nodes)
			}
			m.w(" ", cell(text), " |")
		}
	}
}

func (m *mdWriter) OpenAPI(_ *docwalk.Walker, n *markdown.Node) {
	d := n.Data
	ref := docwalk.Ref(d)
	attrs := []string{}
	if spec := docwalk.Str(ref, "spec"); spec != "" {
		attrs = append(attrs, attr("spec", spec))
	} else if u, _ := refHref(m.res, ref); u != "#" {
		attrs = append(attrs, attr("src", u))
	}
	for _, k := range []string{"path", "method", "name"} {
		if v := docwalk.Str(d, k); v != "" {
			attrs = append(attrs, attr(k, v))
		}
	}
	body := m.sub(n.Nodes)
	if op := lookupOperation(m.res, n); op != nil {
		body = strings.TrimSpace(m.sub(op.Nodes) + "\n\n" + body)
	} else if body == "" {
		body = strings.ToUpper(docwalk.Str(d, "method")) + " " + docwalk.Str(d, "path")
	}
	m.tag(n.Type, strings.Join(attrs, " "), body)
}

func (m *mdWriter) ContentRef(_ *docwalk.Walker, n *markdown.Node) {
	href, label := refHref(m.res, docwalk.Ref(n.Data))
	m.tag("content-ref", attr("url", href), "["+escapeMD(label)+"]("+mdURL(href)+")")
}

func (m *mdWriter) Integration(_ *docwalk.Walker, n *markdown.Node) {
	if out, ok := integrationOutput(m.res, n); ok && out.Markdown != "" {
		m.w(out.Markdown)
		return
	}
	if body := m.sub(n.Nodes); body != "" {
		m.w(body)
		return
	}
	m.w("> ", escapeMD(integrationLabel(n)))
}

func (m *mdWriter) ReusableContent(_ *docwalk.Walker, n *markdown.Node) {
	m.blocks(reusableNodes(m.res, n))
}

func (m *mdWriter) Stepper(_ *docwalk.Walker, n *markdown.Node) {
	var b strings.Builder
	for i, c := range n.Nodes {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(m.sub([]*markdown.Node{c}))
	}
	m.tag("stepper", "", b.String())
}

func (m *mdWriter) StepperStep(_ *docwalk.Walker, n *markdown.Node) {
	m.tag("step", "", m.sub(n.Nodes))
}

func (m *mdWriter) Columns(_ *docwalk.Walker, n *markdown.Node) {
	var b strings.Builder
	for i, c := range n.Nodes {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(m.sub([]*markdown.Node{c}))
	}
	m.tag("columns", "", b.String())
}

func (m *mdWriter) Column(_ *docwalk.Walker, n *markdown.Node) {
	m.tag("column", "", m.sub(n.Nodes))
}

func (m *mdWriter) Unknown(_ *docwalk.Walker, n *markdown.Node) { m.blocks(n.Nodes) }

func (m *mdWriter) Leaf(_ *docwalk.Walker, l *markdown.Leaf) {
	text := l.Text
	code := false
	for _, mk := range l.Marks {
		code = code || mk.Type == "code"
	}
	if code {
		fence := "`"
		for strings.Contains(text, fence) {
			fence += "`"
		}
		pad := ""
		if strings.HasPrefix(text, "`") || strings.HasSuffix(text, "`") {
			pad = " "
		}
		text = fence + pad + text + pad + fence
	} else {
		text = escapeMD(text)
		text = strings.ReplaceAll(text, "\n", "\\\n")
	}
	if strings.TrimSpace(text) == "" {
		m.w(text)
		return
	}
	// Marks wrap the text without its surrounding spaces (CommonMark's
	// flanking rules).
	core := strings.TrimSpace(text)
	lead := text[:strings.Index(text, core)]
	trail := text[len(lead)+len(core):]
	for _, mk := range l.Marks {
		switch mk.Type {
		case "bold":
			core = "**" + core + "**"
		case "italic":
			core = "_" + core + "_"
		case "strikethrough":
			core = "~~" + core + "~~"
		}
	}
	m.w(lead, core, trail)
}

func (m *mdWriter) Link(_ *docwalk.Walker, n *markdown.Node) {
	href, _ := refHref(m.res, docwalk.Ref(n.Data))
	m.w("[", m.inline(n), "](", mdURL(href), ")")
}

func (m *mdWriter) InlineImage(_ *docwalk.Walker, n *markdown.Node) { m.image(n.Data) }

func (m *mdWriter) InlineMath(_ *docwalk.Walker, n *markdown.Node) {
	m.w("$$", docwalk.Str(n.Data, "formula"), "$$")
}

func (m *mdWriter) Inline(_ *docwalk.Walker, n *markdown.Node) { m.wk.Inlines(n) }

// escapeMD escapes the characters that would start Markdown syntax.
var mdEscaper = strings.NewReplacer(`\`, `\\`, "*", `\*`, "_", `\_`, "`", "\\`", "[", `\[`, "]", `\]`, "<", `\<`, "{%", `{\%`)

func escapeMD(s string) string { return mdEscaper.Replace(s) }

// mdURL is a link destination as Markdown writes it (in <> when it has
// spaces or parentheses).
func mdURL(u string) string {
	if strings.ContainsAny(u, " ()<>") {
		return "<" + strings.NewReplacer("<", "%3C", ">", "%3E").Replace(u) + ">"
	}
	return u
}
