package graph

import (
	"context"
	"errors"

	"docsapi/graph/model"
	"docsapi/storage"
)

// revisionURLs are a revision's urls: app always; published and public (as
// 0.130.0 declares them: published unless the space is private, public
// only when it is public) while a published site holds the space. The URL
// is the space's in the first published site holding it (oldest first),
// at the revision preview path a published site gives a revision
// (~/revisions/{id}, the `revision` a site URL resolves to). Two indexed
// reads (the site space with its section, the site), whatever the size of
// the site.
func (r *Resolver) revisionURLs(ctx context.Context, cs contentScope, revID string) (model.RevisionUrls, error) {
	urls := model.RevisionUrls{App: r.appURL(cs.Head.ID, "revisions", revID)}
	if cs.Head.Visibility == "private" {
		return urls, nil
	}
	ss, err := r.Store.PublishedSiteSpaceOf(ctx, cs.Head.OrganizationID, cs.Head.ID)
	if errors.Is(err, storage.ErrNotFound) {
		return urls, nil
	}
	if err != nil {
		return urls, err
	}
	site, err := r.Store.Site(ctx, cs.Head.OrganizationID, ss.SiteID)
	if err != nil {
		return urls, err
	}
	c, err := callerOf(ctx)
	if err != nil {
		return urls, err
	}
	org, _, err := r.Store.OrganizationFor(ctx, cs.Head.OrganizationID, c.UserID)
	if err != nil {
		return urls, err
	}
	published := r.siteSpaceURL(org, site, ss, ss.Default, true, "", nil) + "/~/revisions/" + revID
	urls.Published = &published
	if cs.Head.Visibility == "public" {
		urls.Public = &published
	}
	return urls, nil
}
