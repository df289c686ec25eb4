package rest_test

import (
	"testing"
)

// customizationKeys are the fields SiteCustomizationSettings (0.130.0)
// requires, plus title, which docsapi fills from the site.
var customizationKeys = []string{"title", "styling", "internationalization", "favicon", "header", "footer", "themes", "pdf", "feedback", "ai",
	"advancedCustomization", "trademark", "externalLinks", "pagination", "pageActions", "git", "privacyPolicy", "socialPreview", "insights"}

// A published read carries the site's customization settings (the
// documented defaults, with the site's title and icon), no site-space
// overrides, and an empty scripts list; GraphQL answers the same.
func TestPublishedSiteCustomizations(t *testing.T) {
	c := newSiteEnv(t)
	admin := c.Admin.Token
	a := c.space(admin, map[string]any{"title": "Guide"})
	b := c.space(admin, map[string]any{"title": "API"})
	site := c.site(map[string]any{"title": "Developer Docs", "visibility": "public", "spaces": []string{a, b}})
	c.Must(200, "PATCH", site, admin, map[string]any{"icon": map[string]any{"emoji": "📘"}})
	c.Must(200, "POST", site+"/publish", admin, nil)

	obj := c.Must(200, "GET", site+"/published", admin, nil).JSON()
	custom := obj["customizations"].(map[string]any)
	s := custom["site"].(map[string]any)
	for _, k := range customizationKeys {
		if _, ok := s[k]; !ok {
			t.Errorf("customizations.site lacks %s: %v", k, s)
		}
	}
	styling := s["styling"].(map[string]any)
	if s["title"] != "Developer Docs" || s["favicon"].(map[string]any)["emoji"] != "📘" || styling["theme"] != "clean" ||
		styling["primaryColor"].(map[string]any)["light"] != "#346DDB" || s["internationalization"].(map[string]any)["locale"] != "en" {
		t.Errorf("customizations.site %v", s)
	}
	if spaces, ok := custom["siteSpaces"].(map[string]any); !ok || len(spaces) != 0 {
		t.Errorf("site space overrides %v, want {}", custom["siteSpaces"])
	}
	if scripts, ok := obj["scripts"].([]any); !ok || len(scripts) != 0 {
		t.Errorf("scripts %v", obj["scripts"])
	}

	// No icon: favicon {}.
	c.Must(200, "PATCH", site, admin, map[string]any{"icon": nil})
	obj = c.Must(200, "GET", site+"/published", admin, nil).JSON()
	if f := obj["customizations"].(map[string]any)["site"].(map[string]any)["favicon"].(map[string]any); len(f) != 0 {
		t.Errorf("favicon without an icon %v", f)
	}
	data := gqlData(t, c.Env, admin, `query($o: ID!, $s: ID!) { publishedContentSite(organizationId: $o, siteId: $s) { customizations { site siteSpaces } scripts { script cookies } } }`,
		map[string]any{"o": c.Org, "s": obj["site"].(map[string]any)["id"]})
	sameJSON(t, "customizations", obj["customizations"], data["publishedContentSite"].(map[string]any)["customizations"])
	sameJSON(t, "scripts", obj["scripts"], data["publishedContentSite"].(map[string]any)["scripts"])
}
