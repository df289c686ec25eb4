package site

import (
	"bytes"
	"html/template"
	"net/http"
	"net/url"
	"path"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"docsapi/apierr"
	"docsapi/docrender"
	"docsapi/graph/model"
	"docsapi/storage"
)

// view is what the page template shows.
type view struct {
	Title, SiteTitle, Description, Lead string
	Canonical, Home, Logo               string
	Accent                              template.CSS
	Assets, CSS, JS, SearchURL          string
	MarkdownURL, Query, Variant         string
	Footer                              string
	NoIndex                             bool
	Tabs, Variants, Crumbs              []link
	HeaderLinks                         []link
	FooterGroups                        []footerGroup // customization.go
	FooterLogo, Copyright               string
	FontCSS                             template.CSS
	Nav                                 template.HTML
	TOC                                 []docrender.Heading
	Prev, Next                          *link
	Body                                template.HTML
	ThemeScript                         template.JS
	Form                                *passwordForm
	SignIn                              *signInForm
	Results                             []searchHit
}

type link struct {
	Title, Href string
	Current     bool
	Children    []link // a header item's menu
}

type passwordForm struct{ Action, Share, Error string }

// siteData is what every answer of a resolved site reads: the site as its
// audience sees it (structure, customization) and the content of the site
// space the URL names.
type siteData struct {
	rc      resolved
	site    *model.PublishedContentSite // nil in a member's app view
	siteURL string                      // the site's published URL, without a trailing slash
	// title and changeRequest: a member's app view of a space (signin.go).
	title         string
	changeRequest *string
	*content
	// until is the earliest expiry of what the rendering holds.
	until time.Time
	// integrations is what the integration blocks of one answer (a page,
	// or every page of llms-full.txt) share: integrations.go.
	integrations *integrationState
}

// content is a revision as a site space shows it: its pages in reading
// order (documents and groups), by path, their parents, its files and the
// sidebar. A revision never changes, so it is built once per (revision,
// URL base, hour: its signed file links end) and shared by its pages.
type content struct {
	rev    *model.Revision
	base   string // the site space's URL path
	order  []*model.RevisionPage
	byPath map[string]*model.RevisionPage
	byID   map[string]*model.RevisionPage
	parent map[string]*model.RevisionPage
	files  map[string]docrender.File
	nav    string // the sidebar's HTML, no page marked
}

type contentKey struct {
	revision, base string
	hour           time.Time
}

// contents keeps built contents; full, it empties (like the page cache).
type contents struct {
	mu sync.Mutex
	m  map[contentKey]*content
}

func (c *contents) get(k contentKey) *content {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.m[k]
}

func (c *contents) put(k contentKey, v *content) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= 200 {
		c.m = map[contentKey]*content{}
	}
	c.m[k] = v
}

func boolPtr(b bool) *bool { return &b }

// load reads the site and the site space content of a resolution, as the
// visitor (the resolution's reader caller): the space read is the
// permission check of every request, the revision's content is shared.
func (h *Handler) load(rc resolved) (*siteData, error) {
	l := rc.lookup
	q := h.Res.Query()
	site, err := q.PublishedContentSite(rc.ctx, deref(l.Organization), deref(l.Site), nil, nil)
	if err != nil {
		return nil, err
	}
	sp, err := q.Space(rc.ctx, deref(l.Space), nil)
	if err != nil {
		return nil, err
	}
	hour := h.now().Truncate(time.Hour)
	d := &siteData{rc: rc, site: site, until: hour.Add(time.Hour), integrations: &integrationState{}}
	if site.Site.Urls.Published != nil {
		d.siteURL = strings.TrimRight(stripQuery(*site.Site.Urls.Published), "/")
	}
	if rc.private {
		// A share link's expiry and the visitor's token end with no write
		// to the database: what they opened is kept a minute at most.
		if exp := h.now().Add(time.Minute); exp.Before(d.until) {
			d.until = exp
		}
	}
	key := contentKey{revision: sp.Revision, base: deref(l.BasePath), hour: hour}
	if d.content = h.contents.get(key); d.content != nil {
		return d, nil
	}
	rev, err := q.SpaceContent(rc.ctx, sp.ID, &sp.Revision, nil, boolPtr(true), nil)
	if err != nil {
		return nil, err
	}
	d.content = newContent(rev, key.base)
	h.contents.put(key, d.content)
	return d, nil
}

