package rest

import (
	"net/http"

	"github.com/go-chi/chi/v5"

	"docsapi/graph"
	"docsapi/graph/model"
)

func init() { register(mountSites) }

const (
	sitesPath = "/orgs/{organizationId}/sites"
	sitePath  = sitesPath + "/{siteId}"
)

// org and site are the path parameters every site route has.
func orgSite(r *http.Request) (string, string) { return path(r, "organizationId"), path(r, "siteId") }

func mountSites(a *API, r chi.Router) {
	r.Get(sitesPath, a.ok(func(r *http.Request) (any, error) {
		page, limit, err := paging(r)
		if err != nil {
			return nil, err
		}
		published, err := qBool(r, "published")
		if err != nil {
			return nil, err
		}
		var types []model.SiteType
		for _, t := range r.URL.Query()["type"] {
			types = append(types, model.SiteType(t))
		}
		return a.Q.Sites(r.Context(), path(r, "organizationId"), page, limit, qStr(r, "space"), qStr(r, "title"), published, types)
	}))
	r.Post(sitesPath, a.created(func(r *http.Request) (any, error) {
		var in model.CreateSiteInput
		if err := decode(r, &in, bodyOptional); err != nil {
			return nil, err
		}
		return a.M.CreateSite(r.Context(), path(r, "organizationId"), &in)
	}))
	get := func(r *http.Request) (any, error) {
		org, site := orgSite(r)
		return a.Q.Site(r.Context(), org, site)
	}
	r.Get(sitePath, a.resource(get))
	r.Patch(sitePath, a.ifMatch(get, a.ok(func(r *http.Request) (any, error) {
		var in model.UpdateSiteInput
		if err := decode(r, &in, bodyRequired); err != nil {
			return nil, err
		}
		org, site := orgSite(r)
		return a.M.UpdateSite(r.Context(), org, site, in)
	})))
	r.Delete(sitePath, a.ifMatch(get, a.deleted(func(r *http.Request) (*model.DeleteResult, error) {
		org, site := orgSite(r)
		return a.M.DeleteSite(r.Context(), org, site)
	})))
	r.Post(sitePath+"/publish", a.ok(func(r *http.Request) (any, error) {
		org, site := orgSite(r)
		return a.M.PublishSite(r.Context(), org, site)
	}))
	r.Post(sitePath+"/unpublish", a.ok(func(r *http.Request) (any, error) {
		org, site := orgSite(r)
		return a.M.UnpublishSite(r.Context(), org, site)
	}))
	getSchema := func(r *http.Request) (any, error) {
		org, site := orgSite(r)
		return a.Q.SiteAdaptiveSchema(r.Context(), org, site)
	}
	r.Get(sitePath+"/adaptive-schema", a.resource(getSchema))
	r.Put(sitePath+"/adaptive-schema", a.ifMatch(getSchema, a.ok(func(r *http.Request) (any, error) {
		var in model.UpdateSiteAdaptiveSchemaInput
		if err := decode(r, &in, bodyRequired); err != nil {
			return nil, err
		}
		org, site := orgSite(r)
		return a.M.UpdateSiteAdaptiveSchema(r.Context(), org, site, in)
	})))
	r.Get(sitePath+"/adaptive-schema/template-conditions", a.ok(func(r *http.Request) (any, error) {
		org, site := orgSite(r)
		return a.Q.SiteAdaptiveTemplateConditions(r.Context(), org, site)
	}))
	r.Get(sitePath+"/published", a.ok(func(r *http.Request) (any, error) {
		org, site := orgSite(r)
		var token *string
		if t := r.Header.Get(graph.VisitorTokenHeader); t != "" {
			token = &t
		}
		return a.Q.PublishedContentSite(r.Context(), org, site, qStr(r, "shareKey"), token)
	}))
	mountSiteStructure(a, r)
	mountShareLinks(a, r)
}

