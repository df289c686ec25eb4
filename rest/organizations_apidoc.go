package rest

import (
	"docsapi/graph/model"
)

// Declarations of the routes in organizations.go for the served API
// description (see openapi.go).

func init() {
	declareEnum[model.Role](model.Roles.List())
	overrideSchema(model.InviteeInput{}, func(obj map[string]any) map[string]any {
		return map[string]any{"oneOf": []any{map[string]any{"type": "string", "description": "An e-mail address."}, obj}}
	})
	describe(
		Operation{Method: "GET", Pattern: "/", ID: "getApiInformation", Tag: "api", Public: true,
			Summary: "Version and build of the server; needs no token.", Status: 200, Response: model.ApiInformation{}},
		Operation{Method: "GET", Pattern: "/user", ID: "getAuthenticatedUser", Tag: "users",
			Summary: "The user of the token.", Status: 200, Response: model.User{}, Conditional: true},
		Operation{Method: "GET", Pattern: "/users/{userId}", ID: "getUserById", Tag: "users",
			Summary: "A user who shares an organization with the caller (or the caller).", Status: 200, Response: model.User{}, Conditional: true},
		Operation{Method: "GET", Pattern: "/orgs", ID: "listOrganizationsForAuthenticatedUser", Tag: "organizations",
			Summary: "Organizations the caller belongs to.", Query: pageParams, Status: 200, Response: model.OrganizationList{}},
		Operation{Method: "GET", Pattern: "/orgs/{organizationId}", ID: "getOrganizationById", Tag: "organizations",
			Summary: "An organization the caller belongs to.", Status: 200, Response: model.Organization{}, Conditional: true},
		Operation{Method: "PATCH", Pattern: "/orgs/{organizationId}", ID: "updateOrganizationById", Tag: "organizations",
			Summary: "Change an organization (admin).", Body: model.UpdateOrganizationInput{}, Status: 200, Response: model.Organization{}, Conditional: true},
		Operation{Method: "GET", Pattern: "/email-domains/{emailDomain}/orgs", ID: "getOrganizationsForEmailDomain", Tag: "organizations",
			Summary: "Organizations claiming an e-mail domain that the caller belongs to or may join.", Status: 200, Response: model.OrganizationsForEmailDomain{}},
		Operation{Method: "POST", Pattern: "/orgs/{organizationId}/invites", ID: "inviteUsersToOrganization", Tag: "invites",
			Summary: "Invite people by e-mail (admin).", Body: model.InviteUsersInput{}, Status: 200, Response: model.InviteUsersResult{}},
		Operation{Method: "GET", Pattern: "/orgs/{organizationId}/link-invites", ID: "listOrganizationInviteLinks", Tag: "invites",
			Summary: "Invitation links of an organization (admin).", Query: pageParams, Status: 200, Response: model.LinkInviteList{}},
		Operation{Method: "POST", Pattern: "/orgs/{organizationId}/link-invites", ID: "createOrganizationInvite", Tag: "invites",
			Summary: "Create an invitation link (admin).", Body: model.CreateLinkInviteInput{}, Status: 201, Response: model.LinkInvite{}},
		Operation{Method: "DELETE", Pattern: "/orgs/{organizationId}/link-invites/{inviteId}", ID: "deleteOrganizationInviteById", Tag: "invites",
			Summary: "Delete an invitation link (admin).", Status: 205},
	)
}
