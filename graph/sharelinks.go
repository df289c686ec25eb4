package graph

import (
	"context"
	"slices"

	"docsapi/apierr"
	"docsapi/graph/model"
	"docsapi/storage"
)

// shareLinkNameMax is the longest share link name.
const shareLinkNameMax = 50

// shareLinkModel: urls.published is the site's URL with the link's key, so
// it is set whether or not the site is published yet.
func (r *Resolver) shareLinkModel(org storage.Organization, site storage.Site, l storage.ShareLink) *model.ShareLink {
	return &model.ShareLink{Object: "share-link", ID: l.ID, CreatedAt: model.Time(l.CreatedAt), Name: l.Name, Active: l.Active,
		Urls: model.ShareLinkURLs{Location: r.Config.PublicURL + "/v1/orgs/" + org.ID + "/sites/" + site.ID + "/share-links/" + l.ID,
			Published: publishedURL(r.siteURL(org, site), &l.Key)}}
}

// sharedSpace reads a space through a share key: the key must be an active
// link of a published site holding the space (404 otherwise, whoever asks).
// Members read the space with their own role (at least READ), others read
// it; urls.published is its URL in that site, carrying the key.
func (r *Resolver) sharedSpace(ctx context.Context, spaceID, shareKey string) (*model.Space, error) {
	l, err := r.Store.ShareLinkByKey(ctx, shareKey)
	if err != nil {
		return nil, notFoundAs(err, "share link")
	}
	sites, err := r.Store.SitesOfSpace(ctx, spaceID)
	if err != nil {
		return nil, err
	}
	i := slices.IndexFunc(sites, func(s storage.Site) bool { return s.ID == l.SiteID })
	if i < 0 {
		return nil, apierr.NotFound("space")
	}
	a, err := r.audienceOf(ctx, sites[i].OrganizationID, sites[i].ID, &shareKey, nil)
	if err != nil {
		return nil, err
	}
	sp, err := r.Store.Space(ctx, spaceID)
	if err != nil || sp.DeletedAt != nil {
		return nil, apierr.NotFound("space")
	}
	role := roleRank["read"]
	if _, s, err := r.spaceScope(ctx, spaceID, chainOnly, false); err == nil {
		role = max(role, s.Role)
	}
	m := r.spaceModel(sp, role)
	st, err := r.Store.SiteStructure(ctx, a.site.ID)
	if err != nil {
		return nil, notFoundAs(err, "space")
	}
	v := structureView{r: r, org: a.org, site: a.site, shareKey: &shareKey, role: func(storage.Space) int { return role }}
	m.Urls.Published = v.spaceURL(st, spaceID)
	return m, nil
}
