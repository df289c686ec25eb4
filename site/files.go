package site

import (
	"encoding/xml"
	"net/http"
	"strings"

	"docsapi/apierr"
	"docsapi/docrender"
	"docsapi/graph/model"
)

// The files a site answers beside its pages: each page's Markdown,
// robots.txt, sitemap.xml, llms.txt and llms-full.txt.

// renderMarkdown answers a page's Markdown (its URL + ".md").
func (h *Handler) renderMarkdown(d *siteData) (*cachedPage, error) {
	cur, ok := d.current()
	if !ok || deref(d.rc.lookup.Pathname) == "" {
		return nil, apierr.NotFound("page")
	}
	md, err := h.pageMarkdown(d, d.content, d.rc.lookup.Space, cur)
	if err != nil {
		return nil, err
	}
	return answerOf(http.StatusOK, "text/markdown; charset=utf-8", []byte(md), d.rc.private, d.until), nil
}

// pageMarkdown is a page's Markdown under its title, written from its
// document by the same walk as its HTML (docrender.Markdown): links to
// pages of the site become their published URLs, reusable content and
// OpenAPI operations are written out as the page shows them.
func (h *Handler) pageMarkdown(d *siteData, c *content, space *string, p *model.RevisionPage) (string, error) {
	if p.Type == "group" {
		return "# " + p.Title + "\n", nil
	}
	format := model.PageFormat("document")
	var rev *string
	if d.changeRequest == nil && c.rev != nil {
		rev = &c.rev.ID
	}
	pg, err := h.Res.Query().SpacePage(d.rc.ctx, deref(space), &p.ID, nil, rev, d.changeRequest, &format, nil, nil, nil)
	if err != nil {
		return "", err
	}
	doc, err := docrender.Document(pg.Document)
	if err != nil {
		return "", err
	}
	doc = h.withIntegrationBlocks(d, doc)
	dc := *d
	dc.content = c
	res := h.docResolver(&dc, deref(space), p)
	link := res.Link
	res.Link = func(dest string) (string, bool) {
		href, ok := link(dest)
		if ok && strings.HasPrefix(href, "/") && dc.siteURL != "" {
			href = dc.absolute(href)
		}
		return href, ok
	}
	body := strings.TrimSpace(docrender.Markdown(doc, res))
	if len(doc.Nodes) == 0 || doc.Nodes[0].Type != "heading-1" {
		body = strings.TrimSpace("# " + p.Title + "\n\n" + body)
	}
	return body + "\n", nil
}

// absolute is a path of this site as a full URL on the site's published
// address (the canonical one, whichever host the reader used).
func (d *siteData) absolute(href string) string {
	rest := strings.TrimPrefix(href, deref(d.rc.lookup.SiteBasePath))
	if rest == "" {
		return d.siteURL + "/"
	}
	return d.siteURL + "/" + rest
}

// robots allows crawling public sites and points at the sitemap; sites a
// key or token opens are not for crawlers.
func (h *Handler) robots(r *http.Request, d *siteData) (*cachedPage, error) {
	body := "User-agent: *\n"
	if d.site.Site.Visibility == "public" {
		body += "Allow: /\n\nSitemap: " + d.absolute(deref(d.rc.lookup.SiteBasePath)+"sitemap.xml") + "\n"
	} else {
		body += "Disallow: /\n"
	}
	return answerOf(http.StatusOK, "text/plain; charset=utf-8", []byte(body), d.rc.private, d.until), nil
}

// spaceEntry is a site space the visitor sees and its content.
type spaceEntry struct {
	title string // "Section / variant"
	base  string // its URL path
	space string
	rev   *model.Revision
}

