package rest

import (
	"docsapi/graph/model"
)

// Declarations of the routes in saml.go for the served API description.

func init() {
	declareEnum[model.SAMLProviderStatus](model.SAMLProviderStatuses.List())
	const provider = "/orgs/{organizationId}/saml/{samlProviderId}"
	describe(
		Operation{Method: "GET", Pattern: "/orgs/{organizationId}/saml", ID: "listSAMLProvidersInOrganizationById", Tag: "sso",
			Summary: "SAML identity providers of an organization (admin).", Query: pageParams, Status: 200, Response: model.SAMLProviderList{}},
		Operation{Method: "POST", Pattern: "/orgs/{organizationId}/saml", ID: "createOrganizationSAMLProvider", Tag: "sso",
			Summary: "Add a SAML identity provider (admin).", Body: model.CreateSAMLProviderInput{}, Status: 201, Response: model.SAMLProvider{}},
		Operation{Method: "GET", Pattern: provider, ID: "getOrganizationSAMLProviderById", Tag: "sso",
			Summary: "A SAML identity provider (admin).", Status: 200, Response: model.SAMLProvider{}},
		Operation{Method: "PATCH", Pattern: provider, ID: "updateOrganizationSAMLProvider", Tag: "sso",
			Summary: "Change a SAML identity provider (admin).", Body: model.UpdateSAMLProviderInput{}, Status: 200, Response: model.SAMLProvider{}},
		Operation{Method: "DELETE", Pattern: provider, ID: "deleteOrganizationSAMLProvider", Tag: "sso",
			Summary: "Remove a SAML identity provider (admin).", Status: 205},
		Operation{Method: "GET", Pattern: "/orgs/{organizationId}/sso", ID: "listSSOProviderLoginsInOrganization", Tag: "sso",
			Summary: "Login information of the active providers (any authenticated caller).", Status: 200, Response: model.SSOProviderLogins{}},
	)
}
