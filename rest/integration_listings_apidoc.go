package rest

import (
	"docsapi/graph/model"
)

// Declarations of the routes in integration_listings.go.

func init() {
	search := Param{Name: "search", Type: "", Description: "Text in the integration's name."}
	describe(
		Operation{Method: "GET", Pattern: "/orgs/{organizationId}/integrations", ID: "listOrganizationIntegrations", Tag: "integrations",
			Summary: "Integrations the organization may use: the public ones and its own (members).",
			Query: append([]Param{search,
				{Name: "category", Type: model.IntegrationCategory(""), Description: "Only this category."},
				{Name: "blockDomain", Type: "", Description: "Only integrations whose blocks unfurl URLs of this domain."},
				{Name: "blocks", Type: false, Description: "true: only with blocks; false: only without."},
				{Name: "contentSources", Type: false, Description: "true: only with content sources; false: only without."},
				{Name: "owner", Type: "", Description: "Owning organization (id or subdomain)."},
				{Name: "scope", Type: model.IntegrationScope(""), Description: "Only integrations with this scope."},
				{Name: "target", Type: model.IntegrationTarget(""), Description: "Only this installation target."},
			}, pageParams...),
			Status: 200, Response: model.IntegrationList{}},
		Operation{Method: "GET", Pattern: "/orgs/{organizationId}/integrations/{integrationName}/installation_status", ID: "getOrganizationIntegrationStatus", Tag: "integrations",
			Summary: "The status of the integration's installation in the organization (members; 404 when not installed).",
			Status:  200, Response: model.OrganizationIntegrationStatus{}},
		Operation{Method: "GET", Pattern: "/orgs/{organizationId}/integrations/installations-status", ID: "listOrganizationIntegrationsStatus", Tag: "integrations",
			Summary: "Integrations installed in the organization with their installations' statuses (members).",
			Query:   append([]Param{{Name: "search", Type: "", Description: "Text in the integration's name or title."}}, pageParams...),
			Status:  200, Response: model.IntegrationStatusList{}},
		Operation{Method: "GET", Pattern: "/spaces/{spaceId}/integrations", ID: "listSpaceIntegrations", Tag: "space-integrations",
			Summary: "Integrations enabled in a space (at most 1,000, by name).", Query: []Param{search},
			Status: 200, Response: model.IntegrationList{}},
		Operation{Method: "GET", Pattern: "/spaces/{spaceId}/integration-blocks", ID: "listSpaceIntegrationsBlocks", Tag: "space-integrations",
			Summary: "The blocks of the integrations enabled in a space.", Status: 200, Response: []model.SpaceIntegrationBlocks{}},
		Operation{Method: "GET", Pattern: "/spaces/{spaceId}/integration-scripts", ID: "listSpaceIntegrationScripts", Tag: "space-integrations",
			Summary: "The scripts a space's published content loads.", Status: 200, Response: []model.IntegrationScript{}},
		Operation{Method: "GET", Pattern: "/orgs/{organizationId}/sites/{siteId}/integrations", ID: "listSiteIntegrations", Tag: "sites",
			Summary: "Integrations enabled on a site (at most 1,000, by name).", Query: []Param{search},
			Status: 200, Response: model.IntegrationList{}},
		Operation{Method: "GET", Pattern: "/orgs/{organizationId}/sites/{siteId}/integration-scripts", ID: "listSiteIntegrationScripts", Tag: "sites",
			Summary: "The scripts a site loads.", Status: 200, Response: []model.IntegrationScript{}},
		Operation{Method: "POST", Pattern: "/integrations/{integrationName}/tasks", ID: "queueIntegrationTask", Tag: "integrations",
			Summary: "Queue a task: delivered to the integration's runtime as a \"task\" event after schedule seconds (the integration's installation token, or an admin of its owner).",
			Body:    model.QueueIntegrationTaskInput{}, Status: 204},
	)
}
