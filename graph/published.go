package graph

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/url"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"docsapi/apierr"
	"docsapi/auth"
	"docsapi/graph/model"
	"docsapi/storage"
)

// Published content for readers: a renderer resolves a reader's URL to the
// site content it names (resolvePublishedContentByUrl) and then reads that
// content with the lookup's apiToken, a short-lived JWT naming the site,
// the share key the URL used and the visitor's claims. Such a token is a
// caller of kind auth.KindSite: callerOf refuses it everywhere, and only
// the published reads (audienceOf, spaceScope) take it through readerOf.

// DefaultSiteTokenTTL is the lifetime of an apiToken (Config.SiteTokenTTL).
const DefaultSiteTokenTTL = time.Hour

func (r *Resolver) siteTokenTTL() time.Duration {
	if r.Config.SiteTokenTTL > 0 {
		return r.Config.SiteTokenTTL
	}
	return DefaultSiteTokenTTL
}

// errSiteTokenElsewhere refuses a site's apiToken outside that site's
// published reads.
func errSiteTokenElsewhere() error {
	return apierr.Forbidden("this token is a site's apiToken: it reads only that site's published content")
}

// readerOf is callerOf for the published reads: it also accepts a site's
// apiToken (the reads check that it is theirs).
func readerOf(ctx context.Context) (auth.Caller, error) {
	c, ok := auth.CallerFrom(ctx)
	if !ok {
		return c, apierr.Unauthorized("missing or invalid bearer token")
	}
	return c, nil
}

// SiteTokenCaller verifies an apiToken (auth.Authenticator.AcceptSiteTokens):
// signed by this server, kind "site", not expired.
func (r *Resolver) SiteTokenCaller(ctx context.Context, token string) (auth.Caller, error) {
	claims, err := r.Signer.VerifyAt(ctx, token, r.Now)
	if errors.Is(err, jwt.ErrTokenExpired) {
		return auth.Caller{}, apierr.Unauthorized("apiToken expired")
	}
	if err != nil {
		return auth.Caller{}, apierr.Unauthorized("missing or invalid bearer token")
	}
	kind, _ := claims["kind"].(string)
	site, _ := claims["site"].(string)
	org, _ := claims["organization"].(string)
	if kind != auth.KindSite || site == "" || org == "" {
		return auth.Caller{}, apierr.Unauthorized("missing or invalid bearer token")
	}
	g := &auth.SiteGrant{SiteID: site}
	if k, ok := claims["shareKey"].(string); ok {
		g.ShareKey = &k
	}
	g.Claims, _ = claims["claims"].(map[string]any)
	// TokenID keys the rate limiter: a site's readers share its budget.
	return auth.Caller{Kind: auth.KindSite, TokenID: "site:" + site, OrganizationID: org, Site: g}, nil
}

// siteToken mints the apiToken of an audience.
func (r *Resolver) siteToken(ctx context.Context, a audience) (string, error) {
	now := r.Now()
	claims := jwt.MapClaims{"kind": auth.KindSite, "site": a.site.ID, "organization": a.org.ID,
		"iat": now.Unix(), "exp": now.Add(r.siteTokenTTL()).Unix(), "claims": a.claims}
	if a.claims == nil {
		claims["claims"] = map[string]any{}
	}
	if a.shareKey != nil {
		claims["shareKey"] = *a.shareKey
	}
	return r.Signer.Sign(ctx, claims)
}

// visibleTo is the condition test of a site's published structure for a
// visitor: every item without adaptive content, else the items whose
// condition holds for the claims.
func visibleTo(site storage.Site, claims map[string]any) func(*string) bool {
	if !site.AdaptiveContent {
		return func(*string) bool { return true }
	}
	caches.init()
	if claims == nil {
		claims = map[string]any{}
	}
	e := caches.conditions.NewEvaluator(map[string]any{"claims": claims})
	return func(c *string) bool { return c == nil || e.Eval(*c) }
}

