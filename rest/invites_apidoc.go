package rest

import (
	"docsapi/graph/model"
)

// Declarations of the routes in invites.go for the served API description.

func init() {
	describe(
		Operation{Method: "GET", Pattern: "/orgs/{organizationId}/link-invites/{inviteId}", ID: "getOrganizationInviteLink", Tag: "invites",
			Summary: "An invite link (admin).", Status: 200, Response: model.LinkInvite{}},
		Operation{Method: "PATCH", Pattern: "/orgs/{organizationId}/link-invites/{inviteId}", ID: "updateOrganizationInviteById", Tag: "invites",
			Summary: "Change the role an invite link gives (admin); level (content links) is refused.", Body: model.UpdateLinkInviteInput{}, Status: 200, Response: model.LinkInvite{}},
		Operation{Method: "POST", Pattern: "/orgs/{organizationId}/invites/{inviteId}", ID: "joinOrganizationWithInvite", Tag: "invites",
			Summary: "Join the organization with the link's role (members keep theirs).", Status: 200, Response: joinResult{}},
		Operation{Method: "PATCH", Pattern: "/users/{userId}", ID: "updateUserById", Tag: "users",
			Summary: "Change your own display name or photo URL.", Body: model.UpdateUserInput{}, Status: 200, Response: model.User{}},
	)
}
