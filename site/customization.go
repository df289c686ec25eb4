package site

import (
	"html/template"
	"net/url"
	"strconv"
	"strings"

	"docsapi/docwalk"
	"docsapi/graph"
)

// The site's customization (SiteCustomizationSettings, as the published
// read answers it, a site space's overrides first) applied to a page: the
// header's links, the footer's link groups, logo and copyright, and a custom
// font of the organization (graph/fonts.go) loaded with @font-face from
// where docsapi serves it. Anything else a setting names (a link to another
// origin's script, a font file elsewhere) is not taken: the page loads
// nothing from outside the service.

// footerGroup is a titled column of footer links.
type footerGroup struct {
	Title string
	Links []link
}

// maxCustomLinks bounds what a page shows of the settings' lists.
const maxCustomLinks = 20

// setting is the customization setting key for the page's site space
// (its override), else the site's.
func (d *siteData) setting(key string) map[string]any {
	if ss, ok := d.site.Customizations.SiteSpaces[deref(d.rc.lookup.SiteSpace)].(map[string]any); ok {
		if v, ok := ss[key].(map[string]any); ok {
			return v
		}
	}
	v, _ := d.site.Customizations.Site[key].(map[string]any)
	return v
}

// customize applies the header, footer and font settings to v.
func (h *Handler) customize(d *siteData, v *view) {
	if hd := d.setting("header"); hd != nil {
		for _, it := range list(hd["links"], maxCustomLinks) {
			item, _ := it.(map[string]any)
			l := link{Title: docwalk.Str(item, "title")}
			if to, ok := item["to"].(map[string]any); ok {
				l.Href = d.contentHref(to)
			}
			for _, c := range list(item["links"], maxCustomLinks) {
				if cl, ok := d.contentLink(c); ok {
					l.Children = append(l.Children, cl)
				}
			}
			if l.Title != "" && (l.Href != "" || len(l.Children) > 0) {
				v.HeaderLinks = append(v.HeaderLinks, l)
			}
		}
	}
	if ft := d.setting("footer"); ft != nil {
		for _, g := range list(ft["groups"], maxCustomLinks) {
			gm, _ := g.(map[string]any)
			fg := footerGroup{Title: docwalk.Str(gm, "title")}
			for _, c := range list(gm["links"], maxCustomLinks) {
				if cl, ok := d.contentLink(c); ok {
					fg.Links = append(fg.Links, cl)
				}
			}
			if len(fg.Links) > 0 {
				v.FooterGroups = append(v.FooterGroups, fg)
			}
		}
		if logo, ok := ft["logo"].(map[string]any); ok {
			v.FooterLogo = h.imageURL(docwalk.Str(logo, "light"))
		}
		if c := strings.TrimSpace(docwalk.Str(ft, "copyright")); c != "" {
			v.Copyright = truncate(c, 300)
		}
	}
	if st := d.setting("styling"); st != nil {
		v.FontCSS = h.fontCSS(st["font"])
	}
}

func list(v any, n int) []any {
	l, _ := v.([]any)
	return l[:min(len(l), n)]
}

func truncate(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n])
	}
	return s
}

// contentLink is a CustomizationContentLink ({title, to}) as a link.
func (d *siteData) contentLink(v any) (link, bool) {
	m, _ := v.(map[string]any)
	to, _ := m["to"].(map[string]any)
	l := link{Title: truncate(docwalk.Str(m, "title"), 64), Href: d.contentHref(to)}
	return l, l.Title != "" && l.Href != ""
}

// contentHref is the URL of a setting's content reference: a URL (http,
// https or mailto only), a page of the site space the reader is in, or
// another site space's or space's published address ("" when none).
func (d *siteData) contentHref(ref map[string]any) string {
	switch docwalk.Str(ref, "kind") {
	case "url":
		u := docwalk.Str(ref, "url")
		p, err := url.Parse(u)
		if err != nil || (p.Scheme != "https" && p.Scheme != "http" && p.Scheme != "mailto") {
			return ""
		}
		return u
	case "page":
		if d.content == nil {
			return ""
		}
		if p, ok := d.byID[docwalk.Str(ref, "page")]; ok {
			return d.pageHref(p)
		}
	}
	return ""
}

// imageURL keeps an image URL the page may load: https ones (the site's
// icon and logo are https images, as the content security policy allows).
func (h *Handler) imageURL(u string) string {
	if strings.HasPrefix(u, "https://") {
		return u
	}
	return ""
}

// fontCSS is the @font-face rules and font-family of a custom font setting
// ({id, custom, fontFamily, fontFaces: [{weight, sources: [{url, format}]}]})
// whose files docsapi serves; a default font's name (a GitBook-hosted
// font) keeps the system font stack: the page loads no font from outside.
func (h *Handler) fontCSS(v any) template.CSS {
	f, ok := v.(map[string]any)
	if !ok || f["custom"] != true {
		return ""
	}
	family := docwalk.Str(f, "fontFamily")
	if !fontFamilyName(family) {
		return ""
	}
	var b strings.Builder
	for _, face := range list(f["fontFaces"], 20) {
		fm, _ := face.(map[string]any)
		weight, ok := docwalk.Int(fm, "weight")
		if !ok || weight < 1 || weight > 1000 {
			continue
		}
		var srcs []string
		for _, s := range list(fm["sources"], 4) {
			sm, _ := s.(map[string]any)
			p, ok := h.fontPath(docwalk.Str(sm, "url"))
			if !ok {
				continue
			}
			src := `url("` + p + `")`
			if format := docwalk.Str(sm, "format"); format == "woff2" || format == "woff" {
				src += ` format("` + format + `")`
			}
			srcs = append(srcs, src)
		}
		if len(srcs) == 0 {
			continue
		}
		b.WriteString(`@font-face{font-family:"` + family + `";font-weight:` + strconv.Itoa(weight) + `;font-display:swap;src:` + strings.Join(srcs, ",") + "}")
	}
	if b.Len() == 0 {
		return ""
	}
	b.WriteString(`html{font-family:"` + family + `",system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif}`)
	return template.CSS(b.String())
}

// fontPath is the path of a font file docsapi serves (graph.FontsPath on
// the service's public URL), or false for any other URL.
func (h *Handler) fontPath(u string) (string, bool) {
	pub, err := url.Parse(h.Res.Config.PublicURL)
	if err != nil {
		return "", false
	}
	p, err := url.Parse(u)
	if err != nil || p.RawQuery != "" || p.Fragment != "" {
		return "", false
	}
	if p.IsAbs() && (p.Scheme != pub.Scheme || !strings.EqualFold(p.Host, pub.Host)) || !p.IsAbs() && p.Host != "" {
		return "", false
	}
	prefix := strings.TrimRight(pub.Path, "/") + graph.FontsPath
	rest, ok := strings.CutPrefix(p.Path, prefix)
	if !ok || rest == "" || strings.Contains(rest, "..") || strings.ContainsAny(rest, "\"'\\() ") {
		return "", false
	}
	if p.IsAbs() {
		return pub.Scheme + "://" + pub.Host + p.Path, true
	}
	return p.Path, true
}

// fontFamilyName accepts a font family name safe in a CSS string.
func fontFamilyName(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for _, r := range s {
		if !(r == ' ' || r == '-' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return false
		}
	}
	return true
}
