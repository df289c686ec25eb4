package rest

import (
	"encoding/json"
	"net/http"
	"net/url"

	"github.com/go-chi/chi/v5"

	"docsapi/apierr"
	"docsapi/graph/model"
)

// Published content for readers: what a docs renderer calls.

func init() { register(mountPublished) }

func mountPublished(a *API, r chi.Router) {
	r.Post("/urls/published", a.ok(func(r *http.Request) (any, error) {
		var in model.ResolvePublishedContentByURLInput
		if err := decode(r, &in, bodyRequired); err != nil {
			return nil, err
		}
		return a.Q.ResolvePublishedContentByURL(r.Context(), in)
	}))
	// The deprecated GET twin: the visitor token comes as visitorAuthToken.
	r.Get("/urls/published", a.ok(func(r *http.Request) (any, error) {
		redirect, err := qBool(r, "redirectOnError")
		if err != nil {
			return nil, err
		}
		in := model.ResolvePublishedContentByURLInput{RedirectOnError: redirect}
		if u := qStr(r, "url"); u != nil {
			in.URL = *u
		}
		if t := qStr(r, "visitorAuthToken"); t != nil {
			in.Visitor = &model.SiteVisitorPayloadInput{JwtToken: t}
		}
		return a.Q.ResolvePublishedContentByURL(r.Context(), in)
	}))
	mountSiteRedirects(a, r)
	mountPublishingAuth(a, r)
	mountSiteCustomization(a, r)
	r.Get("/spaces/{spaceId}/revisions/{revisionId}/changes", a.ok(func(r *http.Request) (any, error) {
		if _, _, err := contentReadArgs(r); err != nil {
			return nil, err
		}
		limit, err := qInt(r, "limit")
		if err != nil {
			return nil, err
		}
		return a.Q.RevisionSemanticChanges(r.Context(), path(r, "spaceId"), path(r, "revisionId"), limit)
	}))
	r.Get("/spaces/{spaceId}/change-requests/{changeRequestId}/changes", a.ok(func(r *http.Request) (any, error) {
		limit, err := qInt(r, "limit")
		if err != nil {
			return nil, err
		}
		return a.Q.ChangeRequestChanges(r.Context(), path(r, "spaceId"), path(r, "changeRequestId"), limit)
	}))
	r.Post("/spaces/{spaceId}/content/computed/document", a.ok(func(r *http.Request) (any, error) {
		var in model.ComputeContentInput
		if err := decode(r, &in, bodyRequired); err != nil {
			return nil, err
		}
		return a.Q.ComputedDocument(r.Context(), path(r, "spaceId"), in)
	}))
	r.Post("/spaces/{spaceId}/content/computed/revision", a.ok(func(r *http.Request) (any, error) {
		var in model.ComputeContentInput
		if err := decode(r, &in, bodyRequired); err != nil {
			return nil, err
		}
		return a.Q.ComputedRevision(r.Context(), path(r, "spaceId"), in)
	}))
	urlArg := func(r *http.Request) string {
		if u := qStr(r, "url"); u != nil {
			return *u
		}
		return ""
	}
	r.Get("/urls/embed", a.ok(func(r *http.Request) (any, error) { return a.Q.EmbedByURL(r.Context(), urlArg(r)) }))
	r.Get("/spaces/{spaceId}/embed", a.ok(func(r *http.Request) (any, error) {
		return a.Q.EmbedByURLInSpace(r.Context(), path(r, "spaceId"), urlArg(r))
	}))
	r.Get("/urls/content", a.ok(func(r *http.Request) (any, error) { return a.Q.ContentByURL(r.Context(), urlArg(r)) }))
	r.Post(sitePath+"/search", a.ok(func(r *http.Request) (any, error) {
		page, limit, err := paging(r)
		if err != nil {
			return nil, err
		}
		var in model.SearchSiteContentInput
		if err := decode(r, &in, bodyRequired); err != nil {
			return nil, err
		}
		org, site := orgSite(r)
		return a.Q.SearchSite(r.Context(), org, site, in, page, limit)
	}))
	r.Post(sitePath+"/insights/events", a.noContent(func(r *http.Request) error {
		var in struct {
			Events []map[string]any `json:"events"`
		}
		if err := decode(r, &in, bodyRequired); err != nil {
			return err
		}
		org, site := orgSite(r)
		_, err := a.M.TrackSiteEvents(r.Context(), org, site, in.Events)
		return err
	}))
	r.Post(sitePath+"/insights/events/aggregate", a.ok(func(r *http.Request) (any, error) {
		var q map[string]any
		if err := decode(r, &q, bodyRequired); err != nil {
			return nil, err
		}
		org, site := orgSite(r)
		return a.Q.AggregateSiteEvents(r.Context(), org, site, q)
	}))
	r.Get(sitePath+"/insights/visitor-segments", a.ok(func(r *http.Request) (any, error) {
		org, site := orgSite(r)
		return a.Q.SiteVisitorSegments(r.Context(), org, site)
	}))
	r.Post("/integrations/{integrationName}/render", func(w http.ResponseWriter, r *http.Request) {
		var in map[string]any
		if err := decode(r, &in, bodyRequired); err != nil {
			WriteError(w, r, a.Log, err)
			return
		}
		res, err := a.Q.RenderIntegrationUIWithPost(r.Context(), path(r, "integrationName"), in)
		a.writeRender(w, r, res, err)
	})
	r.Get("/spaces/{spaceId}/revisions/{revisionId}/page/{pageId}/document", a.ok(func(r *http.Request) (any, error) {
		evaluated, err := qBool(r, "evaluated")
		if err != nil {
			return nil, err
		}
		return a.Q.PageDocumentInRevision(r.Context(), path(r, "spaceId"), path(r, "revisionId"), path(r, "pageId"), evaluated)
	}))
}

