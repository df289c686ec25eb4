package rest

import (
	"docsapi/graph/model"
)

// Declarations of the routes in permissions.go for the served API description.

func init() {
	declareEnum[model.PermissionOriginType](model.PermissionOriginTypes.List())
	for _, t := range []struct{ base, kind, title string }{
		{"/spaces/{spaceId}", "space", "Space"},
		{"/collections/{collectionId}", "collection", "Collection"},
	} {
		in := " the " + t.kind
		describe(
			Operation{Method: "POST", Pattern: t.base + "/permissions", ID: "inviteTo" + t.title, Tag: "permissions",
				Summary: "Grant users and teams a role on" + in + " (admin on it).", Body: model.InviteUsersAndTeamsInput{}, Status: 204},
			Operation{Method: "GET", Pattern: t.base + "/permissions/users", ID: "listUserPermissionsIn" + t.title, Tag: "permissions",
				Summary: "Users granted a role on" + in + ".", Query: pageParams, Status: 200, Response: model.UserContentPermissionList{}},
			Operation{Method: "PATCH", Pattern: t.base + "/permissions/users/{userId}", ID: "updateUserPermissionIn" + t.title, Tag: "permissions",
				Summary: "Set a user's role on" + in + "; null removes the grant (admin on it).", Body: model.UpdateContentPermissionInput{}, Status: 204},
			Operation{Method: "DELETE", Pattern: t.base + "/permissions/users/{userId}", ID: "removeUserFrom" + t.title, Tag: "permissions",
				Summary: "Remove a user's grant on" + in + " (admin on it).", Status: 205},
			Operation{Method: "GET", Pattern: t.base + "/permissions/teams", ID: "listTeamPermissionsIn" + t.title, Tag: "permissions",
				Summary: "Teams granted a role on" + in + ".", Query: pageParams, Status: 200, Response: model.TeamContentPermissionList{}},
			Operation{Method: "PATCH", Pattern: t.base + "/permissions/teams/{teamId}", ID: "updateTeamPermissionIn" + t.title, Tag: "permissions",
				Summary: "Set a team's role on" + in + "; null removes the grant (admin on it).", Body: model.UpdateContentPermissionInput{}, Status: 204},
			Operation{Method: "DELETE", Pattern: t.base + "/permissions/teams/{teamId}", ID: "removeTeamFrom" + t.title, Tag: "permissions",
				Summary: "Remove a team's grant on" + in + " (admin on it).", Status: 205},
			Operation{Method: "GET", Pattern: t.base + "/permissions/aggregate", ID: "listPermissionsAggregateIn" + t.title, Tag: "permissions",
				Summary: "Every member who can reach" + in + ", with their effective role.",
				Query:   append([]Param{{Name: "role", Type: model.Role(""), Description: "Only members with this effective role."}}, pageParams...),
				Status:  200, Response: model.UserContentPermissionList{}},
		)
	}
	describe(Operation{Method: "GET", Pattern: "/orgs/{organizationId}/sites/{siteId}/permissions/aggregate", ID: "listPermissionsAggregateInSite", Tag: "permissions",
		Summary: "Every member who can read the site (READ in the organization and up).", Query: pageParams, Status: 200, Response: model.UserSitePermissionList{}})
}