func mountSiteStructure(a *API, r chi.Router) {
	r.Get(sitePath+"/structure", a.ok(func(r *http.Request) (any, error) {
		org, site := orgSite(r)
		return a.Q.SiteStructure(r.Context(), org, site, qStr(r, "shareKey"))
	}))
	r.Patch(sitePath+"/structure/sort", a.ok(func(r *http.Request) (any, error) {
		var in model.SortSiteStructureInput
		if err := decode(r, &in, bodyRequired); err != nil {
			return nil, err
		}
		org, site := orgSite(r)
		return a.M.SortSiteStructure(r.Context(), org, site, in)
	}))

	r.Get(sitePath+"/site-spaces", a.ok(func(r *http.Request) (any, error) {
		page, limit, err := paging(r)
		if err != nil {
			return nil, err
		}
		def, err := qBool(r, "default")
		if err != nil {
			return nil, err
		}
		org, site := orgSite(r)
		return a.Q.SiteSpaces(r.Context(), org, site, qStr(r, "shareKey"), page, limit, def)
	}))
	r.Post(sitePath+"/site-spaces", a.created(func(r *http.Request) (any, error) {
		var in model.AddSpaceToSiteInput
		if err := decode(r, &in, bodyRequired); err != nil {
			return nil, err
		}
		org, site := orgSite(r)
		return a.M.AddSpaceToSite(r.Context(), org, site, in)
	}))
	r.Patch(sitePath+"/site-spaces/{siteSpaceId}", a.ok(func(r *http.Request) (any, error) {
		var in model.UpdateSiteSpaceInput
		if err := decode(r, &in, bodyRequired); err != nil {
			return nil, err
		}
		org, site := orgSite(r)
		return a.M.UpdateSiteSpace(r.Context(), org, site, path(r, "siteSpaceId"), in)
	}))
	r.Delete(sitePath+"/site-spaces/{siteSpaceId}", a.deleted(func(r *http.Request) (*model.DeleteResult, error) {
		org, site := orgSite(r)
		return a.M.DeleteSiteSpace(r.Context(), org, site, path(r, "siteSpaceId"))
	}))
	r.Post(sitePath+"/site-spaces/{siteSpaceId}/move", a.ok(func(r *http.Request) (any, error) {
		var in model.MoveSiteSpaceInput
		if err := decode(r, &in, bodyOptional); err != nil {
			return nil, err
		}
		org, site := orgSite(r)
		return a.M.MoveSiteSpace(r.Context(), org, site, path(r, "siteSpaceId"), &in)
	}))

	r.Get(sitePath+"/sections", a.ok(func(r *http.Request) (any, error) {
		page, limit, err := paging(r)
		if err != nil {
			return nil, err
		}
		org, site := orgSite(r)
		return a.Q.SiteSections(r.Context(), org, site, qStr(r, "shareKey"), page, limit)
	}))
	r.Post(sitePath+"/sections", a.created(func(r *http.Request) (any, error) {
		var in model.AddSectionToSiteInput
		if err := decode(r, &in, bodyRequired); err != nil {
			return nil, err
		}
		org, site := orgSite(r)
		return a.M.AddSectionToSite(r.Context(), org, site, in)
	}))
	r.Patch(sitePath+"/sections/{siteSectionId}", a.ok(func(r *http.Request) (any, error) {
		var in model.UpdateSiteSectionInput
		if err := decode(r, &in, bodyRequired); err != nil {
			return nil, err
		}
		org, site := orgSite(r)
		return a.M.UpdateSiteSection(r.Context(), org, site, path(r, "siteSectionId"), in)
	}))
	r.Delete(sitePath+"/sections/{siteSectionId}", a.deleted(func(r *http.Request) (*model.DeleteResult, error) {
		org, site := orgSite(r)
		return a.M.DeleteSiteSection(r.Context(), org, site, path(r, "siteSectionId"))
	}))
	r.Post(sitePath+"/sections/{siteSectionId}/move", a.ok(func(r *http.Request) (any, error) {
		var in model.MoveSiteSectionInput
		if err := decode(r, &in, bodyOptional); err != nil {
			return nil, err
		}
		org, site := orgSite(r)
		return a.M.MoveSiteSection(r.Context(), org, site, path(r, "siteSectionId"), &in)
	}))

	group := sitePath + "/section-groups/{siteSectionGroupId}"
	r.Get(sitePath+"/section-groups", a.ok(func(r *http.Request) (any, error) {
		page, limit, err := paging(r)
		if err != nil {
			return nil, err
		}
		org, site := orgSite(r)
		return a.Q.SiteSectionGroups(r.Context(), org, site, page, limit)
	}))
	r.Post(sitePath+"/section-groups", a.created(func(r *http.Request) (any, error) {
		var in model.AddSectionGroupToSiteInput
		if err := decode(r, &in, bodyRequired); err != nil {
			return nil, err
		}
		org, site := orgSite(r)
		return a.M.AddSectionGroupToSite(r.Context(), org, site, in)
	}))
	r.Patch(group, a.ok(func(r *http.Request) (any, error) {
		var in model.UpdateSiteSectionGroupInput
		if err := decode(r, &in, bodyRequired); err != nil {
			return nil, err
		}
		org, site := orgSite(r)
		return a.M.UpdateSiteSectionGroup(r.Context(), org, site, path(r, "siteSectionGroupId"), in)
	}))
	r.Delete(group, a.deleted(func(r *http.Request) (*model.DeleteResult, error) {
		org, site := orgSite(r)
		return a.M.DeleteSiteSectionGroup(r.Context(), org, site, path(r, "siteSectionGroupId"))
	}))
	r.Post(group+"/sections", a.created(func(r *http.Request) (any, error) {
		var in model.AddSectionToGroupInput
		if err := decode(r, &in, bodyRequired); err != nil {
			return nil, err
		}
		org, site := orgSite(r)
		return a.M.AddSectionToGroup(r.Context(), org, site, path(r, "siteSectionGroupId"), in)
	}))
	r.Delete(group+"/sections/{siteSectionId}", a.deleted(func(r *http.Request) (*model.DeleteResult, error) {
		org, site := orgSite(r)
		return a.M.RemoveSectionFromGroup(r.Context(), org, site, path(r, "siteSectionGroupId"), path(r, "siteSectionId"))
	}))
	r.Post(group+"/move", a.ok(func(r *http.Request) (any, error) {
		var in model.MoveSiteSectionGroupInput
		if err := decode(r, &in, bodyOptional); err != nil {
			return nil, err
		}
		org, site := orgSite(r)
		return a.M.MoveSiteSectionGroup(r.Context(), org, site, path(r, "siteSectionGroupId"), &in)
	}))
}

