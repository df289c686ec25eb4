package importer

import (
	"bytes"
	"context"
	"net/url"
	"path"
	"strings"

	htmltomarkdown "github.com/JohannesKaufmann/html-to-markdown/v2"
	"github.com/JohannesKaufmann/html-to-markdown/v2/converter"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"docsapi/markdown"
)

// htmlPage is one parsed HTML document.
type htmlPage struct {
	url      *url.URL
	title    string
	markdown string
	links    []*url.URL // same-origin links, absolute, without fragment
}

// maxHTMLDocument bounds one HTML document parsed (a page of a website
// crawl, or an HTML import), below the fetch guard's 10 MiB body limit:
// the parsed tree takes several times the document's size.
const maxHTMLDocument = 5 << 20

// parseHTML converts the main content of an HTML document (<main>, else
// <article>, else <body>) to Markdown with absolute links, and lists its
// same-origin links.
func parseHTML(ctx context.Context, body []byte, pageURL string) (*htmlPage, error) {
	if len(body) > maxHTMLDocument {
		return nil, badContent("the HTML document is %d bytes; at most %d are imported", len(body), maxHTMLDocument)
	}
	doc, err := html.Parse(bytes.NewReader(body))
	if err != nil {
		return nil, badContent("the content is not HTML: %v", err)
	}
	base, err := url.Parse(pageURL)
	if err != nil {
		return nil, badContent("bad page URL: %v", err)
	}
	hp := &htmlPage{url: base}
	var main, article, bodyNode, h1 *html.Node
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode {
			switch n.DataAtom {
			case atom.Title:
				if hp.title == "" && n.FirstChild != nil {
					hp.title = strings.TrimSpace(n.FirstChild.Data)
				}
			case atom.Main:
				main = first(main, n)
			case atom.Article:
				article = first(article, n)
			case atom.Body:
				bodyNode = first(bodyNode, n)
			case atom.H1:
				h1 = first(h1, n)
			case atom.Base:
				if href := attr(n, "href"); href != "" {
					if b, err := base.Parse(href); err == nil {
						base = b
					}
				}
			case atom.A:
				if u, err := base.Parse(attr(n, "href")); err == nil && u.Host == hp.url.Host && (u.Scheme == "http" || u.Scheme == "https") {
					u.Fragment = ""
					hp.links = append(hp.links, u)
				}
			case atom.Script, atom.Style, atom.Noscript, atom.Nav, atom.Header, atom.Footer:
				if n.DataAtom != atom.Header || main == nil {
					n.Parent.RemoveChild(n)
					return
				}
			}
		}
		for c := n.FirstChild; c != nil; {
			next := c.NextSibling
			walk(c)
			c = next
		}
	}
	walk(doc)
	if err := checkHTMLShape(doc); err != nil {
		return nil, err
	}
	content := main
	if content == nil {
		content = article
	}
	if content == nil {
		content = bodyNode
	}
	if content == nil {
		content = doc
	}
	if h1 != nil {
		if t := textOf(h1); t != "" {
			hp.title = t
		}
	}
	out, err := htmltomarkdown.ConvertNode(content, converter.WithDomain(base.String()), converter.WithContext(ctx))
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, badContent("converting HTML: %v", err)
	}
	hp.markdown = markdown.StripTitle(string(out), hp.title)
	return hp, checkBody("the converted page", hp.markdown)
}

// checkHTMLShape bounds a parsed document before it is converted (the
// parser itself stops at 512 open elements): its nodes by markdown's node
// bound, and the [ of its text by the link bound (the converter looks
// ahead from each [ for a link: quadratic in their number).
func checkHTMLShape(doc *html.Node) error {
	nodes, brackets := 0, 0
	for n := range doc.Descendants() {
		nodes++
		if n.Type == html.TextNode {
			brackets += strings.Count(n.Data, "[")
		}
		if nodes > markdown.MaxNodes {
			return badContent("the HTML document has more than %d nodes; at most %d are imported", markdown.MaxNodes, markdown.MaxNodes)
		}
		if brackets > markdown.MaxLinks {
			return badContent("the HTML document's text has more than %d [ characters; at most %d are imported", markdown.MaxLinks, markdown.MaxLinks)
		}
	}
	return nil
}

