package site

import (
	"encoding/json"
	"strings"
	"testing"

	"docsapi/graph"
	"docsapi/graph/model"
)

// FuzzCustomization reads any customization settings (an admin's JSON) into
// a page's header, footer and font CSS: no panic, the CSS cannot close its
// <style> or load a file other than docsapi's fonts, and links are web or
// mail addresses or the site's pages only.
func FuzzCustomization(f *testing.F) {
	f.Add([]byte(`{"header":{"links":[{"title":"A","to":{"kind":"url","url":"https://a.test/"},"links":[{"title":"B","to":{"kind":"url","url":"javascript:x"}}]}]},` +
		`"footer":{"groups":[{"title":"G","links":[{"title":"L","to":{"kind":"page","page":"p1"}}]}],"copyright":"c","logo":{"light":"https://l.test/x.png"}},` +
		`"styling":{"font":{"custom":true,"fontFamily":"Acme Sans","fontFaces":[{"weight":400,"sources":[{"url":"http://docs.test/fonts/f/a.woff2","format":"woff2"},{"url":"https://evil.test/x.woff2"}]}]}}}`))
	f.Add([]byte(`{"styling":{"font":{"custom":true,"fontFamily":"x\"}</style><script>","fontFaces":[{"weight":1e9,"sources":[{"url":"/fonts/a\")}body{x:url(y"}]}]}}}`))
	h := &Handler{Res: &graph.Resolver{Config: graph.Config{PublicURL: "http://docs.test"}}}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<16 {
			return
		}
		var settings map[string]any
		if json.Unmarshal(data, &settings) != nil {
			return
		}
		d := &siteData{rc: resolved{lookup: graph.VisitorLookup{PublishedSiteContentLookup: &model.PublishedSiteContentLookup{}}},
			site:    &model.PublishedContentSite{Customizations: model.PublishedSiteCustomizations{Site: settings}},
			content: newContent(&model.Revision{}, "/s/")}
		v := &view{}
		h.customize(d, v)
		css := string(v.FontCSS)
		if strings.Contains(css, "<") || strings.Contains(css, "\\") {
			t.Fatalf("CSS %q", css)
		}
		for rest := css; ; {
			i := strings.Index(rest, "url(")
			if i < 0 {
				break
			}
			rest = rest[i+4:]
			if !strings.HasPrefix(rest, `"http://docs.test/fonts/`) && !strings.HasPrefix(rest, `"/fonts/`) {
				t.Fatalf("font file elsewhere: %q", css)
			}
		}
		var links []link
		for _, l := range v.HeaderLinks {
			links = append(links, l)
			links = append(links, l.Children...)
		}
		for _, g := range v.FooterGroups {
			links = append(links, g.Links...)
		}
		for _, l := range links {
			if l.Href != "" && !strings.HasPrefix(l.Href, "https://") && !strings.HasPrefix(l.Href, "http://") && !strings.HasPrefix(l.Href, "mailto:") && !strings.HasPrefix(l.Href, "/s/") {
				t.Fatalf("link %q", l.Href)
			}
		}
		if len(v.HeaderLinks) > maxCustomLinks || len(v.FooterGroups) > maxCustomLinks {
			t.Fatalf("%d header links, %d footer groups", len(v.HeaderLinks), len(v.FooterGroups))
		}
	})
}
