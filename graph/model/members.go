package model

import (
	"encoding/json"

	"github.com/99designs/gqlgen/graphql"
)

type Member struct {
	Object     string  `json:"object"`
	ID         string  `json:"id"`
	Role       *Role   `json:"role"`
	User       *User   `json:"user"`
	Disabled   bool    `json:"disabled"`
	JoinedAt   string  `json:"joinedAt"`
	LastSeenAt *string `json:"lastSeenAt,omitempty"`
	Sso        bool    `json:"sso"`
	Spaces     int     `json:"spaces"`
	Teams      int     `json:"teams"`
}

type MemberList List[*Member]

// CommentersList is a page of commenters; 0.130.0 requires `total` beside
// `count` (both the number of commenters in all pages).
type CommentersList struct {
	Next  *Next     `json:"next,omitempty"`
	Count int       `json:"count"`
	Total int       `json:"total"`
	Items []*Member `json:"items"`
}

type PingResult struct {
	ServiceVisitorClaims *string `json:"serviceVisitorClaims,omitempty"`
}

type UpdateMemberInput struct {
	Role graphql.Omittable[*Role] `json:"role,omitzero"`
}

// InviteeInput is one e-mail to invite. REST accepts a bare string too.
type InviteeInput struct {
	Email string `json:"email"`
	Role  *Role  `json:"role,omitempty"`
}

type InviteUsersInput struct {
	Emails []*InviteeInput          `json:"emails"`
	Role   graphql.Omittable[*Role] `json:"role,omitzero"`
	Sso    *bool                    `json:"sso,omitempty"`
}

type InviteUsersResult struct {
	Users   []string `json:"users"`
	Invited int      `json:"invited"`
}

type LinkInvite struct {
	Object    string `json:"object"`
	ID        string `json:"id"`
	Role      *Role  `json:"role"`
	Redundant bool   `json:"redundant"`
}

type LinkInviteList List[*LinkInvite]

// UpdateLinkInviteInput is one of 0.130.0's {role} and {level} (content
// links, which docsapi does not make).
type UpdateLinkInviteInput struct {
	Role  graphql.Omittable[*Role] `json:"role,omitzero"`
	Level graphql.Omittable[*Role] `json:"level,omitzero"`
}

// CreateLinkInviteInput: role is required, null meaning guests.
type CreateLinkInviteInput struct {
	Role graphql.Omittable[*Role] `json:"role,omitzero"`
}

// UnmarshalJSON lets REST callers list invitees as bare e-mail strings or
// as {email, role} objects, as the published interface allows.
func (in *InviteeInput) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		*in = InviteeInput{Email: s}
		return nil
	}
	type plain InviteeInput
	return json.Unmarshal(b, (*plain)(in))
}
