package graph

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"unicode"

	"docsapi/apierr"
	"docsapi/graph/model"
	"docsapi/storage"
)

// Who may do what with sites (README "Sites and publishing"):
//
//   - read a site, its structure, lists, adaptive schema: READ in the
//     organization (a guest may not; an active share key of a published
//     site opens the site-space and section lists to anyone);
//   - create a site, change it, its structure and adaptive schema: CREATE;
//   - change visibility, hostname or proxy, publish, unpublish, delete,
//     manage share links, read or rotate the visitor key, install
//     integrations on it (installations.go, siteTargetAccess): ADMIN.
//
// Published content (GET .../published) follows the site's audience, not
// organization roles.

// Limits of site fields.
const (
	siteTitleMin, siteTitleMax = 2, 128
	basenameMax                = 100
	hostnameMax                = 512
	proxyMax                   = 512
	defaultSiteTitle           = "Untitled site"
)

var (
	// hostnamePattern and proxyPattern are the published interface's.
	hostnamePattern = regexp.MustCompile(`^([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?[.]){2,}[a-z0-9][a-z0-9-]{0,61}[a-z0-9]$`)
	proxyPattern    = regexp.MustCompile(`^([\w-]+\.)*[\w-]+\.[a-zA-Z]{2,}(\/[\w-]+)+$`)
)

// defaultAdaptiveSchema accepts no claims until the site declares some.
const defaultAdaptiveSchema = `{"type":"object","properties":{},"additionalProperties":false}`

// siteScope is a site of an organization read by a caller holding min.
func (r *Resolver) siteScope(ctx context.Context, orgID, siteID string, min model.Role, action string) (orgScope, storage.Site, error) {
	s, err := r.inOrgForSites(ctx, orgID, min, action)
	if err != nil {
		return s, storage.Site{}, err
	}
	site, err := r.Store.Site(ctx, orgID, siteID)
	if err != nil {
		return s, site, notFoundAs(err, "site")
	}
	return s, site, nil
}

// inOrgForSites is inOrgAtLeast; for reads, an installation token needs the
// integration's site:metadata:read scope (its read role alone is not
// enough), and it never gets more than reading.
func (r *Resolver) inOrgForSites(ctx context.Context, orgID string, min model.Role, action string) (orgScope, error) {
	if min == "read" {
		return r.inOrgFor(ctx, orgID, min, action, scopeSiteRead)
	}
	return r.inOrgAtLeast(ctx, orgID, min, action)
}

// siteAnswer reads a site back after a change.
func (r *Resolver) siteAnswer(ctx context.Context, s orgScope, siteID string) (*model.Site, error) {
	site, err := r.Store.Site(ctx, s.Org.ID, siteID)
	if err != nil {
		return nil, notFoundAs(err, "site")
	}
	return r.siteModel(s.Org, site), nil
}

// siteURL is where a site is served (without a trailing slash): the proxy
// origin, the custom hostname, the organization's hostname as a subdomain
// of the public URL followed by the basename, or the public URL followed by
// /sites/<organization>/<basename>.
func (r *Resolver) siteURL(org storage.Organization, s storage.Site) string {
	switch {
	case s.Proxy != nil:
		return "https://" + *s.Proxy
	case s.Hostname != nil:
		return "https://" + *s.Hostname
	}
	return r.siteOwnURL(org, s)
}

// siteOwnURL is the site's URL on the service itself (a proxy's target).
func (r *Resolver) siteOwnURL(org storage.Organization, s storage.Site) string {
	base := r.Config.PublicURL
	if org.Hostname != nil {
		if u, err := url.Parse(base); err == nil && u.Host != "" {
			u.Host = *org.Hostname + "." + u.Host
			return strings.TrimSuffix(u.String(), "/") + "/" + url.PathEscape(s.Basename)
		}
	}
	return base + "/sites/" + org.ID + "/" + url.PathEscape(s.Basename)
}

// publishedURL joins a site URL and path segments (empty ones skipped) and
// carries the share key when there is one.
func publishedURL(base string, shareKey *string, segments ...string) string {
	out := base
	for _, seg := range segments {
		if seg != "" {
			out += "/" + url.PathEscape(seg)
		}
	}
	if shareKey != nil {
		out += "?share=" + url.QueryEscape(*shareKey)
	}
	return out
}

