package graph

import (
	"context"
	"encoding/json"
	"sort"
	"strings"

	"docsapi/apierr"
	"docsapi/graph/model"
	"docsapi/storage"
)

// Stored site customization: a site's SiteCustomizationSettings
// replace the defaults (sitecustomization.go) once set, and each site
// space may override some of them; published reads answer both
// (customizations.site, customizations.siteSpaces). Settings are checked
// first for their top level (these keys, with the messages clients know),
// then whole against 0.130.0's shapes (sitecustomization_shape.go), so
// nothing stored fails a 0.130.0 client's validation when read back.

// customizationKeys are SiteCustomizationSettings' properties, required
// ones true.
var customizationKeys = map[string]bool{
	"title": false, "announcement": false,
	"styling": true, "internationalization": true, "favicon": true, "header": true, "footer": true, "themes": true, "pdf": true,
	"feedback": true, "ai": true, "advancedCustomization": true, "git": true, "pageActions": true, "externalLinks": true,
	"pagination": true, "trademark": true, "privacyPolicy": true, "socialPreview": true, "insights": true,
}

// overrideKeys are what a site space may override.
var overrideKeys = map[string]bool{
	"title": true, "styling": true, "internationalization": true, "favicon": true, "announcement": true, "header": true, "footer": true,
	"themes": true, "pdf": true, "feedback": true, "git": true, "externalLinks": true, "pagination": true, "trademark": true,
	"privacyPolicy": true, "socialPreview": true,
}

func checkSettingsValue(key string, v any) error {
	switch v.(type) {
	case string:
		if key == "title" {
			return nil
		}
	case map[string]any:
		if key != "title" {
			return nil
		}
	}
	if key == "title" {
		return apierr.Invalid(key, "must be a string")
	}
	return apierr.Invalid(key, "must be an object")
}

func checkSiteCustomization(in map[string]any) error {
	for k, v := range in {
		if _, ok := customizationKeys[k]; !ok {
			return apierr.Invalid(k, "is not a site customization setting")
		}
		if err := checkSettingsValue(k, v); err != nil {
			return err
		}
	}
	var missing []string
	for k, required := range customizationKeys {
		if _, ok := in[k]; required && !ok {
			missing = append(missing, k)
		}
	}
	if len(missing) > 0 {
		sort.Strings(missing)
		return apierr.Invalid(missing[0], "is required (missing: %s)", strings.Join(missing, ", "))
	}
	return nil
}

// mergeSettings is base with over laid on it the way 0.130.0's override
// body is shaped: a settings group (styling, header, ...) merges key by
// key, and each value in it, like favicon, is whole and replaces (merging
// two favicons could give one with both icon and emoji, which no shape
// allows).
func mergeSettings(base, over map[string]any) map[string]any {
	out := make(map[string]any, len(base))
	for k, v := range base {
		out[k] = v
	}
	for k, v := range over {
		b, okB := out[k].(map[string]any)
		o, okO := v.(map[string]any)
		if okB && okO && k != "favicon" {
			m := make(map[string]any, len(b)+len(o))
			for bk, bv := range b {
				m[bk] = bv
			}
			for ok, ov := range o {
				m[ok] = ov
			}
			out[k] = m
			continue
		}
		out[k] = v
	}
	return out
}

// layOverrides lays in over the stored overrides cur, groups key by key
// as mergeSettings does; a null removes that override (0.130.0: "Set to
// null to reset the override"), at the top or inside a group, so no null
// reaches a read.
func layOverrides(cur, in map[string]any) map[string]any {
	out := make(map[string]any, len(cur)+len(in))
	for k, v := range cur {
		out[k] = v
	}
	for k, v := range in {
		m, isGroup := v.(map[string]any)
		switch {
		case v == nil:
			delete(out, k)
		case isGroup && k != "favicon":
			c, _ := out[k].(map[string]any)
			g := make(map[string]any, len(c)+len(m))
			for ck, cv := range c {
				g[ck] = cv
			}
			for mk, mv := range m {
				if mv == nil {
					delete(g, mk)
				} else {
					g[mk] = withoutNulls(mv)
				}
			}
			if len(g) == 0 && len(m) > 0 {
				delete(out, k) // every override of the group reset
				continue
			}
			out[k] = g
		default:
			out[k] = withoutNulls(v)
		}
	}
	return out
}

// withoutNulls drops null members of objects, outside lists (a value
// deeper than a group replaces whole, and a null in it means "reset").
func withoutNulls(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			if e != nil {
				out[k] = withoutNulls(e)
			}
		}
		return out
	}
	return v // lists are whole: a null in an item (a header link's "to") is its value
}

func parseSettings(text string) map[string]any {
	var m map[string]any
	json.Unmarshal([]byte(text), &m)
	if m == nil {
		m = map[string]any{}
	}
	return m
}

// siteSettings are a site's settings (stored, else the defaults) and its
// site spaces' overrides by site space id.
func (r *Resolver) siteSettings(ctx context.Context, org storage.Organization, site storage.Site) (map[string]any, map[string]map[string]any, error) {
	stored, err := r.Store.SiteCustomizations(ctx, site.ID)
	if err != nil {
		return nil, nil, err
	}
	settings := siteCustomization(r.siteModel(org, site))
	if text, ok := stored[""]; ok {
		settings = parseSettings(text)
	}
	overrides := map[string]map[string]any{}
	for id, text := range stored {
		if id != "" {
			overrides[id] = parseSettings(text)
		}
	}
	return settings, overrides, nil
}

