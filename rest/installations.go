package rest

import (
	"net/http"

	"github.com/go-chi/chi/v5"

	"docsapi/graph/model"
)

func init() { register(mountInstallations) }

func mountInstallations(a *API, r chi.Router) {
	const inst = "/integrations/{integrationName}/installations/{installationId}"
	name := func(r *http.Request) string { return path(r, "integrationName") }
	id := func(r *http.Request) string { return path(r, "installationId") }

	r.Get("/integrations/{integrationName}/installations", a.ok(func(r *http.Request) (any, error) {
		page, limit, err := paging(r)
		if err != nil {
			return nil, err
		}
		return a.Q.IntegrationInstallations(r.Context(), name(r), page, limit, qStr(r, "externalId"))
	}))
	r.Post("/integrations/{integrationName}/installations", a.created(func(r *http.Request) (any, error) {
		var in model.InstallIntegrationInput
		if err := decode(r, &in, bodyRequired); err != nil {
			return nil, err
		}
		return a.M.InstallIntegration(r.Context(), name(r), in)
	}))
	r.Get(inst, a.ok(func(r *http.Request) (any, error) {
		return a.Q.IntegrationInstallation(r.Context(), name(r), id(r))
	}))
	r.Patch(inst, a.ok(func(r *http.Request) (any, error) {
		var in model.UpdateInstallationInput
		if err := decode(r, &in, bodyRequired); err != nil {
			return nil, err
		}
		return a.M.UpdateIntegrationInstallation(r.Context(), name(r), id(r), in)
	}))
	r.Delete(inst, a.deleted(func(r *http.Request) (*model.DeleteResult, error) {
		return a.M.UninstallIntegration(r.Context(), name(r), id(r))
	}))
	r.Post(inst+"/tokens", a.ok(func(r *http.Request) (any, error) {
		return a.M.CreateInstallationToken(r.Context(), name(r), id(r))
	}))
	r.Get("/orgs/{organizationId}/installations", a.ok(func(r *http.Request) (any, error) {
		page, limit, err := paging(r)
		if err != nil {
			return nil, err
		}
		return a.Q.OrganizationInstallations(r.Context(), path(r, "organizationId"), page, limit, qStr(r, "search"))
	}))

	// Space and site installations.
	r.Get("/integrations/{integrationName}/spaces", a.ok(func(r *http.Request) (any, error) {
		page, limit, ext, extended, err := targetListQuery(r)
		if err != nil {
			return nil, err
		}
		return a.Q.IntegrationSpaceInstallations(r.Context(), name(r), page, limit, ext, extended)
	}))
	r.Get("/integrations/{integrationName}/sites", a.ok(func(r *http.Request) (any, error) {
		page, limit, ext, extended, err := targetListQuery(r)
		if err != nil {
			return nil, err
		}
		return a.Q.IntegrationSiteInstallations(r.Context(), name(r), page, limit, ext, extended)
	}))
	r.Get(inst+"/spaces", a.ok(func(r *http.Request) (any, error) {
		page, limit, err := paging(r)
		if err != nil {
			return nil, err
		}
		extended, err := qBool(r, "extended")
		if err != nil {
			return nil, err
		}
		return a.Q.InstallationSpaces(r.Context(), name(r), id(r), page, limit, extended)
	}))
	r.Post(inst+"/spaces", a.created(func(r *http.Request) (any, error) {
		var in model.TargetInstallationInput
		if err := decode(r, &in, bodyRequired); err != nil {
			return nil, err
		}
		return a.M.InstallIntegrationOnSpace(r.Context(), name(r), id(r), deref(in.Space))
	}))
	r.Get(inst+"/spaces/{spaceId}", a.ok(func(r *http.Request) (any, error) {
		return a.Q.InstallationSpace(r.Context(), name(r), id(r), path(r, "spaceId"))
	}))
	r.Patch(inst+"/spaces/{spaceId}", a.ok(func(r *http.Request) (any, error) {
		var in model.UpdateTargetInstallationInput
		if err := decode(r, &in, bodyRequired); err != nil {
			return nil, err
		}
		return a.M.UpdateIntegrationSpaceInstallation(r.Context(), name(r), id(r), path(r, "spaceId"), in)
	}))
	r.Delete(inst+"/spaces/{spaceId}", a.deleted(func(r *http.Request) (*model.DeleteResult, error) {
		return a.M.UninstallIntegrationFromSpace(r.Context(), name(r), id(r), path(r, "spaceId"))
	}))
	r.Get(inst+"/sites", a.ok(func(r *http.Request) (any, error) {
		page, limit, err := paging(r)
		if err != nil {
			return nil, err
		}
		extended, err := qBool(r, "extended")
		if err != nil {
			return nil, err
		}
		return a.Q.InstallationSites(r.Context(), name(r), id(r), page, limit, extended)
	}))
	r.Post(inst+"/sites", a.created(func(r *http.Request) (any, error) {
		var in model.TargetInstallationInput
		if err := decode(r, &in, bodyRequired); err != nil {
			return nil, err
		}
		site := in.SiteID
		if site == nil {
			site = in.Site
		}
		return a.M.InstallIntegrationOnSite(r.Context(), name(r), id(r), deref(site))
	}))
	r.Get(inst+"/sites/{siteId}", a.ok(func(r *http.Request) (any, error) {
		return a.Q.InstallationSite(r.Context(), name(r), id(r), path(r, "siteId"))
	}))
	r.Patch(inst+"/sites/{siteId}", a.ok(func(r *http.Request) (any, error) {
		var in model.UpdateTargetInstallationInput
		if err := decode(r, &in, bodyRequired); err != nil {
			return nil, err
		}
		return a.M.UpdateIntegrationSiteInstallation(r.Context(), name(r), id(r), path(r, "siteId"), in)
	}))
	r.Delete(inst+"/sites/{siteId}", a.deleted(func(r *http.Request) (*model.DeleteResult, error) {
		return a.M.UninstallIntegrationFromSite(r.Context(), name(r), id(r), path(r, "siteId"))
	}))
}

func targetListQuery(r *http.Request) (page *string, limit *int, externalID *string, extended *bool, err error) {
	if page, limit, err = paging(r); err != nil {
		return
	}
	extended, err = qBool(r, "extended")
	return page, limit, qStr(r, "externalId"), extended, err
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