func (r *Resolver) siteModel(org storage.Organization, s storage.Site) *model.Site {
	base := r.Config.PublicURL
	m := &model.Site{
		Object: "site", ID: s.ID, Type: model.SiteType(s.Type), Title: s.Title, Hostname: s.Hostname, Basename: s.Basename,
		Visibility: model.SiteVisibility(s.Visibility), Published: s.Published, SiteSpaces: s.SiteSpaces,
		DefaultSpace: s.DefaultSpaceID, CreatedAt: model.Time(s.CreatedAt), AdaptiveContent: model.SiteAdaptiveContent{Enabled: s.AdaptiveContent},
		Ads: siteAds(s.Type), AgentsContext: model.SiteAgentsContext(s.AgentsContext), Features: siteFeatures(s.Type),
		Urls: model.SiteURLs{Location: base + "/v1/orgs/" + org.ID + "/sites/" + s.ID, App: base + "/o/" + org.ID + "/sites/" + s.ID},
	}
	if s.Icon != nil {
		var icon model.SiteIcon
		if json.Unmarshal([]byte(*s.Icon), &icon) == nil {
			m.Icon = &icon
		}
	}
	if s.Proxy != nil {
		m.Proxy = &model.SiteProxy{Origin: *s.Proxy, Target: r.siteOwnURL(org, s)}
	}
	if s.Published {
		m.Urls.Published = ptr(r.siteURL(org, s))
	}
	return m
}

// siteAds: ads are pending everywhere; only sponsored sites may submit
// them for review.
func siteAds(siteType string) model.SiteAds {
	return model.SiteAds{Status: "pending", Submittable: ptr(siteType == "sponsored")}
}

// planFeatures is what each plan adds to the one below it (basic <
// premium < ultimate; sponsored is basic with ads).
var planFeatures = map[string][]model.SiteFeatureKey{
	"basic": {"sites-public-visibility", "sites-unlisted-visibility", "sites-basic-customization", "sites-full-text-search",
		"sites-page-feedback", "sites-pdf-export", "sites-seo", "sites-no-custom-domain"},
	"premium": {"sites-custom-domain", "sites-custom-subdirectory", "sites-share-links", "sites-sections", "sites-advanced-customization",
		"sites-custom-fonts", "sites-ai-search", "sites-api-playground", "sites-redirects", "sites-page-traffic-insights", "sites-search-insights"},
	"ultimate": {"sites-visitor-authentication", "sites-adaptive-content", "sites-ai-assistant", "sites-advanced-insights",
		"sites-preview-deployments", "sites-user-contribution", "sites-visitors", "sites-multivariant-site"},
	"sponsored": {"sites-ads"},
}

// siteFeatures lists the features of a site type with the plan each belongs
// to. Legacy types keep their plan's features frozen.
func siteFeatures(siteType string) []*model.SiteFeature {
	var plans []string
	frozen := false
	switch siteType {
	case "premium":
		plans = []string{"basic", "premium"}
	case "ultimate":
		plans = []string{"basic", "premium", "ultimate"}
	case "sponsored":
		plans = []string{"basic", "sponsored"}
	case "legacy-basic":
		plans, frozen = []string{"basic"}, true
	case "legacy-premium":
		plans, frozen = []string{"basic", "premium"}, true
	default:
		plans = []string{"basic"}
	}
	var out []*model.SiteFeature
	for _, plan := range plans {
		for _, id := range planFeatures[plan] {
			if id == "sites-no-custom-domain" && len(plans) > 1 && plans[1] == "premium" {
				continue // a custom domain replaces it
			}
			// customizations lists advanced customizations in use: none,
			// as docsapi keeps no customization settings.
			out = append(out, &model.SiteFeature{ID: id, Plan: model.SiteType(plan), Frozen: frozen})
		}
	}
	return out
}

// slug makes a path or basename out of a title: lower-case letters, digits
// and dashes, at most max characters; fallback when nothing is left.
func slug(title, fallback string, max int) string {
	var b strings.Builder
	dash := false
	for _, c := range strings.ToLower(title) {
		switch {
		case c < unicode.MaxASCII && (unicode.IsLetter(c) || unicode.IsDigit(c)):
			b.WriteRune(c)
			dash = false
		case !dash && b.Len() > 0:
			b.WriteByte('-')
			dash = true
		}
	}
	s := strings.Trim(b.String(), "-")
	if len(s) > max {
		s = strings.Trim(s[:max], "-")
	}
	if s == "" {
		return fallback
	}
	return s
}

