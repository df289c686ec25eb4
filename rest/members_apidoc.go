package rest

import (
	"docsapi/graph/model"
)

// Declarations of the routes in members.go for the served API description.

func init() {
	declareEnum[model.Order](model.Orders.List())
	declareEnum[model.MemberSort](model.MemberSorts.List())
	describe(
		Operation{Method: "GET", Pattern: "/orgs/{organizationId}/members", ID: "listMembersInOrganizationById", Tag: "members",
			Summary: "Members of an organization.", Status: 200, Response: model.MemberList{},
			Query: append([]Param{
				{Name: "order", Type: model.Order(""), Description: "Sort direction."},
				{Name: "role", Type: "", Description: "Only members with this role (`guest` for members without one)."},
				{Name: "search", Type: "", Description: "Only members whose name or e-mail contains this text."},
				{Name: "sort", Type: model.MemberSort(""), Description: "Sort key."},
			}, pageParams...)},
		Operation{Method: "GET", Pattern: "/orgs/{organizationId}/members/{userId}", ID: "getMemberInOrganizationById", Tag: "members",
			Summary: "A member of an organization.", Status: 200, Response: model.Member{}, Conditional: true},
		Operation{Method: "PATCH", Pattern: "/orgs/{organizationId}/members/{userId}", ID: "updateMemberInOrganizationById", Tag: "members",
			Summary: "Change a member's role (admin).", Body: model.UpdateMemberInput{}, Status: 200, Response: model.Member{}, Conditional: true},
		Operation{Method: "DELETE", Pattern: "/orgs/{organizationId}/members/{userId}", ID: "removeMemberFromOrganizationById", Tag: "members",
			Summary: "Remove a member (admin, or the member themselves).", Status: 205, Conditional: true},
		Operation{Method: "POST", Pattern: "/orgs/{organizationId}/ping", ID: "updateOrganizationMemberLastSeenAt", Tag: "members",
			Summary: "Record that the caller was seen; answers signed visitor claims.", Status: 200, Response: model.PingResult{}},
		Operation{Method: "POST", Pattern: "/orgs/{organizationId}/members/{userId}/sso", ID: "setUserAsSSOMemberForOrganization", Tag: "members",
			Summary: "Mark a member as signing in through SSO (admin).", Status: 200, Response: model.Member{}},
		Operation{Method: "GET", Pattern: "/orgs/{organizationId}/members/{userId}/teams", ID: "listTeamsForOrganizationMember", Tag: "members",
			Summary: "Teams of a member.", Status: 200, Response: model.MemberTeamList{},
			Query: append([]Param{{Name: "title", Type: "", Description: "Only teams whose title contains this text."}}, pageParams...)},
	)
}
