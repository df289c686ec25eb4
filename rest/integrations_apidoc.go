package rest

import (
	"docsapi/graph/model"
)

// Declarations of the routes in integrations.go and installations.go for the
// served API description.

func init() {
	declareEnum[model.IntegrationRuntime](model.IntegrationRuntimes.List())
	declareEnum[model.IntegrationTarget](model.IntegrationTargets.List())
	declareEnum[model.IntegrationVisibility](model.IntegrationVisibilities.List())
	declareEnum[model.IntegrationScope](model.IntegrationScopes.List())
	declareEnum[model.IntegrationCategory](model.IntegrationCategories.List())
	declareEnum[model.InstallationStatus](model.InstallationStatuses.List())
	declareEnum[model.InstallationSelection](model.InstallationSelections.List())
	declareEnum[model.IntegrationEventStatus](model.IntegrationEventStatuses.List())
	declareEnum[model.IntegrationLogLevel](model.IntegrationLogLevels.List())

	// space (site) is the id, or the whole Space (Site) in extended lists
	// (MarshalJSON writes spaceObject, siteObject there).
	expandable(model.IntegrationSpaceInstallation{}, "space", "The space id; the whole space (as GET /spaces/{spaceId} answers the caller) in lists asked with extended=true.")
	expandable(model.IntegrationSiteInstallation{}, "site", "The site id; the whole site (as GET /orgs/{organizationId}/sites/{siteId} answers the caller) in lists asked with extended=true.")

	const named = "/integrations/{integrationName}"
	const inst = named + "/installations/{installationId}"
	externalID := Param{Name: "externalId", Type: "", Description: "Only installations carrying this external id."}
	extended := Param{Name: "extended", Type: false, Description: "Answer the whole space instead of its id, for the spaces the caller can read (default false)."}
	extendedSites := Param{Name: "extended", Type: false, Description: "Answer the whole site instead of its id, for the sites the caller can read (default false)."}
	describe(
		Operation{Method: "GET", Pattern: "/integrations", ID: "listIntegrations", Tag: "integrations",
			Summary: "Integrations the caller may see.", Status: 200, Response: model.IntegrationList{},
			Query: append([]Param{
				{Name: "search", Type: "", Description: "Text in the integration's name."},
				{Name: "category", Type: model.IntegrationCategory(""), Description: "Only this category."},
				{Name: "blockDomain", Type: "", Description: "Only integrations whose blocks unfurl URLs of this domain."},
				{Name: "blocks", Type: false, Description: "true: only with blocks; false: only without."},
				{Name: "contentSources", Type: false, Description: "true: only with content sources; false: only without."},
				{Name: "owner", Type: "", Description: "Owning organization (id or subdomain)."},
				{Name: "scope", Type: model.IntegrationScope(""), Description: "Only integrations with this scope."},
				{Name: "target", Type: model.IntegrationTarget(""), Description: "Only this installation target."},
			}, pageParams...)},
		Operation{Method: "GET", Pattern: named, ID: "getIntegrationByName", Tag: "integrations",
			Summary: "An integration.", Status: 200, Response: model.Integration{}},
		Operation{Method: "POST", Pattern: named, ID: "publishIntegration", Tag: "integrations",
			Summary: "Publish an integration or a new version of it (admin of the owning organization).", Body: model.PublishIntegrationInput{}, Status: 200, Response: model.Integration{}},
		Operation{Method: "DELETE", Pattern: named, ID: "unpublishIntegration", Tag: "integrations",
			Summary: "Unpublish an integration with all its installations and events.", Status: 205},
		Operation{Method: "GET", Pattern: named + "/events", ID: "listIntegrationEvents", Tag: "integrations",
			Summary: "Events of an integration, newest first.", Query: pageParams, Status: 200, Response: model.IntegrationEventList{}},
		Operation{Method: "GET", Pattern: named + "/events/{eventId}", ID: "getIntegrationEvent", Tag: "integrations",
			Summary: "An event with its log trace.", Status: 200, Response: model.IntegrationEventDetail{}},
		Operation{Method: "PUT", Pattern: named + "/dev", ID: "setIntegrationDevelopmentMode", Tag: "integrations",
			Summary: "Turn development mode on: events go to the tunnel URL, signed.", Body: model.SetIntegrationDevelopmentModeInput{}, Status: 204},
		Operation{Method: "DELETE", Pattern: named + "/dev", ID: "disableIntegrationDevelopmentMode", Tag: "integrations",
			Summary: "Turn development mode off.", Status: 205},
		Operation{Method: "GET", Pattern: named + "/render", ID: "renderIntegrationUIWithGet", Tag: "integrations",
			Summary: "Render an integration UI through its development tunnel.",
			Query:   []Param{{Name: "request", Type: "", Required: true, Description: "The render request: JSON compressed with LZ-string (URI-component encoding)."}},
			Status:  200, Response: model.RenderResult{}},

		Operation{Method: "GET", Pattern: named + "/installations", ID: "listIntegrationInstallations", Tag: "installations",
			Summary: "Installations of an integration.", Query: append([]Param{externalID}, pageParams...), Status: 200, Response: model.IntegrationInstallationList{}},
		Operation{Method: "POST", Pattern: named + "/installations", ID: "installIntegration", Tag: "installations",
			Summary: "Install an integration on an organization (admin there).", Body: model.InstallIntegrationInput{}, Status: 201, Response: model.IntegrationInstallation{}},
		Operation{Method: "GET", Pattern: inst, ID: "getIntegrationInstallationById", Tag: "installations",
			Summary: "An installation.", Status: 200, Response: model.IntegrationInstallation{}},
		Operation{Method: "PATCH", Pattern: inst, ID: "updateIntegrationInstallation", Tag: "installations",
			Summary: "Change an installation's configuration, external ids or selections.", Body: model.UpdateInstallationInput{}, Status: 200, Response: model.IntegrationInstallation{}},
		Operation{Method: "DELETE", Pattern: inst, ID: "uninstallIntegration", Tag: "installations",
			Summary: "Uninstall an integration.", Status: 205},
		Operation{Method: "POST", Pattern: inst + "/tokens", ID: "createIntegrationInstallationToken", Tag: "installations",
			Summary: "Mint an installation token (one hour).", Status: 200, Response: model.InstallationToken{}},
		Operation{Method: "GET", Pattern: "/orgs/{organizationId}/installations", ID: "listOrganizationInstallations", Tag: "installations",
			Summary: "Installations in an organization with their integrations.",
			Query:   append([]Param{{Name: "search", Type: "", Description: "Text in the integration's name."}}, pageParams...),
			Status:  200, Response: model.OrganizationInstallationList{}},
		Operation{Method: "GET", Pattern: named + "/spaces", ID: "listIntegrationSpaceInstallations", Tag: "installations",
			Summary: "Spaces an integration is installed on.", Query: append([]Param{externalID, extended}, pageParams...), Status: 200, Response: model.IntegrationSpaceInstallationList{}},
		Operation{Method: "GET", Pattern: named + "/sites", ID: "listIntegrationSiteInstallations", Tag: "installations",
			Summary: "Sites an integration is installed on.", Query: append([]Param{externalID, extendedSites}, pageParams...), Status: 200, Response: model.IntegrationSiteInstallationList{}},
		Operation{Method: "GET", Pattern: inst + "/spaces", ID: "listIntegrationInstallationSpaces", Tag: "installations",
			Summary: "Spaces of one installation.", Query: append([]Param{extended}, pageParams...), Status: 200, Response: model.IntegrationSpaceInstallationList{}},
		Operation{Method: "POST", Pattern: inst + "/spaces", ID: "installIntegrationOnSpace", Tag: "installations",
			Summary: "Install on a live space of the installation's organization (admin role on the space).", Body: model.TargetInstallationInput{}, Status: 201, Response: model.IntegrationSpaceInstallation{}},
		Operation{Method: "GET", Pattern: inst + "/spaces/{spaceId}", ID: "getIntegrationSpaceInstallation", Tag: "installations",
			Summary: "One space installation.", Status: 200, Response: model.IntegrationSpaceInstallation{}},
		Operation{Method: "PATCH", Pattern: inst + "/spaces/{spaceId}", ID: "updateIntegrationSpaceInstallation", Tag: "installations",
			Summary: "Change a space installation.", Body: model.UpdateTargetInstallationInput{}, Status: 200, Response: model.IntegrationSpaceInstallation{}},
		Operation{Method: "DELETE", Pattern: inst + "/spaces/{spaceId}", ID: "uninstallIntegrationFromSpace", Tag: "installations",
			Summary: "Uninstall from a space.", Status: 205},
		Operation{Method: "GET", Pattern: inst + "/sites", ID: "listIntegrationInstallationSites", Tag: "installations",
			Summary: "Sites of one installation.", Query: append([]Param{extendedSites}, pageParams...), Status: 200, Response: model.IntegrationSiteInstallationList{}},
		Operation{Method: "POST", Pattern: inst + "/sites", ID: "installIntegrationOnSite", Tag: "installations",
			Summary: "Install on a site.", Body: model.TargetInstallationInput{}, Status: 201, Response: model.IntegrationSiteInstallation{}},
		Operation{Method: "GET", Pattern: inst + "/sites/{siteId}", ID: "getIntegrationSiteInstallation", Tag: "installations",
			Summary: "One site installation.", Status: 200, Response: model.IntegrationSiteInstallation{}},
		Operation{Method: "PATCH", Pattern: inst + "/sites/{siteId}", ID: "updateIntegrationSiteInstallation", Tag: "installations",
			Summary: "Change a site installation.", Body: model.UpdateTargetInstallationInput{}, Status: 200, Response: model.IntegrationSiteInstallation{}},
		Operation{Method: "DELETE", Pattern: inst + "/sites/{siteId}", ID: "uninstallIntegrationFromSite", Tag: "installations",
			Summary: "Uninstall from a site.", Status: 205},
	)
}

// expandable describes a target entry whose field holds the target's id, or
// the whole object (its <field>Object) in extended lists.
func expandable(v any, field, description string) {
	overrideSchema(v, func(obj map[string]any) map[string]any {
		props := obj["properties"].(map[string]any)
		props[field] = map[string]any{"oneOf": []any{
			map[string]any{"type": "string", "description": "The " + field + " id."},
			props[field+"Object"],
		}, "description": description}
		delete(props, field+"Object")
		return obj
	})
}