// spaces lists the site spaces the visitor sees, in structure order, with
// their content (for the sitemap, llms.txt and search).
func (h *Handler) spaces(d *siteData, withContent bool) ([]spaceEntry, error) {
	var out []spaceEntry
	add := func(prefix string, ss *model.SiteSpace, n int) error {
		title := ss.Title
		if prefix != "" {
			title = prefix
			if n > 1 {
				title += " / " + ss.Title
			}
		}
		e := spaceEntry{title: title, base: d.relative(ss.Urls.Published), space: ss.Space.ID}
		if !strings.HasSuffix(e.base, "/") {
			e.base += "/"
		}
		if withContent {
			rev, err := h.Res.Query().SpaceContent(d.rc.ctx, ss.Space.ID, nil, nil, boolPtr(true), nil)
			if err != nil {
				return err
			}
			e.rev = rev
		}
		out = append(out, e)
		return nil
	}
	section := func(s *model.SiteSection) error {
		for _, ss := range s.SiteSpaces {
			if err := add(s.Title, ss, len(s.SiteSpaces)); err != nil {
				return err
			}
		}
		return nil
	}
	for _, it := range d.site.Structure.Structure {
		var err error
		switch s := it.(type) {
		case *model.SiteSection:
			err = section(s)
		case *model.SiteSectionGroup:
			for _, sec := range s.Sections {
				if err = section(sec); err != nil {
					break
				}
			}
		case *model.SiteSpace:
			err = add("", s, 1)
		}
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// eachPage calls f with every visible page of rev (documents only) and its
// URL path under base.
func eachPage(rev *model.Revision, base string, f func(p *model.RevisionPage, href string)) {
	var walk func([]*model.RevisionPage)
	walk = func(ps []*model.RevisionPage) {
		for _, p := range ps {
			if p.Hidden != nil && *p.Hidden {
				continue
			}
			if p.Type == "document" || p.Type == "computed" {
				f(p, base+escapePath(deref(p.Path)))
			}
			walk(p.Pages)
		}
	}
	walk(rev.Pages)
}

// sitemap lists every page the visitor sees (public sites only: the
// pages of a site a key opens are not for search engines).
func (h *Handler) sitemap(d *siteData) (*cachedPage, error) {
	type entry struct {
		Loc string `xml:"loc"`
	}
	set := struct {
		XMLName xml.Name `xml:"urlset"`
		NS      string   `xml:"xmlns,attr"`
		URLs    []entry  `xml:"url"`
	}{NS: "http://www.sitemaps.org/schemas/sitemap/0.9"}
	if d.site.Site.Visibility == "public" {
		spaces, err := h.spaces(d, true)
		if err != nil {
			return nil, err
		}
		for _, s := range spaces {
			eachPage(s.rev, s.base, func(p *model.RevisionPage, href string) {
				if p.NoIndex == nil || !*p.NoIndex {
					set.URLs = append(set.URLs, entry{Loc: d.absolute(href)})
				}
			})
		}
	}
	body, err := xml.MarshalIndent(set, "", "  ")
	if err != nil {
		return nil, err
	}
	body = append([]byte(xml.Header), body...)
	return answerOf(http.StatusOK, "application/xml; charset=utf-8", body, d.rc.private, d.until), nil
}

// llmsFullLimit bounds llms-full.txt (a large site's every page).
const llmsFullLimit = 8 << 20

// llms answers llms.txt (the site's pages as links to their Markdown, by
// section and variant) or, full, llms-full.txt (every page's Markdown).
func (h *Handler) llms(d *siteData, full bool) (*cachedPage, error) {
	spaces, err := h.spaces(d, true)
	if err != nil {
		return nil, err
	}
	var b strings.Builder
	b.WriteString("# " + d.site.Site.Title + "\n\n")
	for _, s := range spaces {
		if !full {
			b.WriteString("## " + s.title + "\n\n")
		}
		var ferr error
		c := d.content
		if full && (c == nil || c.rev != s.rev) {
			c = newContent(s.rev, s.base)
		}
		eachPage(s.rev, s.base, func(p *model.RevisionPage, href string) {
			if ferr != nil || b.Len() > llmsFullLimit {
				return
			}
			if !full {
				b.WriteString("- [" + p.Title + "](" + d.absolute(href) + ".md)")
				if desc := deref(p.Description); desc != "" {
					b.WriteString(": " + desc)
				}
				b.WriteString("\n")
				return
			}
			md, err := h.pageMarkdown(d, c, &s.space, p)
			if err != nil {
				ferr = err
				return
			}
			b.WriteString(md + "\n")
		})
		if ferr != nil {
			return nil, ferr
		}
		b.WriteString("\n")
	}
	return answerOf(http.StatusOK, "text/plain; charset=utf-8", []byte(b.String()), d.rc.private, d.until), nil
}
