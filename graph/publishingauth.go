package graph

import (
	"context"
	"net/url"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"docsapi/apierr"
	"docsapi/graph/model"
	"docsapi/storage"
)

// Publishing auth: the published interface's view of a site's visitor key
// (the same key siteVisitorAuth and rotateSiteVisitorKey manage) with the
// fallback URL URL resolution redirects refused visitors to; and previews,
// a site space's URL with a visitor token for chosen claims.

const fallbackURLMax = 2048

// previewTokenTTL is how long a preview URL's visitor token works.
const previewTokenTTL = time.Hour

func (r *Resolver) publishingAuth(ctx context.Context, orgID, siteID string) (*model.SitePublishingAuth, error) {
	_, site, err := r.siteScope(ctx, orgID, siteID, "admin", "reading a site's authenticated access settings")
	if err != nil {
		return nil, err
	}
	fallback, err := r.Store.SiteFallbackURL(ctx, site.ID)
	if err != nil {
		return nil, notFoundAs(err, "site")
	}
	return &model.SitePublishingAuth{Object: "publishing-auth", Backend: "custom", PrivateKey: site.VisitorSecret, FallbackURL: fallback}, nil
}

func (r *Resolver) updatePublishingAuth(ctx context.Context, orgID, siteID string, in model.UpdateSitePublishingAuthInput) (*model.SitePublishingAuth, error) {
	if _, _, err := r.siteScope(ctx, orgID, siteID, "admin", "changing a site's authenticated access settings"); err != nil {
		return nil, err
	}
	if in.Backend != nil {
		switch *in.Backend {
		case "custom":
		case "integration":
			return nil, apierr.Invalid("backend", "integration is not available: docsapi runs no authenticated-access integrations (use custom)")
		default:
			return nil, apierr.Invalid("backend", "must be custom or integration")
		}
	}
	fallback, set := in.FallbackURL.ValueOK()
	if !set && in.Backend == nil {
		return nil, apierr.Invalid("body", "needs at least one of backend, fallbackURL")
	}
	if set {
		if fallback != nil {
			u, err := url.Parse(*fallback)
			if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || len(*fallback) > fallbackURLMax {
				return nil, apierr.Invalid("fallbackURL", "must be an absolute http(s) URL of at most %d characters", fallbackURLMax)
			}
		}
		ctx = recordChange(ctx, orgID, "site.updated", "site", siteID, map[string]any{"fallbackURL": fallback})
		if err := r.Store.SetSiteFallbackURL(ctx, orgID, siteID, fallback); err != nil {
			return nil, notFoundAs(err, "site")
		}
	}
	return r.publishingAuth(ctx, orgID, siteID)
}

func (r *Resolver) regeneratePublishingAuth(ctx context.Context, orgID, siteID string) (*model.SitePublishingAuth, error) {
	if _, err := r.Mutation().RotateSiteVisitorKey(ctx, orgID, siteID); err != nil {
		return nil, err
	}
	return r.publishingAuth(ctx, orgID, siteID)
}

// visitorFallback is the fallback URL of a visitor-auth site, for a
// refusal of URL resolution that asked for a redirect ("" when none).
func (r *Resolver) visitorFallback(ctx context.Context, site storage.Site) string {
	if site.Visibility != "visitor-auth" {
		return ""
	}
	u, err := r.Store.SiteFallbackURL(ctx, site.ID)
	if err != nil || u == nil {
		return ""
	}
	return *u
}

// publishingPreview is the URL of a site space (default: the site's
// default) on the service, with a visitor token signed with the site's key
// carrying claims (jwt_token, as renderers read it) when claims are given
// or the site needs a visitor token.
func (r *Resolver) publishingPreview(ctx context.Context, orgID, siteID string, siteSpaceID *string, claims map[string]any) (string, error) {
	s, site, err := r.siteScope(ctx, orgID, siteID, "create", "previewing a site")
	if err != nil {
		return "", err
	}
	st, err := r.Store.SiteStructure(ctx, site.ID)
	if err != nil {
		return "", err
	}
	want := site.DefaultSiteSpaceID
	if siteSpaceID != nil {
		want = siteSpaceID
	}
	var target *storage.SiteSpace
	for i, ss := range st.SiteSpaces {
		if (want != nil && ss.ID == *want) || (want == nil && target == nil) {
			target = &st.SiteSpaces[i]
		}
	}
	if target == nil {
		if siteSpaceID != nil {
			return "", apierr.Invalid("siteSpace", "no site space %q in this site", *siteSpaceID)
		}
		return "", apierr.Invalid("siteSpace", "the site has no site space to preview")
	}
	out := publishedURL(r.siteOwnURL(s.Org, site), nil, publishedSegments(site, st, *target)...)
	if claims == nil && site.Visibility != "visitor-auth" {
		return out, nil
	}
	tc := jwt.MapClaims{"exp": r.Now().Add(previewTokenTTL).Unix()}
	for k, v := range claims {
		if k != "exp" {
			tc[k] = v
		}
	}
	tok, err := jwt.NewWithClaims(jwt.SigningMethodHS256, tc).SignedString([]byte(site.VisitorSecret))
	if err != nil {
		return "", err
	}
	return out + "?jwt_token=" + url.QueryEscape(tok), nil
}