func mountShareLinks(a *API, r chi.Router) {
	r.Get(sitePath+"/share-links", a.ok(func(r *http.Request) (any, error) {
		page, limit, err := paging(r)
		if err != nil {
			return nil, err
		}
		org, site := orgSite(r)
		return a.Q.SiteShareLinks(r.Context(), org, site, page, limit)
	}))
	r.Post(sitePath+"/share-links", a.created(func(r *http.Request) (any, error) {
		var in model.CreateShareLinkInput
		if err := decode(r, &in, bodyRequired); err != nil {
			return nil, err
		}
		org, site := orgSite(r)
		return a.M.CreateSiteShareLink(r.Context(), org, site, in)
	}))
	r.Patch(sitePath+"/share-links/{shareLinkId}", a.ok(func(r *http.Request) (any, error) {
		var in model.UpdateShareLinkInput
		if err := decode(r, &in, bodyRequired); err != nil {
			return nil, err
		}
		org, site := orgSite(r)
		return a.M.UpdateSiteShareLink(r.Context(), org, site, path(r, "shareLinkId"), in)
	}))
	r.Delete(sitePath+"/share-links/{shareLinkId}", a.deleted(func(r *http.Request) (*model.DeleteResult, error) {
		org, site := orgSite(r)
		return a.M.DeleteSiteShareLink(r.Context(), org, site, path(r, "shareLinkId"))
	}))
}
