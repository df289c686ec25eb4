package model

import "github.com/99designs/gqlgen/graphql"

type Organization struct {
	Object               string                      `json:"object"`
	ID                   string                      `json:"id"`
	Title                string                      `json:"title"`
	CreatedAt            string                      `json:"createdAt"`
	EmailDomains         []string                    `json:"emailDomains"`
	Hostname             *string                     `json:"hostname,omitempty"`
	Type                 string                      `json:"type"`
	UseCase              *string                     `json:"useCase,omitempty"`
	CommunityType        *string                     `json:"communityType,omitempty"`
	DefaultRole          *Role                       `json:"defaultRole"`
	DefaultContent       *OrganizationDefaultContent `json:"defaultContent,omitempty"`
	Sso                  bool                        `json:"sso"`
	Ai                   bool                        `json:"ai"`
	InviteLinks          bool                        `json:"inviteLinks"`
	Plan                 string                      `json:"plan"`
	Urls                 OrganizationURLs            `json:"urls"`
	Trial                OrganizationTrial           `json:"trial"`
	CustomHostname       *string                     `json:"customHostname,omitempty"`
	InternalIsOnNewTrial bool                        `json:"internal_isOnNewTrial"`
	Permissions          OrganizationPermissions     `json:"permissions"`
}

type OrganizationDefaultContent struct {
	Type string `json:"type"`
	Site string `json:"site"`
}

type OrganizationURLs struct {
	Location string  `json:"location"`
	App      string  `json:"app"`
	Logo     *string `json:"logo,omitempty"`
}

type OrganizationTrial struct {
	Status string `json:"status"`
}

type OrganizationPermissions struct {
	View                bool `json:"view"`
	Admin               bool `json:"admin"`
	OwnTeam             bool `json:"ownTeam"`
	CreateContent       bool `json:"createContent"`
	CreateOpenAPISpec   bool `json:"createOpenAPISpec"`
	IngestConversations bool `json:"ingestConversations"`
	ViewBilling         bool `json:"viewBilling"`
	ListMembers         bool `json:"listMembers"`
	ListTeams           bool `json:"listTeams"`
	ListIntegrations    bool `json:"listIntegrations"`
}

type OrganizationList List[*Organization]

type OrganizationsForEmailDomain struct {
	Organizations []*Organization `json:"organizations"`
}

type OrganizationDefaultContentInput struct {
	Type string `json:"type"`
	Site string `json:"site"`
}

// UpdateOrganizationInput: Omittable fields tell "omitted" from "null".
type UpdateOrganizationInput struct {
	Title          *string                                             `json:"title,omitempty"`
	EmailDomains   []string                                            `json:"emailDomains,omitempty"`
	Hostname       graphql.Omittable[*string]                          `json:"hostname,omitzero"`
	DefaultRole    graphql.Omittable[*Role]                            `json:"defaultRole,omitzero"`
	DefaultContent graphql.Omittable[*OrganizationDefaultContentInput] `json:"defaultContent,omitzero"`
	Logo           graphql.Omittable[*string]                          `json:"logo,omitzero"`
	Sso            *bool                                               `json:"sso,omitempty"`
	Ai             *bool                                               `json:"ai,omitempty"`
	InviteLinks    *bool                                               `json:"inviteLinks,omitempty"`
}