// suffixRoom is the room withSuffix keeps for "-<n>": every name it makes
// for fewer than 10^7 siblings starts with the base's first max-suffixRoom
// characters.
const suffixRoom = 8

// uniqueName is base, or base-2, base-3... the first not taken, within max
// characters.
func uniqueName(base string, max int, taken func(string) bool) string {
	for i := 1; ; i++ {
		if name := withSuffix(base, i, max); !taken(name) {
			return name
		}
	}
}

// withSuffix is base for i = 1 and base-i after, within max characters.
func withSuffix(base string, i, max int) string {
	if i == 1 {
		return base
	}
	suffix := "-" + itoa(i)
	if len(base)+len(suffix) > max {
		base = base[:max-len(suffix)]
	}
	return base + suffix
}

// newSecret is 256 random bits, base64url.
func newSecret() string {
	b := make([]byte, 32)
	rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// checkHostname validates a custom hostname.
func checkHostname(field, v string) error {
	return firstErr(checkLen(field, v, 1, hostnameMax), checkPattern(field, v, hostnamePattern))
}

// siteIconJSON validates an icon input and returns its stored JSON (nil:
// no icon).
func siteIconJSON(in *model.SiteIconInput) (*string, error) {
	if in == nil {
		return nil, nil
	}
	icon := model.SiteIcon{Emoji: in.Emoji}
	switch {
	case in.Emoji != nil && in.Icon != nil:
		return nil, apierr.Invalid("icon", "give either emoji or icon, not both")
	case in.Emoji != nil:
		if err := checkEmoji("icon.emoji", *in.Emoji); err != nil {
			return nil, err
		}
	case in.Icon != nil:
		if err := firstErr(checkURL("icon.icon.light", in.Icon.Light, iconURLMax), checkURL("icon.icon.dark", in.Icon.Dark, iconURLMax)); err != nil {
			return nil, err
		}
		icon.Icon = &model.SiteThemedURL{Light: in.Icon.Light, Dark: in.Icon.Dark}
	}
	b, _ := json.Marshal(icon)
	return ptr(string(b)), nil
}

// siteUpdateError maps the storage refusals of a site change.
func siteUpdateError(err error, basename, hostname *string) error {
	switch {
	case errors.Is(err, storage.ErrBasenameTaken):
		return apierr.Conflict("basename: %q is already used by another site of the organization", deref(basename))
	case errors.Is(err, storage.ErrHostnameTaken):
		return apierr.Conflict("hostname: %q is already used by another site", deref(hostname))
	}
	return notFoundAs(err, "site")
}

// visibleSpace loads a live space of orgID that the caller can see, for a
// body field; anything else is a 400 naming the field.
func (r *Resolver) visibleSpace(ctx context.Context, a *contentAccess, orgID, field, id string) (storage.Space, error) {
	sp, err := r.Store.Space(ctx, id)
	if err == nil && sp.OrganizationID == orgID {
		err = a.primeSpaces(sp.ID)
	}
	if err != nil && !errors.Is(err, storage.ErrNotFound) {
		return sp, err
	}
	if err != nil || sp.OrganizationID != orgID || sp.DeletedAt != nil || a.spaceRole(sp) == 0 {
		return sp, apierr.Invalid(field, "no space %q in this organization", id)
	}
	return sp, nil
}

// createSite is the createSite mutation: the site, its root site spaces
// (the given spaces, or a new one) and a unique basename.
func (r *Resolver) createSite(ctx context.Context, orgID string, in model.CreateSiteInput) (*model.Site, error) {
	s, err := r.inOrgAtLeast(ctx, orgID, "create", "creating a site")
	if err != nil {
		return nil, err
	}
	site := storage.Site{OrganizationID: orgID, Type: "basic", Title: defaultSiteTitle, Visibility: "public", AgentsContext: "included",
		AdaptiveSchema: defaultAdaptiveSchema, VisitorSecret: newSecret()}
	if in.Type != nil {
		if err := checkEnum("type", *in.Type, model.SiteTypes.List()); err != nil {
			return nil, err
		}
		site.Type = string(*in.Type)
	}
	if in.Title != nil {
		if err := checkLen("title", *in.Title, siteTitleMin, siteTitleMax); err != nil {
			return nil, err
		}
		site.Title = *in.Title
	}
	if in.Visibility != nil {
		if err := checkEnum("visibility", *in.Visibility, model.SiteVisibilities.List()); err != nil {
			return nil, err
		}
		site.Visibility = string(*in.Visibility)
	}
	var newSpace *storage.Space
	var spaces []storage.SiteSpace
	taken := map[string]bool{}
	addSpace := func(spaceID, title string) {
		path := uniqueName(slug(title, "space", sitePathMax), sitePathMax, func(p string) bool { return taken[p] })
		taken[path] = true
		spaces = append(spaces, storage.SiteSpace{SpaceID: spaceID, Path: path})
	}
	switch {
	case in.NewSpace != nil && len(in.Spaces) > 0:
		return nil, apierr.Invalid("spaces", "give either space ids or %s", model.SiteNewSpaces.List())
	case in.NewSpace != nil:
		if err := checkEnum("spaces", *in.NewSpace, model.SiteNewSpaces.List()+" or an array of space ids"); err != nil {
			return nil, err
		}
		title := []rune(site.Title)
		if len(title) > spaceTitleMax {
			title = title[:spaceTitleMax]
		}
		newSpace = &storage.Space{OrganizationID: orgID, Title: string(title), Visibility: "private", EditMode: "live", DefaultLevel: ptr("inherit")}
		addSpace("", newSpace.Title)
	case len(in.Spaces) > 0:
		_, a, err := r.orgContent(ctx, orgID)
		if err != nil {
			return nil, err
		}
		for i, id := range in.Spaces {
			sp, err := r.visibleSpace(ctx, a, orgID, "spaces["+itoa(i)+"]", id)
			if err != nil {
				return nil, err
			}
			addSpace(sp.ID, sp.Title)
		}
	}
	// The basename comes from the title; a taken one gets the first free
	// numeric suffix, chosen in the write itself so it is always free.
	base := slug(site.Title, "site", basenameMax)
	choice := &storage.NameChoice{Prefix: base[:min(len(base), basenameMax-suffixRoom)], Choose: func(taken map[string]bool) string {
		return uniqueName(base, basenameMax, func(n string) bool { return taken[n] })
	}}
	ctx = storage.Recording(ctx, func() []storage.Change {
		return []storage.Change{{OrganizationID: orgID, Action: "site.created", TargetType: "site", TargetID: site.ID,
			Fields: map[string]any{"title": site.Title, "type": site.Type, "visibility": site.Visibility}}}
	})
	if err := r.Store.CreateSite(ctx, &site, newSpace, spaces, choice); err != nil {
		return nil, err
	}
	if in.NewSpace != nil && *in.NewSpace == "sample" {
		// The sample content is the getting-started template, applied as
		// the space's next revision (the site and its space exist already
		// if this fails; the error says so).
		if _, err := r.applyTemplate(ctx, newSpace.ID, model.ApplyTemplateInput{ID: sampleTemplate}); err != nil {
			return nil, fmt.Errorf("site %s created, but its sample content could not be added: %w", site.ID, err)
		}
	}
	return r.siteAnswer(ctx, s, site.ID)
}

// sampleTemplate fills the new space of a site created with spaces "sample".
const sampleTemplate = "getting-started"

// deref2 reads a set-or-cleared field.
func deref2(p **string) *string {
	if p == nil {
		return nil
	}
	return *p
}

// setPublished publishes or unpublishes a site (ADMIN).
func (r *Resolver) setPublished(ctx context.Context, orgID, siteID string, published bool) (*model.Site, error) {
	s, _, err := r.siteScope(ctx, orgID, siteID, "admin", "publishing or unpublishing a site")
	if err != nil {
		return nil, err
	}
	action := "site.published"
	if !published {
		action = "site.unpublished"
	}
	ctx = recordChange(ctx, orgID, action, "site", siteID, nil)
	if err := r.Store.UpdateSite(ctx, orgID, siteID, storage.SitePatch{Published: &published}); err != nil {
		return nil, notFoundAs(err, "site")
	}
	return r.siteAnswer(ctx, s, siteID)
}