func first(cur, n *html.Node) *html.Node {
	if cur != nil {
		return cur
	}
	return n
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

func textOf(n *html.Node) string {
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return strings.Join(strings.Fields(b.String()), " ")
}

// HTML converts one fetched HTML page, importing its images as files.
func HTML(ctx context.Context, f Fetcher, res *Resource, lim Limits) (*Result, error) {
	hp, err := parseHTML(ctx, res.Body, res.URL)
	if err != nil {
		return nil, err
	}
	out := &Result{Total: 1, Imported: 1}
	page := &Page{Title: orDefault(hp.title, nameOf(res.URL)), Markdown: hp.markdown}
	page.Slug = slugOr(page.Title, "page")
	out.Pages = []*Page{page}
	imgs := &imageImporter{f: f, max: limitsOf(f, lim).MaxImages, names: names{}, seen: map[string]string{}, res: out}
	page.Markdown = imgs.rewrite(ctx, page.Markdown)
	return out, nil
}

// Website crawls same-origin links breadth first from start, bounded by
// the page limit and the time limit, converting each HTML page to a page
// and importing images as files. Pages are nested by URL path (see
// nestByPath); links between crawled pages become relative links to their
// pages.
func Website(ctx context.Context, f Fetcher, start string, lim Limits) (*Result, error) {
	lim = limitsOf(f, lim)
	ctx, cancel := context.WithTimeout(ctx, lim.Timeout)
	defer cancel()
	out := &Result{}
	startURL, err := url.Parse(start)
	if err != nil {
		return nil, badContent("bad URL: %v", err)
	}
	startURL.Fragment = ""
	queue := []string{startURL.String()}
	queued := map[string]bool{startURL.String(): true}
	var crawled []crawledPage
	pageOfURL := map[string]*Page{}
	for len(queue) > 0 && len(crawled) < lim.MaxPages && ctx.Err() == nil {
		u := queue[0]
		queue = queue[1:]
		out.Total++
		res, err := f.Fetch(ctx, u)
		if err != nil {
			if len(crawled) == 0 {
				return nil, err // the start page itself must come
			}
			continue
		}
		if !strings.Contains(res.ContentType, "html") {
			continue
		}
		hp, err := parseHTML(ctx, res.Body, res.URL)
		if err != nil {
			continue
		}
		p := &Page{Title: orDefault(hp.title, nameOf(res.URL)), Markdown: hp.markdown}
		crawled = append(crawled, crawledPage{page: p, key: urlPathKey(hp.url.Path)})
		pageOfURL[u] = p
		pageOfURL[res.URL] = p
		out.Imported++
		for _, l := range hp.links {
			if s := l.String(); !queued[s] {
				queued[s] = true
				queue = append(queue, s)
			}
		}
	}
	out.Pages = nestByPath(crawled)
	dedupeSlugs(out.Pages)
	paths := map[*Page]string{}
	assignPaths(out.Pages, "", paths)
	imgs := &imageImporter{f: f, max: lim.MaxImages, names: names{}, seen: map[string]string{}, res: out}
	for _, c := range crawled {
		p := c.page
		p.Markdown = imgs.rewrite(ctx, p.Markdown)
		p.Markdown = rewriteAbsolute(p.Markdown, func(dest string) (string, bool) {
			u, err := url.Parse(dest)
			if err != nil {
				return "", false
			}
			frag := u.Fragment
			u.Fragment = ""
			tp, ok := pageOfURL[u.String()]
			if !ok {
				return "", false
			}
			link := relLink(paths[p], paths[tp])
			if frag != "" {
				link += "#" + frag
			}
			return link, true
		})
	}
	return out, nil
}

// crawledPage is a converted page with the key of its URL path.
type crawledPage struct {
	page *Page
	key  string
}

// urlPathKey is a URL path as page-tree segments: no leading or trailing
// slash, index.html meaning its folder, .html/.htm suffixes dropped.
func urlPathKey(p string) string {
	p = strings.Trim(path.Clean("/"+p), "/")
	base := strings.ToLower(path.Base(p))
	if base == "index.html" || base == "index.htm" {
		p = strings.TrimSuffix(path.Dir(p), ".")
	} else if ext := strings.ToLower(path.Ext(p)); ext == ".html" || ext == ".htm" {
		p = p[:len(p)-len(ext)]
	}
	return p
}

// nestByPath arranges crawled pages (in crawl order) into a tree by URL
// path: a page goes under the crawled page whose path is its nearest
// ancestor (/docs/a/b under /docs/a, else under /docs, else at the top
// level). A page's slug is its last path segment (the title's slug for the
// site root).
func nestByPath(crawled []crawledPage) []*Page {
	byKey := map[string]*Page{}
	for _, c := range crawled {
		if _, dup := byKey[c.key]; !dup {
			byKey[c.key] = c.page
		}
	}
	var top []*Page
	for _, c := range crawled {
		c.page.Slug = slugOr(path.Base(c.key), slugOr(c.page.Title, "home"))
		if c.key == "" {
			c.page.Slug = slugOr(c.page.Title, "home")
		}
		var parent *Page
		for k := c.key; k != "" && parent == nil; {
			k = strings.TrimSuffix(path.Dir(k), ".")
			if p, ok := byKey[k]; ok && p != c.page && (k != "" || c.key != "") {
				parent = p
			}
			if k == "" {
				break
			}
		}
		if parent == nil {
			top = append(top, c.page)
		} else {
			parent.Children = append(parent.Children, c.page)
		}
	}
	return top
}

// imageImporter fetches the images a page shows and makes them files.
type imageImporter struct {
	f     Fetcher
	max   int
	names names
	seen  map[string]string // URL -> file name
	res   *Result
}

func (im *imageImporter) rewrite(ctx context.Context, src string) string {
	repl := map[string]string{}
	for _, l := range markdown.Links(src) {
		if !l.Image || !strings.HasPrefix(l.Dest, "http") || ctx.Err() != nil {
			continue
		}
		name, ok := im.seen[l.Dest]
		if !ok {
			if len(im.seen) >= im.max {
				continue
			}
			im.res.Total++
			res, err := im.f.Fetch(ctx, l.Dest)
			if err != nil || !strings.HasPrefix(contentTypeOf(l.Dest, res.ContentType), "image/") {
				im.seen[l.Dest] = ""
				continue
			}
			u, _ := url.Parse(res.URL)
			name = im.names.unique(u.Path)
			im.seen[l.Dest] = name
			im.res.Files = append(im.res.Files, &File{Name: name, ContentType: contentTypeOf(name, res.ContentType), Data: res.Body})
			im.res.Imported++
		}
		if name != "" {
			repl["]("+l.Dest] = "](" + name
		}
	}
	return replaceAll(src, repl)
}

// rewriteAbsolute replaces absolute link destinations for which fn answers.
func rewriteAbsolute(src string, fn func(dest string) (string, bool)) string {
	repl := map[string]string{}
	for _, l := range markdown.Links(src) {
		key := "](" + l.Dest + ")"
		if _, done := repl[key]; done || l.Image || !strings.HasPrefix(l.Dest, "http") {
			continue
		}
		repl[key] = key // seen: asked once
		if r, ok := fn(l.Dest); ok {
			repl[key] = "](" + r + ")"
		}
	}
	return replaceAll(src, repl)
}

func orDefault(s, d string) string {
	if strings.TrimSpace(s) == "" {
		return d
	}
	return s
}