func newContent(rev *model.Revision, base string) *content {
	c := &content{rev: rev, base: base, byPath: map[string]*model.RevisionPage{}, byID: map[string]*model.RevisionPage{}, parent: map[string]*model.RevisionPage{},
		files: map[string]docrender.File{}}
	var walk func(parent *model.RevisionPage, ps []*model.RevisionPage)
	walk = func(parent *model.RevisionPage, ps []*model.RevisionPage) {
		for _, p := range ps {
			if p.Hidden != nil && *p.Hidden {
				continue
			}
			if p.Path != nil {
				c.byPath[*p.Path] = p
			}
			c.byID[p.ID] = p
			if parent != nil {
				c.parent[p.ID] = parent
			}
			if p.Type != "link" {
				c.order = append(c.order, p)
			}
			walk(p, p.Pages)
		}
	}
	walk(nil, rev.Pages)
	for _, f := range rev.Files {
		df := docrender.File{Name: f.Name, URL: f.DownloadURL, ContentType: f.ContentType, Size: f.Size}
		if f.Dimensions != nil {
			df.Width, df.Height = f.Dimensions.Width, f.Dimensions.Height
		}
		c.files[f.ID] = df
	}
	var b strings.Builder
	c.writeNav(&b, rev.Pages)
	c.nav = b.String()
	return c
}

func stripQuery(u string) string {
	if i := strings.IndexByte(u, '?'); i >= 0 {
		return u[:i]
	}
	return u
}

// pageHref is a page's URL path in the site space the reader is in.
func (c *content) pageHref(p *model.RevisionPage) string {
	return c.base + escapePath(deref(p.Path))
}

