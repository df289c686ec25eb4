package graph

import (
	"bytes"
	"context"
	"encoding/json"
	"net/url"
	"strings"
	"time"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"docsapi/apierr"
	"docsapi/graph/model"
)

// Embeds: what a URL shows in an embed block, read through the server's
// fetch guard (private addresses refused unless the deployment allows
// them). Whatever fails, the answer is a plain link: an embed block must
// still render.

// embedTimeout bounds the page and oEmbed fetches of one embed.
const embedTimeout = 5 * time.Second

// maxOEmbedHTML bounds the html taken from an oEmbed answer.
const maxOEmbedHTML = 64 << 10

func checkEmbedURL(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if raw == "" {
		return nil, apierr.Invalid("url", "is required")
	}
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, apierr.Invalid("url", "must be an absolute http(s) URL")
	}
	return u, nil
}

func (r *Resolver) embedByURL(ctx context.Context, raw string) (*model.Embed, error) {
	if _, err := callerOf(ctx); err != nil {
		return nil, err
	}
	return r.embed(ctx, raw)
}

func (r *Resolver) embedByURLInSpace(ctx context.Context, spaceID, raw string) (*model.Embed, error) {
	if _, err := r.contentSpace(ctx, spaceID, false); err != nil {
		return nil, err
	}
	return r.embed(ctx, raw)
}

func (r *Resolver) embed(ctx context.Context, raw string) (*model.Embed, error) {
	u, err := checkEmbedURL(raw)
	if err != nil {
		return nil, err
	}
	out := &model.Embed{Type: "link", Title: raw, Site: u.Hostname()}
	if r.Fetcher == nil {
		return out, nil
	}
	ctx, cancel := context.WithTimeout(ctx, embedTimeout)
	defer cancel()
	page, err := r.Fetcher.Fetch(ctx, raw)
	if err != nil || !strings.Contains(strings.ToLower(page.ContentType), "html") {
		return out, nil
	}
	meta := readEmbedMeta(page.Body, page.URL)
	if meta.title != "" {
		out.Title = meta.title
	}
	if meta.site != "" {
		out.Site = meta.site
	}
	out.Icon = meta.icon
	if meta.oembed == "" {
		return out, nil
	}
	res, err := r.Fetcher.Fetch(ctx, meta.oembed)
	if err != nil {
		return out, nil
	}
	var oe struct {
		Type, Title, HTML, ProviderName string
	}
	if json.Unmarshal(res.Body, &struct {
		Type         *string `json:"type"`
		Title        *string `json:"title"`
		HTML         *string `json:"html"`
		ProviderName *string `json:"provider_name"`
	}{&oe.Type, &oe.Title, &oe.HTML, &oe.ProviderName}) != nil {
		return out, nil
	}
	if oe.Title != "" {
		out.Title = oe.Title
	}
	if oe.ProviderName != "" {
		out.Site = oe.ProviderName
	}
	if (oe.Type == "rich" || oe.Type == "video") && oe.HTML != "" && len(oe.HTML) <= maxOEmbedHTML {
		out.Type, out.HTML = "rich", &oe.HTML
	}
	return out, nil
}

// embedMeta is what an HTML page says about itself.
type embedMeta struct {
	title, site, oembed string
	icon                *string
}

// readEmbedMeta reads og:title (else <title>), og:site_name, the icon and
// the JSON oEmbed discovery link of a page; links resolve against base.
func readEmbedMeta(body []byte, base string) embedMeta {
	var m embedMeta
	doc, err := html.Parse(bytes.NewReader(body))
	if err != nil {
		return m
	}
	baseURL, _ := url.Parse(base)
	abs := func(href string) string {
		ref, err := url.Parse(strings.TrimSpace(href))
		if err != nil || baseURL == nil {
			return ""
		}
		u := baseURL.ResolveReference(ref)
		if u.Scheme != "http" && u.Scheme != "https" {
			return ""
		}
		return u.String()
	}
	var docTitle string
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode {
			attr := func(name string) string {
				for _, a := range n.Attr {
					if strings.EqualFold(a.Key, name) {
						return a.Val
					}
				}
				return ""
			}
			switch n.DataAtom {
			case atom.Title:
				if docTitle == "" && n.FirstChild != nil {
					docTitle = strings.TrimSpace(n.FirstChild.Data)
				}
			case atom.Meta:
				switch strings.ToLower(attr("property")) {
				case "og:title":
					m.title = strings.TrimSpace(attr("content"))
				case "og:site_name":
					m.site = strings.TrimSpace(attr("content"))
				}
			case atom.Link:
				rel, typ := strings.ToLower(attr("rel")), strings.ToLower(attr("type"))
				switch {
				case rel == "alternate" && typ == "application/json+oembed" && m.oembed == "":
					m.oembed = abs(attr("href"))
				case (rel == "icon" || rel == "shortcut icon") && m.icon == nil:
					if u := abs(attr("href")); u != "" {
						m.icon = &u
					}
				}
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	if m.title == "" {
		m.title = docTitle
	}
	return m
}

// contentByURL resolves a URL of the service: an app URL of a space, a
// page or a collection, or a published URL (through URL resolution); what
// it names is read with the caller's own access (404 otherwise).
func (r *Resolver) contentByURL(ctx context.Context, raw string) (*model.ContentURLLookup, error) {
	if _, err := callerOf(ctx); err != nil {
		return nil, err
	}
	u, err := checkEmbedURL(raw)
	if err != nil {
		return nil, err
	}
	q := r.Query()
	spaceAndPage := func(spaceID, pagePath string) (*model.ContentURLLookup, error) {
		sp, err := q.Space(ctx, spaceID, nil)
		if err != nil {
			return nil, err
		}
		out := &model.ContentURLLookup{Space: sp}
		if pagePath != "" {
			if out.Page, err = q.SpacePage(ctx, spaceID, nil, &pagePath, nil, nil, nil, nil, nil, nil); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	if pub, err := url.Parse(r.Config.PublicURL); err == nil && strings.EqualFold(pub.Host, u.Host) {
		segs := segments(strings.TrimPrefix(u.Path, pub.Path))
		switch {
		case len(segs) >= 2 && segs[0] == "s":
			return spaceAndPage(segs[1], "")
		case len(segs) >= 3 && segs[0] == "app" && segs[1] == "spaces":
			return spaceAndPage(segs[2], strings.Join(segs[3:], "/"))
		case len(segs) == 2 && segs[0] == "c":
			col, err := q.Collection(ctx, segs[1])
			if err != nil {
				return nil, err
			}
			return &model.ContentURLLookup{Collection: col}, nil
		}
	}
	found, err := r.resolveURL(ctx, u, nil, nil)
	if err != nil {
		return nil, err
	}
	if found.Space == nil {
		return nil, errNoPublishedContent()
	}
	page := ""
	if found.Complete != nil && *found.Complete {
		page = deref(found.Pathname)
	}
	return spaceAndPage(*found.Space, page)
}
