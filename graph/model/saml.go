package model

import (
	"io"

	"github.com/99designs/gqlgen/graphql"
)

// SAMLProvider: EntityID, SsoURL and Certificate are "" while not configured.
type SAMLProvider struct {
	Object      string              `json:"object"`
	ID          string              `json:"id"`
	Label       string              `json:"label"`
	SsoURL      string              `json:"ssoURL"`
	EntityID    string              `json:"entityID"`
	Certificate string              `json:"certificate"`
	DefaultTeam *Team               `json:"defaultTeam,omitempty"`
	DefaultRole *Role               `json:"defaultRole"`
	CreatedAt   string              `json:"createdAt"`
	Status      SAMLProviderStatus  `json:"status"`
	Service     SAMLServiceProvider `json:"service"`
	Urls        SAMLProviderURLs    `json:"urls"`
}

// SAMLServiceProvider is docsapi's side of one identity provider.
type SAMLServiceProvider struct {
	AcsURL   string `json:"acsURL"`
	StartURL string `json:"startURL"`
	EntityID string `json:"entityID"`
}

type SAMLProviderURLs struct {
	Location string `json:"location"`
}

type SAMLProviderList List[*SAMLProvider]

// SSOProviderLogin is what a login page needs of one provider.
type SSOProviderLogin struct {
	ID       string `json:"id"`
	Label    string `json:"label"`
	StartURL string `json:"startURL"`
}

type SSOProviderLogins struct {
	Items []*SSOProviderLogin `json:"items"`
}

// SAMLProviderStatus: pending until entityID, ssoURL and certificate are set.
type SAMLProviderStatus string

var SAMLProviderStatuses = newEnum[SAMLProviderStatus]("active", "pending")

func (v SAMLProviderStatus) MarshalGQL(w io.Writer)     { SAMLProviderStatuses.marshal(w, v) }
func (v *SAMLProviderStatus) UnmarshalGQL(in any) error { return SAMLProviderStatuses.unmarshal(in, v) }
func (v SAMLProviderStatus) IsValid() bool              { return SAMLProviderStatuses.valid[v] }

// CreateSAMLProviderInput is the create body (label required). defaultTeam
// and defaultRole tell "omitted" from null: null clears the team, or makes
// provisioned members guests.
type CreateSAMLProviderInput struct {
	Label       *string                    `json:"label,omitempty"`
	EntityID    *string                    `json:"entityID,omitempty"`
	Certificate *string                    `json:"certificate,omitempty"`
	SsoURL      *string                    `json:"ssoURL,omitempty"`
	DefaultTeam graphql.Omittable[*string] `json:"defaultTeam,omitzero"`
	DefaultRole graphql.Omittable[*Role]   `json:"defaultRole,omitzero"`
}

// UpdateSAMLProviderInput is the update body: the same fields, all optional.
type UpdateSAMLProviderInput CreateSAMLProviderInput

// SAMLSession is what a completed SAML login hands the browser: a session
// API token, shown once.
type SAMLSession struct {
	Object       string `json:"object"`
	Token        string `json:"token"`
	ExpiresAt    string `json:"expiresAt"`
	Organization string `json:"organization"`
	User         *User  `json:"user"`
	Joined       bool   `json:"joined"`
}