// publishedCustomizations are customizations of a published read: the
// site's settings and, for each of the structure's site spaces with
// overrides, its merged settings.
func (r *Resolver) publishedCustomizations(ctx context.Context, org storage.Organization, site storage.Site, st storage.SiteStructure) (model.PublishedSiteCustomizations, error) {
	settings, overrides, err := r.siteSettings(ctx, org, site)
	if err != nil {
		return model.PublishedSiteCustomizations{}, err
	}
	out := model.PublishedSiteCustomizations{Site: settings, SiteSpaces: map[string]any{}}
	for _, ss := range st.SiteSpaces {
		if o, ok := overrides[ss.ID]; ok {
			out.SiteSpaces[ss.ID] = mergeSettings(settings, o)
		}
	}
	return out, nil
}

func (r *Resolver) siteCustomizationSettings(ctx context.Context, orgID, siteID string) (map[string]any, error) {
	s, site, err := r.siteScope(ctx, orgID, siteID, "read", "reading site customization")
	if err != nil {
		return nil, err
	}
	settings, _, err := r.siteSettings(ctx, s.Org, site)
	return settings, err
}

func (r *Resolver) updateSiteCustomization(ctx context.Context, orgID, siteID string, in map[string]any) (map[string]any, error) {
	if _, _, err := r.siteScope(ctx, orgID, siteID, "create", "changing site customization"); err != nil {
		return nil, err
	}
	if err := checkSiteCustomization(in); err != nil {
		return nil, err
	}
	if err := checkCustomizationShape("SiteCustomizationSettings", in); err != nil {
		return nil, err
	}
	b, _ := json.Marshal(in)
	ctx = recordChange(ctx, orgID, "site.customization_updated", "site", siteID, map[string]any{})
	if err := r.Store.SetSiteCustomization(ctx, siteID, "", string(b)); err != nil {
		return nil, err
	}
	return in, nil
}

// siteSpaceOf is a site space of the site (404 otherwise).
func (r *Resolver) siteSpaceOf(ctx context.Context, siteID, siteSpaceID string) error {
	st, err := r.Store.SiteStructure(ctx, siteID)
	if err != nil {
		return err
	}
	for _, ss := range st.SiteSpaces {
		if ss.ID == siteSpaceID {
			return nil
		}
	}
	return apierr.NotFound("site space")
}

func (r *Resolver) siteSpaceCustomization(ctx context.Context, orgID, siteID, siteSpaceID string) (map[string]any, error) {
	s, site, err := r.siteScope(ctx, orgID, siteID, "read", "reading site customization")
	if err != nil {
		return nil, err
	}
	if err := r.siteSpaceOf(ctx, siteID, siteSpaceID); err != nil {
		return nil, err
	}
	settings, overrides, err := r.siteSettings(ctx, s.Org, site)
	if err != nil {
		return nil, err
	}
	return mergeSettings(settings, overrides[siteSpaceID]), nil
}

// overrideSiteSpaceCustomization lays in over the site space's overrides:
// a null removes an override, objects merge into the override's.
func (r *Resolver) overrideSiteSpaceCustomization(ctx context.Context, orgID, siteID, siteSpaceID string, in map[string]any) (map[string]any, error) {
	s, site, err := r.siteScope(ctx, orgID, siteID, "create", "changing site customization")
	if err != nil {
		return nil, err
	}
	if err := r.siteSpaceOf(ctx, siteID, siteSpaceID); err != nil {
		return nil, err
	}
	for k, v := range in {
		if !overrideKeys[k] {
			return nil, apierr.Invalid(k, "is not a setting a site space overrides")
		}
		if v != nil {
			if err := checkSettingsValue(k, v); err != nil {
				return nil, err
			}
		}
	}
	if err := checkCustomizationShape(overridesShape, in); err != nil {
		return nil, err
	}
	settings, overrides, err := r.siteSettings(ctx, s.Org, site)
	if err != nil {
		return nil, err
	}
	o := layOverrides(overrides[siteSpaceID], in)
	b, _ := json.Marshal(o)
	ctx = recordChange(ctx, orgID, "site.customization_updated", "site_space", siteSpaceID, map[string]any{"site": siteID})
	if err := r.Store.SetSiteCustomization(ctx, siteID, siteSpaceID, string(b)); err != nil {
		return nil, err
	}
	return mergeSettings(settings, o), nil
}

func (r *Resolver) deleteSiteSpaceCustomization(ctx context.Context, orgID, siteID, siteSpaceID string) (*model.DeleteResult, error) {
	_, _, err := r.siteScope(ctx, orgID, siteID, "create", "changing site customization")
	if apierr.Status(err) == 404 {
		return &model.DeleteResult{Deleted: false}, nil
	}
	if err != nil {
		return nil, err
	}
	ctx = recordChange(ctx, orgID, "site.customization_updated", "site_space", siteSpaceID, map[string]any{"site": siteID, "overrides": nil})
	deleted, err := r.Store.DeleteSiteCustomization(ctx, siteID, siteSpaceID)
	if err != nil {
		return nil, err
	}
	return &model.DeleteResult{Deleted: deleted}, nil
}
