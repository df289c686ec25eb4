package graph

import (
	"regexp"

	"docsapi/graph/model"
	"docsapi/storage"
)

// subdomainPattern is the rule for organization hostnames (subdomains).
var subdomainPattern = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{1,30}[a-z0-9]$`)

// emailDomainPattern accepts DNS names such as example.com.
var emailDomainPattern = regexp.MustCompile(`^([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$`)

// orgPermissions is what member m may do with the organization (nil: not a
// member). ownTeam: the caller owns a team, or is an admin (who may manage
// every team).
func orgPermissions(m *storage.Membership) model.OrganizationPermissions {
	if m == nil {
		return model.OrganizationPermissions{}
	}
	role := m.Role
	admin := atLeast(role, "admin")
	return model.OrganizationPermissions{
		View: true, Admin: admin, OwnTeam: admin || m.OwnsTeam,
		CreateContent: atLeast(role, "create"), CreateOpenAPISpec: atLeast(role, "create"),
		IngestConversations: admin, ViewBilling: admin,
		ListMembers: role != nil, ListTeams: role != nil, ListIntegrations: admin,
	}
}

func roleModel(role *string) *model.Role {
	if role == nil {
		return nil
	}
	r := model.Role(*role)
	return &r
}

func roleString(role *model.Role) *string {
	if role == nil {
		return nil
	}
	s := string(*role)
	return &s
}

// orgModel is o as seen by a caller with that membership (nil: not a member).
func (r *Resolver) orgModel(o storage.Organization, caller *storage.Membership) *model.Organization {
	base := r.Config.PublicURL
	m := &model.Organization{
		Object: "organization", ID: o.ID, Title: o.Title, CreatedAt: model.Time(o.CreatedAt),
		EmailDomains: o.EmailDomains, Hostname: o.Hostname, Type: o.Type, UseCase: o.UseCase,
		CommunityType: o.CommunityType, DefaultRole: roleModel(o.DefaultRole),
		Sso: o.SSO, Ai: o.AI, InviteLinks: o.InviteLinks, Plan: o.Plan,
		Urls:                 model.OrganizationURLs{Location: base + "/v1/orgs/" + o.ID, App: base + "/o/" + o.ID, Logo: o.Logo},
		Trial:                model.OrganizationTrial{Status: "notapplicable"},
		InternalIsOnNewTrial: true,
		Permissions:          orgPermissions(caller),
	}
	if o.DefaultContentSite != nil {
		m.DefaultContent = &model.OrganizationDefaultContent{Type: "site", Site: *o.DefaultContentSite}
	}
	return m
}
