package graph

import (
	"context"

	"docsapi/graph/model"
	"docsapi/storage"
)

// revisionURLs are a revision's urls: app always; published and public (as
// 0.130.0 declares them: published unless the space is private, public
// only when it is public) while a published site holds the space. The URL
// is the space's in the first published site holding it (oldest first),
// at the revision preview path a published site gives a revision
// (~/revisions/{id}, the `revision` a site URL resolves to).
func (r *Resolver) revisionURLs(ctx context.Context, cs contentScope, revID string) (model.RevisionUrls, error) {
	urls := model.RevisionUrls{App: r.appURL(cs.Head.ID, "revisions", revID)}
	if cs.Head.Visibility == "private" {
		return urls, nil
	}
	sites, err := r.Store.SitesOfSpace(ctx, cs.Head.ID)
	if err != nil {
		return urls, err
	}
	for _, site := range sites {
		if !site.Published || site.OrganizationID != cs.Head.OrganizationID {
			continue
		}
		spaceURL, err := r.siteSpaceURL(ctx, site, cs.Head.ID)
		if err != nil || spaceURL == "" {
			return urls, err
		}
		published := spaceURL + "/~/revisions/" + revID
		urls.Published = &published
		if cs.Head.Visibility == "public" {
			urls.Public = &published
		}
		break
	}
	return urls, nil
}

// siteSpaceURL is the published URL of spaceID's site space in site ("" when
// the structure shows none).
func (r *Resolver) siteSpaceURL(ctx context.Context, site storage.Site, spaceID string) (string, error) {
	st, err := r.Store.SiteStructure(ctx, site.ID)
	if err != nil {
		return "", err
	}
	c, err := callerOf(ctx)
	if err != nil {
		return "", err
	}
	org, _, err := r.Store.OrganizationFor(ctx, site.OrganizationID, c.UserID)
	if err != nil {
		return "", err
	}
	v := structureView{r: r, org: org, site: site, role: func(storage.Space) int { return roleRank["read"] }}
	return deref(v.spaceURL(st, spaceID)), nil
}
