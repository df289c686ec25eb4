package markdown

import (
	"path"
	"strconv"
	"strings"
)

// gitbookNodes builds the document blocks of parsed GitBook blocks: each
// Markdown run parsed by goldmark on its own, each block mapped to its
// 0.130.0 block type. Recursion follows the parsed nesting, at most
// MaxGitBookDepth deep.
func (b *builder) gitbookNodes(blocks []*GitBookBlock) []*Node {
	var out []*Node
	for _, g := range blocks {
		out = append(out, b.gitbookNode(g)...)
	}
	return out
}

func (b *builder) markdownRun(src string) []*Node {
	saved := b.src
	b.src = []byte(src)
	defer func() { b.src = saved }()
	var out []*Node
	for c := parse(b.src).FirstChild(); c != nil; c = c.NextSibling() {
		if n := b.block(c); n != nil {
			out = append(out, n)
		}
	}
	return out
}

func (b *builder) void(n *Node) *Node { n.IsVoid = &voidTrue; return n }

func (b *builder) open(n *Node) *Node { n.IsVoid = &voidFalse; return n }

// childrenOf is the blocks of g's children of kind (tabs' tabs, a
// stepper's steps), text between them dropped.
func (b *builder) childrenOf(g *GitBookBlock, kind, typ string, data func(*GitBookBlock) map[string]any) []*Node {
	var out []*Node
	for _, c := range g.Children {
		if c.Kind == kind {
			out = append(out, b.open(b.newBlock(typ, data(c), b.gitbookNodes(c.Children)...)))
		}
	}
	return out
}

func (b *builder) gitbookNode(g *GitBookBlock) []*Node {
	switch g.Kind {
	case "":
		return b.markdownRun(g.Text)
	case "hint":
		style := g.Attr("style")
		switch style {
		case "info", "warning", "danger", "success":
		default:
			style = "info"
		}
		return []*Node{b.open(b.newBlock("hint", map[string]any{"style": style}, b.gitbookNodes(g.Children)...))}
	case "tabs":
		return []*Node{b.open(b.newBlock("tabs", nil, b.childrenOf(g, "tab", "tabs-item", func(t *GitBookBlock) map[string]any {
			return map[string]any{"title": t.Attr("title")}
		})...))}
	case "stepper":
		return []*Node{b.open(b.newBlock("stepper", nil, b.childrenOf(g, "step", "stepper-step", func(*GitBookBlock) map[string]any { return nil })...))}
	case "columns":
		return []*Node{b.open(b.newBlock("columns", nil, b.childrenOf(g, "column", "column", func(*GitBookBlock) map[string]any { return nil })...))}
	case "updates":
		// 0.130.0 has no updates block: each update is a heading (its
		// date or title) followed by its blocks.
		var out []*Node
		for _, u := range g.Children {
			if u.Kind != "update" {
				continue
			}
			title := strings.TrimSpace(u.Attr("date") + " " + u.Attr("title"))
			out = append(out, b.newBlock("heading-2", map[string]any{"id": Slugify(title)}, b.text(title)))
			out = append(out, b.gitbookNodes(u.Children)...)
		}
		return out
	case "code":
		nodes := b.gitbookNodes(g.Children)
		for _, n := range nodes {
			if n.Type != "code" {
				continue
			}
			data := map[string]any{}
			for k, v := range n.Data {
				data[k] = v
			}
			if t := g.Attr("title"); t != "" {
				data["title"] = t
			}
			if g.Attr("overflow") == "wrap" {
				data["overflow"] = "wrap"
			}
			if v := g.Attr("lineNumbers"); v != "" {
				data["lineNumbers"] = v == "true"
			}
			n.Data = data
			break
		}
		return nodes
	case "embed":
		return []*Node{b.void(b.newBlock("embed", map[string]any{"url": g.Attr("url")}))}
	case "file":
		ref := b.ref(g.Attr("src"))
		if ref["kind"] != "file" {
			link := &Node{Object: "inline", Type: "link", Key: b.key(), Data: map[string]any{"ref": ref}, Nodes: []*Node{b.text(g.Attr("src"))}}
			return []*Node{b.newBlock("paragraph", nil, link)}
		}
		return []*Node{b.void(b.newBlock("file", map[string]any{"ref": ref}))}
	case "content-ref":
		return []*Node{b.void(b.newBlock("content-ref", map[string]any{"ref": b.ref(g.Attr("url"))}))}
	case "include":
		return []*Node{b.void(b.newBlock("reusable-content", map[string]any{"ref": map[string]any{"kind": "reusable-content", "reusableContent": reusableID(g.Attr(""))}}))}
	case "openapi", "swagger", "openapi-operation":
		spec := g.Attr("spec")
		if spec == "" {
			spec = g.Attr("src")
		}
		return []*Node{b.void(b.newBlock("openapi-operation", map[string]any{
			"ref": map[string]any{"kind": "openapi", "spec": spec}, "path": g.Attr("path"), "method": strings.ToLower(g.Attr("method"))}))}
	case "details":
		title := b.markdownRun(g.Text)
		if len(title) != 1 || title[0].Type != "paragraph" {
			title = []*Node{b.newBlock("paragraph", nil, b.text(strings.TrimSpace(g.Text)))}
		}
		body := b.gitbookNodes(g.Children)
		if len(body) == 0 {
			body = []*Node{b.newBlock("paragraph", nil, b.text(""))}
		}
		n := b.void(b.newBlock("expandable", nil))
		n.Fragments = &[]*Node{
			{Object: "fragment", Key: b.key(), Type: "expandable-title", Fragment: "expandable-title", Nodes: title},
			{Object: "fragment", Key: b.key(), Type: "expandable-body", Fragment: "expandable-body", Nodes: body},
		}
		return []*Node{n}
	case "math":
		return []*Node{b.void(b.newBlock("math", map[string]any{"formula": strings.TrimSpace(g.Text)}))}
	case "image":
		data := map[string]any{"ref": b.ref(g.Attr("src")), "alt": g.Attr("alt")}
		if d := g.Attr("srcDark"); d != "" {
			data["refDark"] = b.ref(d)
		}
		if w, err := strconv.Atoi(g.Attr("width")); err == nil && w > 0 {
			data["width"] = w
		}
		img := b.void(b.newBlock("image", data))
		frags := []*Node{}
		if c := g.Attr("caption"); c != "" {
			frags = append(frags, &Node{Object: "fragment", Key: b.key(), Fragment: "caption", Nodes: []*Node{b.newBlock("paragraph", nil, b.text(c))}})
		}
		img.Fragments = &frags
		return []*Node{b.open(b.newBlock("images", map[string]any{}, img))}
	}
	return nil
}

// reusableID names the reusable content an include points at: the id in
// a GitBook URL (…/~/reusable/<id>/), else the included file's name.
func reusableID(target string) string {
	if _, rest, ok := strings.Cut(target, "/reusable/"); ok {
		id, _, _ := strings.Cut(rest, "/")
		return id
	}
	return strings.TrimSuffix(path.Base(target), path.Ext(target))
}