// siteAtURL is a site found from a URL, with the URL's path split around
// the site's root.
type siteAtURL struct {
	site     storage.Site
	basePath string   // the site's root in the URL, "/" or "/a/b/"
	rest     []string // the path's segments after the root, unescaped
}

// segments splits a path into its non-empty segments.
func segments(p string) []string {
	var out []string
	for _, s := range strings.Split(p, "/") {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

// hasPrefix tells whether segs starts with prefix.
func hasPrefix(segs, prefix []string) bool {
	if len(prefix) > len(segs) {
		return false
	}
	for i := range prefix {
		if segs[i] != prefix[i] {
			return false
		}
	}
	return true
}

// pathOf is segments joined as a URL path with leading and trailing slash.
func pathOf(segs []string) string {
	out := "/"
	for _, s := range segs {
		out += url.PathEscape(s) + "/"
	}
	return out
}

// findSiteAtURL finds the published site a URL is in: by the site's
// hostname, its proxy origin (the longest that prefixes the URL), the
// service's own published base (PublicURL/sites/<organization>/<basename>)
// or an organization's subdomain of it (<hostname>.<public host>/<basename>);
// the same forms siteURL writes.
func (r *Resolver) findSiteAtURL(ctx context.Context, u *url.URL) (siteAtURL, bool, error) {
	host := strings.ToLower(u.Hostname())
	segs := segments(u.Path)
	sites, err := r.Store.SitesAtHost(ctx, host)
	if err != nil {
		return siteAtURL{}, false, err
	}
	var best *siteAtURL
	for _, s := range sites {
		if s.Hostname != nil && strings.EqualFold(*s.Hostname, host) {
			return siteAtURL{site: s, basePath: "/", rest: segs}, true, nil
		}
		if s.Proxy == nil {
			continue
		}
		prefix := segments(strings.ToLower((*s.Proxy)[len(host):]))
		if hasPrefix(lowered(segs), prefix) && (best == nil || len(prefix) > len(segments(best.basePath))) {
			best = &siteAtURL{site: s, basePath: pathOf(segs[:len(prefix)]), rest: segs[len(prefix):]}
		}
	}
	if best != nil {
		return *best, true, nil
	}
	pub, err := url.Parse(r.Config.PublicURL)
	if err != nil || pub.Host == "" {
		return siteAtURL{}, false, nil
	}
	pubHost, pubSegs := strings.ToLower(pub.Hostname()), segments(pub.Path)
	if u.Port() != pub.Port() && u.Port() != "" && pub.Port() != "" {
		return siteAtURL{}, false, nil
	}
	var orgID string
	var prefix []string
	switch {
	case host == pubHost && hasPrefix(segs, append(pubSegs, "sites")) && len(segs) >= len(pubSegs)+3:
		orgID = segs[len(pubSegs)+1]
		prefix = segs[:len(pubSegs)+3]
	case strings.HasSuffix(host, "."+pubHost) && hasPrefix(segs, pubSegs) && len(segs) > len(pubSegs):
		if orgID, err = r.Store.OrganizationIDByHostname(ctx, strings.TrimSuffix(host, "."+pubHost)); err != nil {
			return siteAtURL{}, false, ignoreNotFound(err)
		}
		prefix = segs[:len(pubSegs)+1]
	default:
		return siteAtURL{}, false, nil
	}
	s, err := r.Store.SiteByBasename(ctx, orgID, prefix[len(prefix)-1])
	if err != nil || !s.Published {
		return siteAtURL{}, false, ignoreNotFound(err)
	}
	return siteAtURL{site: s, basePath: pathOf(prefix), rest: segs[len(prefix):]}, true, nil
}

func lowered(segs []string) []string {
	out := make([]string, len(segs))
	for i, s := range segs {
		out[i] = strings.ToLower(s)
	}
	return out
}

func ignoreNotFound(err error) error {
	if errors.Is(err, storage.ErrNotFound) {
		return nil
	}
	return err
}

// errNoPublishedContent is the 404 of a URL that names no published content.
func errNoPublishedContent() error { return apierr.NotFound("published content at this URL") }

// resolvePublishedContent resolves a reader's URL: the site, then its
// section (a path segment naming a section, else the default one), its
// site space (a segment naming a variant, else the section's default), and
// the page path that is left. The visitor must be in the site's audience
// (share key from the URL's share parameter, visitor token, adaptive
// claims); with redirectOnError a refusal answers a redirect to the
// service instead.
func (r *Resolver) resolvePublishedContent(ctx context.Context, in model.ResolvePublishedContentByURLInput) (*model.PublishedSiteContentLookup, error) {
	if _, err := callerOf(ctx); err != nil {
		return nil, err
	}
	if strings.TrimSpace(in.URL) == "" {
		return nil, apierr.Invalid("url", "is required")
	}
	u, err := url.Parse(in.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, apierr.Invalid("url", "must be an absolute http(s) URL")
	}
	var refusedBy storage.Site // the site that refused the visitor, when one did
	out, err := r.resolveURL(ctx, u, in.Visitor, &refusedBy)
	if err != nil && in.RedirectOnError != nil && *in.RedirectOnError {
		if e, ok := apierr.As(err); ok && e.Status < 500 && e.Status != 400 {
			// A visitor-auth site sends its refused visitors to its fallback
			// URL; otherwise the service's own page (docsapi has no sign-in
			// page of its own).
			if fallback := r.visitorFallback(ctx, refusedBy); fallback != "" {
				return &model.PublishedSiteContentLookup{Target: ptr("external"), Redirect: &fallback}, nil
			}
			return &model.PublishedSiteContentLookup{Target: ptr("application"), Redirect: ptr(r.Config.PublicURL + "/")}, nil
		}
	}
	return out, err
}

// resolveURL resolves u; site (when not nil) is set to the URL's site
// once one is found.
func (r *Resolver) resolveURL(ctx context.Context, u *url.URL, visitor *model.SiteVisitorPayloadInput, site *storage.Site) (*model.PublishedSiteContentLookup, error) {
	found, ok, err := r.findSiteAtURL(ctx, u)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, errNoPublishedContent()
	}
	if site != nil {
		*site = found.site
	}
	var shareKey, token *string
	if q := u.Query(); q.Has("share") {
		shareKey = ptr(q.Get("share"))
	} else if key, ok := r.shareKeySegment(ctx, found); ok {
		// GitBook writes a share link as the path segment after the site's
		// root (docs.example.com/<key>/<page>), and its renderer drops query
		// strings before it resolves a URL: a live key of this site there
		// is read as the share key, and the site's root moves past it.
		shareKey = &key
		found.rest = found.rest[1:]
		found.basePath += key + "/"
	}
	if visitor != nil && visitor.JwtToken != nil && *visitor.JwtToken != "" {
		token = visitor.JwtToken
	}
	var unsigned map[string]any
	if visitor != nil {
		unsigned = visitor.UnsignedClaims
	}
	a, err := r.audienceWith(ctx, found.site.OrganizationID, found.site.ID, shareKey, token, unsigned)
	if err != nil {
		return nil, err
	}
	st, err := r.Store.SiteStructure(ctx, a.site.ID)
	if err != nil {
		return nil, notFoundAs(err, "published content at this URL")
	}
	visible := visibleTo(a.site, a.claims)
	place, ok := publishedPlace(a.site, st, visible, found.rest)
	if !ok {
		return nil, errNoPublishedContent()
	}
	sp, err := r.Store.Space(ctx, place.siteSpace.SpaceID)
	if err != nil || sp.DeletedAt != nil {
		return nil, errNoPublishedContent()
	}
	pagePath := strings.Join(place.pagePath, "/")
	complete := pagePath == ""
	if !complete {
		if _, err := r.Store.RevisionPage(ctx, sp.RevisionID, pagePath, true); err == nil {
			complete = true
		} else if !errors.Is(err, storage.ErrNotFound) {
			return nil, err
		}
	}
	if !complete {
		if to, ok, err := r.siteRedirectTarget(ctx, a, strings.TrimSuffix(pathOf(found.rest), "/")); err != nil {
			return nil, err
		} else if ok {
			return &model.PublishedSiteContentLookup{Target: ptr("content"), Redirect: &to}, nil
		}
	}
	tok, err := r.siteToken(ctx, a)
	if err != nil {
		return nil, err
	}
	basePath := found.basePath + strings.TrimPrefix(pathOf(place.consumed), "/")
	canonical := publishedURL(r.siteURL(a.org, a.site), nil, append(append([]string{}, place.consumed...), place.pagePath...)...)
	out := &model.PublishedSiteContentLookup{
		Site: &a.site.ID, SiteSpace: &place.siteSpace.ID, Space: &sp.ID, Organization: &a.org.ID,
		Pathname: &pagePath, BasePath: &basePath, SiteBasePath: ptr(found.basePath), APIToken: &tok,
		ShareKey: a.shareKey, Complete: &complete, CanonicalURL: &canonical,
	}
	if place.section != nil {
		out.SiteSection = &place.section.ID
	}
	if len(a.claims) > 0 {
		b, _ := json.Marshal(a.claims) // map keys sorted: the same claims, the same id
		sum := sha256.Sum256(b)
		out.ContextID = ptr(hex.EncodeToString(sum[:12]))
	}
	return out, nil
}

// shareKeySegment is the first path segment after a share-link site's
// root when it is a live share key of that site.
func (r *Resolver) shareKeySegment(ctx context.Context, found siteAtURL) (string, bool) {
	if found.site.Visibility != "share-link" || len(found.rest) == 0 {
		return "", false
	}
	l, err := r.liveShareLink(ctx, found.rest[0])
	if err != nil || l.SiteID != found.site.ID {
		return "", false
	}
	return found.rest[0], true
}

// place is where a URL path leads in a site's structure.
type place struct {
	section   *storage.SiteSection
	siteSpace storage.SiteSpace
	consumed  []string // the section and variant segments
	pagePath  []string
}

// publishedPlace walks a path through the structure the visitor sees: a
// first segment naming a shown section other than the default one picks
// it, then a segment naming a shown site space other than the default
// picks that variant; the rest is the page path. ok is false when the
// visitor sees nothing to read.
func publishedPlace(site storage.Site, st storage.SiteStructure, visible func(*string) bool, rest []string) (place, bool) {
	var p place
	shownSpaces := func(section *string) []storage.SiteSpace {
		var out []storage.SiteSpace
		for _, ss := range st.SiteSpaces {
			if samePtr(ss.SectionID, section) && ss.Space.DeletedAt == nil && visible(ss.Condition) {
				out = append(out, ss)
			}
		}
		return out
	}
	defaultSpace := st.DefaultSiteSpaceID
	var spaces []storage.SiteSpace
	if len(st.Sections) > 0 {
		var shown []storage.SiteSection
		for _, sec := range st.Sections {
			if visible(sec.Condition) && len(shownSpaces(&sec.ID)) > 0 {
				shown = append(shown, sec)
			}
		}
		if len(shown) == 0 {
			return p, false
		}
		def := shown[0]
		for _, sec := range shown {
			if sec.ID == deref(site.DefaultSectionID) {
				def = sec
			}
		}
		p.section = &def
		if len(rest) > 0 {
			for _, sec := range shown {
				if sec.ID != def.ID && sec.Path == rest[0] {
					p.section = &sec
					p.consumed, rest = rest[:1], rest[1:]
					break
				}
			}
		}
		spaces, defaultSpace = shownSpaces(&p.section.ID), p.section.DefaultSiteSpaceID
	} else {
		spaces = shownSpaces(nil)
	}
	if len(spaces) == 0 {
		return p, false
	}
	def := spaces[0]
	for _, ss := range spaces {
		if ss.ID == deref(defaultSpace) {
			def = ss
		}
	}
	p.siteSpace = def
	if len(rest) > 0 {
		for _, ss := range spaces {
			if ss.ID != def.ID && ss.Path == rest[0] {
				p.siteSpace = ss
				p.consumed, rest = append(p.consumed, rest[0]), rest[1:]
				break
			}
		}
	}
	p.pagePath = rest
	return p, true
}

// siteTokenSpace is spaceScope for a site's apiToken: the space must be
// one the token's visitor sees in its site (403 for a space outside the
// site, 404 for one the visitor's claims hide), read with the read role.
func (r *Resolver) siteTokenSpace(ctx context.Context, c auth.Caller, spaceID string, trashed bool) (storage.Space, ContentScope, error) {
	s := ContentScope{Caller: c, Access: newContentAccess(storage.AccessData{}), Role: roleRank["read"], what: "space"}
	if trashed {
		return storage.Space{}, s, errSiteTokenElsewhere()
	}
	a, err := r.audienceOf(ctx, c.OrganizationID, c.Site.SiteID, nil, nil)
	if err != nil {
		return storage.Space{}, s, err
	}
	st, err := r.Store.SiteStructure(ctx, a.site.ID)
	if err != nil {
		return storage.Space{}, s, notFoundAs(err, "space")
	}
	visible := visibleTo(a.site, a.claims)
	sections := map[string]bool{}
	for _, sec := range st.Sections {
		sections[sec.ID] = visible(sec.Condition)
	}
	inSite := false
	for _, ss := range st.SiteSpaces {
		if ss.SpaceID != spaceID {
			continue
		}
		inSite = true
		if visible(ss.Condition) && (ss.SectionID == nil || sections[*ss.SectionID]) {
			sp, err := r.Store.Space(ctx, spaceID)
			if err != nil || sp.DeletedAt != nil {
				return sp, s, apierr.NotFound("space")
			}
			return sp, s, nil
		}
	}
	if !inSite {
		return storage.Space{}, s, errSiteTokenElsewhere()
	}
	return storage.Space{}, s, apierr.NotFound("space")
}

// pageDocument is a page's document in a revision (evaluated
// or not: docsapi documents hold no expressions to evaluate, so both
// answer the stored document).
func (r *Resolver) pageDocument(ctx context.Context, spaceID, revisionID, pageID string) (any, error) {
	format := model.PageFormat("document")
	p, err := r.Query().SpacePage(wholeRead(ctx), spaceID, &pageID, nil, &revisionID, nil, &format, nil, nil, nil)
	if err != nil {
		return nil, err
	}
	if p.Document == nil {
		// Groups and links have no body: an empty document.
		return map[string]any{"object": "document", "data": map[string]any{}, "nodes": []any{}}, nil
	}
	return p.Document, nil
}

// siteTokenSpec is openAPISpecFor for a site's apiToken: the public specs
// of its site's organization, while the site is published to the token's
// visitor (docsapi pages hold no OpenAPI blocks naming a spec, so what a
// site shows of its specs is what the organization made public).
func (r *Resolver) siteTokenSpec(ctx context.Context, c auth.Caller, orgID, slug string) (orgScope, storage.OpenAPISpec, error) {
	if orgID != c.OrganizationID {
		return orgScope{}, storage.OpenAPISpec{}, errSiteTokenElsewhere()
	}
	a, err := r.audienceOf(ctx, orgID, c.Site.SiteID, nil, nil)
	if err != nil {
		return orgScope{}, storage.OpenAPISpec{}, err
	}
	s, err := r.Store.OpenAPISpec(ctx, orgID, slug)
	if err != nil || s.Visibility != "public" {
		return orgScope{}, s, apierr.NotFound("OpenAPI spec")
	}
	return orgScope{Caller: c, Org: a.org}, s, nil
}
