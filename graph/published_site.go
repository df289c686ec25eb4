package graph

import (
	"context"
	"net/url"

	"docsapi/auth"
	"docsapi/graph/model"
)

// Reading through docsapi's own reader site (package site): the visitor
// sends no API token, so the URL resolution of resolvePublishedContent runs
// for them here, with the same audience checks (published, share key and
// its password, visitor token, adaptive claims), and the reads that follow
// run as the caller of the apiToken it mints, like any renderer's.

// VisitorLookup is a reader's URL resolved for the reader site: the lookup
// and the caller its apiToken stands for (nil for redirects).
type VisitorLookup struct {
	*model.PublishedSiteContentLookup
	Reader *auth.Caller
}

// ResolveForVisitor resolves u for an anonymous visitor, or for the holder
// of a site's apiToken when ctx carries its caller (a reader site's cookie).
// The resolution runs as a site caller naming no site yet: callerOf refuses
// it everywhere else, and audienceWith grants it only what the site's
// audience may read.
func (r *Resolver) ResolveForVisitor(ctx context.Context, u *url.URL, visitor *model.SiteVisitorPayloadInput) (VisitorLookup, error) {
	if c, ok := auth.CallerFrom(ctx); !ok || c.Kind != auth.KindSite || c.Site == nil {
		ctx = auth.WithCaller(ctx, auth.Caller{Kind: auth.KindSite})
	}
	l, err := r.resolveURL(ctx, u, visitor, nil)
	if err != nil {
		return VisitorLookup{}, err
	}
	out := VisitorLookup{PublishedSiteContentLookup: l}
	if l.APIToken != nil {
		c, err := r.SiteTokenCaller(ctx, *l.APIToken)
		if err != nil {
			return out, err
		}
		out.Reader = &c
	}
	return out, nil
}
