package graph

import "docsapi/graph/model"

// Site customization: what a published read (`customizations`) says about
// how the site looks. docsapi stores no customization settings, so every
// site answers the defaults below (README "Sites and publishing",
// "Customizations"), taking from the site what it does have: its title and
// its icon (the favicon). The shape is the 0.130.0
// SiteCustomizationSettings with every required field.

// siteCustomization is the SiteCustomizationSettings of site s.
func siteCustomization(s *model.Site) map[string]any {
	themed := func(c string) map[string]any { return map[string]any{"light": c, "dark": c} }
	return map[string]any{
		"title": s.Title,
		"styling": map[string]any{
			"theme":         "clean",
			"primaryColor":  themed("#346DDB"),
			"infoColor":     themed("#787878"),
			"successColor":  themed("#00C950"),
			"warningColor":  themed("#FE9A00"),
			"dangerColor":   themed("#FB2C36"),
			"corners":       "rounded",
			"depth":         "subtle",
			"links":         "default",
			"font":          "Inter",
			"monospaceFont": "IBMPlexMono",
			"background":    "plain",
			"icons":         "regular",
			"sidebar":       map[string]any{"background": "default", "list": "default"},
			"search":        "prominent",
		},
		"internationalization":  map[string]any{"locale": "en"},
		"favicon":               favicon(s.Icon),
		"header":                map[string]any{"preset": "default", "links": []any{}},
		"footer":                map[string]any{"groups": []any{}},
		"themes":                map[string]any{"default": "light", "toggeable": true},
		"pdf":                   map[string]any{"enabled": false},
		"feedback":              map[string]any{"enabled": false},
		"ai":                    map[string]any{"mode": "none"},
		"advancedCustomization": map[string]any{"enabled": false},
		"trademark":             map[string]any{"enabled": true},
		"externalLinks":         map[string]any{"target": "self"},
		"pagination":            map[string]any{"enabled": true},
		"pageActions":           map[string]any{"externalAI": false, "markdown": true},
		"git":                   map[string]any{"showEditLink": false},
		"privacyPolicy":         map[string]any{},
		"socialPreview":         map[string]any{},
		"insights":              map[string]any{"trackingCookie": true},
	}
}

// favicon is the site icon as a CustomizationFavicon: {emoji}, {icon
// {light, dark}}, or {} when the site has none.
func favicon(icon *model.SiteIcon) map[string]any {
	switch {
	case icon == nil:
	case icon.Emoji != nil:
		return map[string]any{"emoji": *icon.Emoji}
	case icon.Icon != nil:
		return map[string]any{"icon": map[string]any{"light": icon.Icon.Light, "dark": icon.Icon.Dark}}
	}
	return map[string]any{}
}