// escapePath escapes each segment of a page path.
func escapePath(p string) string {
	segs := strings.Split(p, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return strings.Join(segs, "/")
}

// relative turns a published URL of this site (a section's, a variant's)
// into a path under the site root the reader came through (their host or
// proxy), so that navigation stays where they are.
func (d *siteData) relative(published *string) string {
	if published == nil {
		return ""
	}
	u := stripQuery(*published)
	rest, ok := strings.CutPrefix(u, d.siteURL)
	if !ok {
		return u
	}
	return deref(d.rc.lookup.SiteBasePath) + strings.TrimPrefix(rest, "/")
}

// current is the page the resolution names: its path's page, else (at a
// root) the first document.
func (d *siteData) current() (*model.RevisionPage, bool) {
	p := deref(d.rc.lookup.Pathname)
	if p != "" {
		pg, ok := d.byPath[p]
		if ok && pg.Type == "group" {
			return d.firstDocumentUnder(pg)
		}
		return pg, ok
	}
	for _, pg := range d.order {
		if pg.Type != "group" {
			return pg, true
		}
	}
	return nil, false
}

func (c *content) firstDocumentUnder(g *model.RevisionPage) (*model.RevisionPage, bool) {
	for _, p := range g.Pages {
		if p.Hidden != nil && *p.Hidden {
			continue
		}
		if p.Type == "group" {
			if doc, ok := c.firstDocumentUnder(p); ok {
				return doc, true
			}
			continue
		}
		if p.Type != "link" {
			return p, true
		}
	}
	return nil, false
}

// linkResolver maps the links a page's document makes to reader URLs:
// page ids (content references of kind page), and relative paths and
// ".md" files naming pages of the space, become the pages' URLs (their
// anchors kept).
func (d *siteData) linkResolver(from *model.RevisionPage) func(string) (string, bool) {
	dir := path.Dir("/" + deref(from.Path))
	return func(dest string) (string, bool) {
		if dest == "" || strings.HasPrefix(dest, "#") || strings.Contains(dest, "://") || strings.HasPrefix(dest, "mailto:") {
			return "", false
		}
		if pg, ok := d.byID[dest]; ok {
			return d.pageHref(pg), true
		}
		target, anchor, _ := strings.Cut(dest, "#")
		if u, err := url.PathUnescape(target); err == nil {
			target = u
		}
		p := target
		if !strings.HasPrefix(p, "/") {
			p = path.Join(dir, p)
		}
		p = strings.TrimPrefix(path.Clean(p), "/")
		p = strings.TrimSuffix(p, ".md")
		p = strings.TrimSuffix(strings.TrimSuffix(p, "README"), "/")
		pg, ok := d.byPath[p]
		if !ok {
			return "", false
		}
		href := d.pageHref(pg)
		if anchor != "" {
			href += "#" + url.PathEscape(anchor)
		}
		return href, true
	}
}

// baseView is the view every answer of a site starts from.
func (h *Handler) baseView(d *siteData) *view {
	l := d.rc.lookup
	base := deref(l.SiteBasePath)
	v := &view{SiteTitle: d.title, Home: base, Assets: base + assetsDir + "/", CSS: cssName, JS: jsName, Footer: "Published with docsapi"}
	if d.site == nil {
		return v
	}
	v.SiteTitle, v.SearchURL = d.site.Site.Title, base+"_search"
	if ic := d.site.Site.Icon; ic != nil && ic.Emoji != nil {
		v.SiteTitle = *ic.Emoji + " " + v.SiteTitle
	} else if ic != nil && ic.Icon != nil && strings.HasPrefix(ic.Icon.Light, "https://") {
		v.Logo = ic.Icon.Light
	}
	if c, ok := d.site.Customizations.Site["styling"].(map[string]any); ok {
		if pc, ok := c["primaryColor"].(map[string]any); ok {
			if s, ok := pc["light"].(string); ok && isColor(s) {
				v.Accent = template.CSS(s)
			}
		}
	}
	h.structureNav(d, v)
	h.customize(d, v)
	return v
}

// isColor accepts #rgb and #rrggbb colours (the only ones the page's
// stylesheet takes from customization).
func isColor(s string) bool {
	if len(s) != 4 && len(s) != 7 || s[0] != '#' {
		return false
	}
	for _, c := range s[1:] {
		if !strings.ContainsRune("0123456789abcdefABCDEF", c) {
			return false
		}
	}
	return true
}

// structureNav fills the sections as tabs and the current section's site
// spaces (variants) as a switcher.
func (h *Handler) structureNav(d *siteData, v *view) {
	l := d.rc.lookup
	var spaces []*model.SiteSpace
	for _, it := range d.site.Structure.Structure {
		switch s := it.(type) {
		case *model.SiteSection:
			h.addSection(d, v, s, "", &spaces)
		case *model.SiteSectionGroup:
			for _, sec := range s.Sections {
				h.addSection(d, v, sec, s.Title+": ", &spaces)
			}
		case *model.SiteSpace:
			spaces = append(spaces, s)
		}
	}
	if len(v.Tabs) < 2 {
		v.Tabs = nil
	}
	for _, ss := range spaces {
		cur := ss.ID == deref(l.SiteSpace)
		v.Variants = append(v.Variants, link{Title: ss.Title, Href: d.relative(ss.Urls.Published), Current: cur})
		if cur {
			v.Variant = ss.Title
		}
	}
	if len(v.Variants) < 2 {
		v.Variants = nil
	}
}

func (h *Handler) addSection(d *siteData, v *view, s *model.SiteSection, prefix string, spaces *[]*model.SiteSpace) {
	cur := s.ID == deref(d.rc.lookup.SiteSection)
	v.Tabs = append(v.Tabs, link{Title: prefix + s.Title, Href: d.relative(s.Urls.Published), Current: cur})
	if cur {
		*spaces = s.SiteSpaces
	}
}

// writeNav writes the sidebar: the page tree as nested lists (written
// here rather than by the template: a 1,000-page space's sidebar is most
// of its pages' rendering). The current page is marked per page (markNav).
func (c *content) writeNav(b *strings.Builder, ps []*model.RevisionPage) {
	first := true
	for _, p := range ps {
		if p.Hidden != nil && *p.Hidden {
			continue
		}
		if first {
			b.WriteString("<ul>")
			first = false
		}
		switch p.Type {
		case "group":
			b.WriteString(`<li class="group"><span>` + template.HTMLEscapeString(p.Title) + "</span>")
		case "link":
			b.WriteString(`<li><a href="` + template.HTMLEscapeString(linkPageHref(c, p)) + `">` + template.HTMLEscapeString(p.Title) + "</a>")
		default:
			b.WriteString(`<li><a href="` + template.HTMLEscapeString(c.pageHref(p)) + `">` + template.HTMLEscapeString(p.Title) + "</a>")
		}
		c.writeNav(b, p.Pages)
		b.WriteString("</li>")
	}
	if !first {
		b.WriteString("</ul>")
	}
}

// markNav is the sidebar with the current page's link marked (page hrefs
// are unique in a space).
func (c *content) markNav(cur *model.RevisionPage) template.HTML {
	a := `<a href="` + template.HTMLEscapeString(c.pageHref(cur)) + `">`
	return template.HTML(strings.Replace(c.nav, a, a[:len(a)-1]+` aria-current="page">`, 1))
}

// linkPageHref is where a link page points: its URL, or the page or
// space it targets when it is one of this site space's pages.
func linkPageHref(d *content, p *model.RevisionPage) string {
	if p.Href != nil {
		return *p.Href
	}
	if u, ok := p.Target["url"].(string); ok {
		return u
	}
	if id, ok := p.Target["page"].(string); ok {
		if pg, ok := d.byID[id]; ok {
			return d.pageHref(pg)
		}
	}
	return "#"
}

// renderPage renders the page the resolution names.
func (h *Handler) renderPage(d *siteData) (*cachedPage, error) {
	cur, ok := d.current()
	if !ok {
		return nil, apierr.NotFound("page")
	}
	l := d.rc.lookup
	format := model.PageFormat("document")
	rev := &d.rev.ID
	if d.changeRequest != nil {
		rev = nil
	}
	pg, err := h.Res.Query().SpacePage(d.rc.ctx, deref(l.Space), &cur.ID, nil, rev, d.changeRequest, &format, nil, nil, nil)
	if err != nil {
		return nil, err
	}
	doc, err := docrender.Document(pg.Document)
	if err != nil {
		return nil, err
	}
	doc = h.withIntegrationBlocks(d, doc)
	out := docrender.Render(doc, h.docResolver(d, deref(l.Space), cur))
	v := h.baseView(d)
	v.Title = cur.Title
	v.Description = deref(cur.Description)
	v.Lead = v.Description
	if v.Description == "" {
		v.Description = excerpt(out.Text, 160)
	}
	v.Body = out.HTML
	v.TOC = out.Headings
	v.Nav = d.markNav(cur)
	v.NoIndex = (cur.NoIndex != nil && *cur.NoIndex) || (cur.NoRobotsIndex != nil && *cur.NoRobotsIndex) || d.site == nil || d.site.Site.Visibility != "public"
	v.MarkdownURL = d.pageHref(cur) + ".md"
	if deref(cur.Path) == "" || d.site == nil {
		v.MarkdownURL = ""
	}
	if l.CanonicalURL != nil {
		v.Canonical = *l.CanonicalURL
		if deref(l.Pathname) == "" && deref(cur.Path) != "" {
			v.Canonical = strings.TrimRight(*l.CanonicalURL, "/") + "/" + escapePath(*cur.Path)
		}
	}
	// Breadcrumbs: the section, then the page's ancestors.
	for _, t := range v.Tabs {
		if t.Current {
			v.Crumbs = append(v.Crumbs, link{Title: t.Title, Href: t.Href})
		}
	}
	var chain []link
	for p := d.parent[cur.ID]; p != nil; p = d.parent[p.ID] {
		href := ""
		if p.Type != "group" {
			href = d.pageHref(p)
		}
		chain = append([]link{{Title: p.Title, Href: href}}, chain...)
	}
	v.Crumbs = append(v.Crumbs, chain...)
	if len(v.Crumbs) > 0 {
		v.Crumbs = append(v.Crumbs, link{Title: cur.Title})
	}
	// Previous and next: the documents around this one in reading order.
	var docs []*model.RevisionPage
	for _, p := range d.order {
		if p.Type != "group" {
			docs = append(docs, p)
		}
	}
	for i, p := range docs {
		if p.ID != cur.ID {
			continue
		}
		if i > 0 {
			v.Prev = &link{Title: docs[i-1].Title, Href: d.pageHref(docs[i-1])}
		}
		if i+1 < len(docs) {
			v.Next = &link{Title: docs[i+1].Title, Href: d.pageHref(docs[i+1])}
		}
	}
	body, err := execute(v)
	if err != nil {
		return nil, err
	}
	return answerOf(http.StatusOK, "text/html; charset=utf-8", body, d.rc.private, d.until), nil
}

func execute(v *view) ([]byte, error) {
	v.ThemeScript = themeScript
	var b bytes.Buffer
	if err := pageTmpl.ExecuteTemplate(&b, "page", v); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// excerpt is s's first n runes or so, cut at a word.
func excerpt(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	cut := string(r[:n])
	if i := strings.LastIndexByte(cut, ' '); i > n/2 {
		cut = cut[:i]
	}
	return cut + "…"
}

// renders counts the answers rendered (not served from the cache), for
// the tests of what the cache keeps.
var renders atomic.Int64

// serveTarget answers a resolved request and keeps the answer.
func (h *Handler) serveTarget(w http.ResponseWriter, r *http.Request, t target, rc resolved) {
	renders.Add(1)
	started, counted := storage.VersionOf(r.Context())
	d, err := h.load(rc)
	if err != nil {
		h.errorPage(w, r, t, err)
		return
	}
	var p *cachedPage
	switch t.kind {
	case kindPage:
		p, err = h.renderPage(d)
	case kindMarkdown:
		p, err = h.renderMarkdown(d)
	case kindRobots:
		p, err = h.robots(r, d)
	case kindSitemap:
		p, err = h.sitemap(d)
	case kindLLMs:
		p, err = h.llms(d, false)
	case kindLLMsFull:
		p, err = h.llms(d, true)
	case kindSearch:
		h.search(w, r, d)
		return
	}
	if err != nil {
		h.errorPage(w, r, t, err)
		return
	}
	h.store(r, t, rc.class, started, counted, p)
	writeAnswer(w, r, p)
}

// errorPage answers an error as a friendly page (404 for what a visitor
// may not see, as the API answers).
func (h *Handler) errorPage(w http.ResponseWriter, r *http.Request, t target, err error) {
	status := http.StatusInternalServerError
	title, msg := "Something went wrong", "This page could not be shown. Try again in a moment."
	if e, ok := apierr.As(err); ok && e.Status < 500 {
		status = e.Status
	} else {
		h.Log.ErrorContext(r.Context(), "reader site", "path", r.URL.Path, "error", err)
	}
	switch status {
	case http.StatusNotFound, http.StatusBadRequest:
		status = http.StatusNotFound
		title, msg = "Page not found", "There is no page at this address. It may have moved, or the link may be mistyped."
	case http.StatusUnauthorized, http.StatusForbidden:
		title, msg = "Sign-in needed", "This site is for signed-in visitors: open it from the link your organization gave you."
	case http.StatusTooManyRequests:
		title, msg = "Too many attempts", "Wait a moment, then try again."
	}
	if status == http.StatusNotFound && !strings.Contains(r.Header.Get("Accept"), "text/html") && !strings.HasPrefix(r.URL.Path, "/sites/") && t.kind == kindPage {
		// Not a browser, and no site's path on the service: the API's 404
		// (a client that mistyped an API route wants its JSON).
		h.NotFound.ServeHTTP(w, r)
		return
	}
	if t.kind != kindPage {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		w.WriteHeader(status)
		w.Write([]byte(title + "\n"))
		return
	}
	base := siteRootGuess(r.URL.Path)
	v := &view{Title: title, SiteTitle: "docsapi", Home: base, Assets: base + assetsDir + "/", CSS: cssName, JS: jsName,
		NoIndex: true, Body: template.HTML("<p>" + template.HTMLEscapeString(msg) + `</p><p><a href="` + template.HTMLEscapeString(base) + `">Go to the home page</a></p>`)}
	body, _ := execute(v)
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	if r.Method != http.MethodHead {
		w.Write(body)
	}
}

// siteRootGuess is where the error page's links go: the /sites/<org>/<site>/
// prefix of a path on the service, else the host's root.
func siteRootGuess(p string) string {
	segs := strings.Split(strings.Trim(p, "/"), "/")
	for i, s := range segs {
		if s == "sites" && i+3 <= len(segs) {
			return "/" + strings.Join(segs[:i+3], "/") + "/"
		}
	}
	return "/"
}
