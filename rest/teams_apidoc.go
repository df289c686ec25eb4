package rest

import (
	"docsapi/graph/model"
)

// Declarations of the routes in teams.go for the served API description.

func init() {
	declareEnum[model.TeamMemberRole](model.TeamMemberRoles.List())
	describe(
		Operation{Method: "GET", Pattern: "/orgs/{organizationId}/teams", ID: "listTeamsInOrganizationById", Tag: "teams",
			Summary: "Teams of an organization.", Status: 200, Response: model.TeamList{},
			Query: append([]Param{
				{Name: "owner", Type: "", Description: "Only teams this user owns."},
				{Name: "title", Type: "", Description: "Only teams whose title contains this text."},
			}, pageParams...)},
		Operation{Method: "PUT", Pattern: "/orgs/{organizationId}/teams", ID: "createOrganizationTeam", Tag: "teams",
			Summary: "Create a team (admin).", Body: model.CreateTeamInput{}, Status: 201, Response: model.Team{}},
		Operation{Method: "GET", Pattern: "/orgs/{organizationId}/teams/{teamId}", ID: "getTeamInOrganizationById", Tag: "teams",
			Summary: "A team.", Status: 200, Response: model.Team{}, Conditional: true},
		Operation{Method: "PATCH", Pattern: "/orgs/{organizationId}/teams/{teamId}", ID: "updateTeamInOrganizationById", Tag: "teams",
			Summary: "Rename a team (admin).", Body: model.UpdateTeamInput{}, Status: 200, Response: model.Team{}, Conditional: true},
		Operation{Method: "DELETE", Pattern: "/orgs/{organizationId}/teams/{teamId}", ID: "removeTeamFromOrganizationById", Tag: "teams",
			Summary: "Delete a team (admin).", Status: 205, Conditional: true},
		Operation{Method: "GET", Pattern: "/orgs/{organizationId}/teams/{teamId}/members", ID: "listTeamMembersInOrganizationById", Tag: "teams",
			Summary: "Members of a team.", Query: pageParams, Status: 200, Response: model.TeamMemberList{}},
		Operation{Method: "PUT", Pattern: "/orgs/{organizationId}/teams/{teamId}/members", ID: "updateMembersInOrganizationTeam", Tag: "teams",
			Summary: "Add, remove and change the roles of team members (admin or team owner).", Body: model.UpdateTeamMembersInput{}, Status: 204},
		Operation{Method: "PUT", Pattern: "/orgs/{organizationId}/teams/{teamId}/members/{userId}", ID: "addMemberToOrganizationTeamById", Tag: "teams",
			Summary: "Add a member to a team or change their team role (admin or team owner).", Body: setTeamMemberBody{}, BodyOptional: true, Status: 204},
		Operation{Method: "DELETE", Pattern: "/orgs/{organizationId}/teams/{teamId}/members/{userId}", ID: "deleteMemberFromOrganizationTeamById", Tag: "teams",
			Summary: "Remove a member from a team (admin or team owner).", Status: 205},
	)
}
