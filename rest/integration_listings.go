package rest

import (
	"net/http"

	"github.com/go-chi/chi/v5"

	"docsapi/graph/model"
)

// Integrations as an organization, a space and a site see them, and the
// integration's task queue.

func init() { register(mountIntegrationListings) }

func mountIntegrationListings(a *API, r chi.Router) {
	org := func(r *http.Request) string { return path(r, "organizationId") }
	r.Get("/orgs/{organizationId}/integrations", a.ok(func(r *http.Request) (any, error) {
		page, limit, err := paging(r)
		if err != nil {
			return nil, err
		}
		blocks, err := qBool(r, "blocks")
		if err != nil {
			return nil, err
		}
		sources, err := qBool(r, "contentSources")
		if err != nil {
			return nil, err
		}
		return a.Q.OrganizationIntegrations(r.Context(), org(r), page, limit, qStr(r, "search"), qEnum[model.IntegrationCategory](r, "category"),
			qStr(r, "blockDomain"), blocks, sources, qStr(r, "owner"), qEnum[model.IntegrationScope](r, "scope"), qEnum[model.IntegrationTarget](r, "target"))
	}))
	r.Get("/orgs/{organizationId}/integrations/{integrationName}/installation_status", a.ok(func(r *http.Request) (any, error) {
		return a.Q.OrganizationIntegrationStatus(r.Context(), org(r), path(r, "integrationName"))
	}))
	r.Get("/orgs/{organizationId}/integrations/installations-status", a.ok(func(r *http.Request) (any, error) {
		page, limit, err := paging(r)
		if err != nil {
			return nil, err
		}
		return a.Q.OrganizationIntegrationsStatus(r.Context(), org(r), page, limit, qStr(r, "search"))
	}))
	r.Get("/spaces/{spaceId}/integrations", a.ok(func(r *http.Request) (any, error) {
		return a.Q.SpaceIntegrations(r.Context(), path(r, "spaceId"), qStr(r, "search"))
	}))
	r.Get("/spaces/{spaceId}/integration-blocks", a.ok(func(r *http.Request) (any, error) {
		return a.Q.SpaceIntegrationBlocks(r.Context(), path(r, "spaceId"))
	}))
	r.Get("/spaces/{spaceId}/integration-scripts", a.ok(func(r *http.Request) (any, error) {
		return a.Q.SpaceIntegrationScripts(r.Context(), path(r, "spaceId"))
	}))
	r.Get("/orgs/{organizationId}/sites/{siteId}/integrations", a.ok(func(r *http.Request) (any, error) {
		return a.Q.SiteIntegrations(r.Context(), org(r), path(r, "siteId"), qStr(r, "search"))
	}))
	r.Get("/orgs/{organizationId}/sites/{siteId}/integration-scripts", a.ok(func(r *http.Request) (any, error) {
		return a.Q.SiteIntegrationScripts(r.Context(), org(r), path(r, "siteId"))
	}))
	r.Post("/integrations/{integrationName}/tasks", a.noContent(func(r *http.Request) error {
		var in model.QueueIntegrationTaskInput
		if err := decode(r, &in, bodyRequired); err != nil {
			return err
		}
		_, err := a.M.QueueIntegrationTask(r.Context(), path(r, "integrationName"), in)
		return err
	}))
}