// wildcardPath is a by-path route's page path. chi matches the escaped
// path when the URL has one, so a renderer's "a%2Fb" arrives escaped:
// unescaped here, it is the page path "a/b".
func wildcardPath(r *http.Request) (string, error) {
	v := chi.URLParam(r, "*")
	if r.URL.RawPath == "" {
		return v, nil
	}
	p, err := url.PathUnescape(v)
	if err != nil {
		return "", apierr.Invalid("path", "malformed escape in %q", v)
	}
	return p, nil
}

func mountSiteRedirects(a *API, r chi.Router) {
	r.Get(sitePath+"/redirects", a.ok(func(r *http.Request) (any, error) {
		page, limit, err := paging(r)
		if err != nil {
			return nil, err
		}
		org, site := orgSite(r)
		return a.Q.SiteRedirects(r.Context(), org, site, page, limit)
	}))
	r.Post(sitePath+"/redirects", a.created(func(r *http.Request) (any, error) {
		var in model.SiteRedirectInput
		if err := decode(r, &in, bodyRequired); err != nil {
			return nil, err
		}
		org, site := orgSite(r)
		return a.M.CreateSiteRedirect(r.Context(), org, site, in)
	}))
	r.Patch(sitePath+"/redirects/{siteRedirectId}", a.ok(func(r *http.Request) (any, error) {
		var in model.SiteRedirectInput
		if err := decode(r, &in, bodyRequired); err != nil {
			return nil, err
		}
		org, site := orgSite(r)
		return a.M.UpdateSiteRedirect(r.Context(), org, site, path(r, "siteRedirectId"), in)
	}))
	r.Delete(sitePath+"/redirects/{siteRedirectId}", a.deleted(func(r *http.Request) (*model.DeleteResult, error) {
		org, site := orgSite(r)
		return a.M.DeleteSiteRedirect(r.Context(), org, site, path(r, "siteRedirectId"))
	}))
	r.Get(sitePath+"/redirect", a.ok(func(r *http.Request) (any, error) {
		source := qStr(r, "source")
		if source == nil {
			return nil, apierr.Invalid("source", "is required")
		}
		org, site := orgSite(r)
		return a.Q.SiteRedirectBySource(r.Context(), org, site, *source, qStr(r, "shareKey"))
	}))
}

func mountPublishingAuth(a *API, r chi.Router) {
	r.Get(sitePath+"/publishing/auth", a.ok(func(r *http.Request) (any, error) {
		org, site := orgSite(r)
		return a.Q.SitePublishingAuth(r.Context(), org, site)
	}))
	r.Patch(sitePath+"/publishing/auth", a.ok(func(r *http.Request) (any, error) {
		var in model.UpdateSitePublishingAuthInput
		if err := decode(r, &in, bodyRequired); err != nil {
			return nil, err
		}
		org, site := orgSite(r)
		return a.M.UpdateSitePublishingAuth(r.Context(), org, site, in)
	}))
	r.Post(sitePath+"/publishing/auth/regenerate", a.ok(func(r *http.Request) (any, error) {
		org, site := orgSite(r)
		return a.M.RegenerateSitePublishingAuth(r.Context(), org, site)
	}))
	r.Get(sitePath+"/publishing/preview", a.ok(func(r *http.Request) (any, error) {
		var claims map[string]any
		if c := qStr(r, "claims"); c != nil {
			// The published interface encodes claims with Rison; docsapi reads
			// a JSON object.
			if err := json.Unmarshal([]byte(*c), &claims); err != nil || claims == nil {
				return nil, apierr.Invalid("claims", "must be a JSON object")
			}
		}
		org, site := orgSite(r)
		u, err := a.Q.SitePublishingPreview(r.Context(), org, site, qStr(r, "siteSpace"), claims)
		if err != nil {
			return nil, err
		}
		return map[string]string{"url": u}, nil
	}))
}

func mountSiteCustomization(a *API, r chi.Router) {
	r.Get(sitePath+"/customization", a.ok(func(r *http.Request) (any, error) {
		org, site := orgSite(r)
		return a.Q.SiteCustomization(r.Context(), org, site)
	}))
	r.Put(sitePath+"/customization", a.ok(func(r *http.Request) (any, error) {
		var in map[string]any
		if err := decode(r, &in, bodyRequired); err != nil {
			return nil, err
		}
		org, site := orgSite(r)
		return a.M.UpdateSiteCustomization(r.Context(), org, site, in)
	}))
	const siteSpace = sitePath + "/site-spaces/{siteSpaceId}/customization"
	r.Get(siteSpace, a.ok(func(r *http.Request) (any, error) {
		org, site := orgSite(r)
		return a.Q.SiteSpaceCustomization(r.Context(), org, site, path(r, "siteSpaceId"))
	}))
	r.Patch(siteSpace, a.ok(func(r *http.Request) (any, error) {
		var in map[string]any
		if err := decode(r, &in, bodyRequired); err != nil {
			return nil, err
		}
		org, site := orgSite(r)
		return a.M.OverrideSiteSpaceCustomization(r.Context(), org, site, path(r, "siteSpaceId"), in)
	}))
	r.Delete(siteSpace, a.deleted(func(r *http.Request) (*model.DeleteResult, error) {
		org, site := orgSite(r)
		return a.M.DeleteSiteSpaceCustomization(r.Context(), org, site, path(r, "siteSpaceId"))
	}))
}
