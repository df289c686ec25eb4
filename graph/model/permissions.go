package model

import (
	"io"

	"github.com/99designs/gqlgen/graphql"
)

// UserContentPermission is a member's role on a space or a collection.
type UserContentPermission struct {
	Permission Role  `json:"permission"`
	User       *User `json:"user"`
}

type UserContentPermissionList List[*UserContentPermission]

// TeamContentPermission is a team's role on a space or a collection.
type TeamContentPermission struct {
	Permission Role  `json:"permission"`
	Team       *Team `json:"team"`
}

type TeamContentPermissionList List[*TeamContentPermission]

// PermissionOriginType is what gives a site permission.
type PermissionOriginType string

var PermissionOriginTypes = newEnum[PermissionOriginType]("space", "organization")

func (v PermissionOriginType) MarshalGQL(w io.Writer) { PermissionOriginTypes.marshal(w, v) }
func (v *PermissionOriginType) UnmarshalGQL(in any) error {
	return PermissionOriginTypes.unmarshal(in, v)
}
func (v PermissionOriginType) IsValid() bool { return PermissionOriginTypes.valid[v] }

// PermissionOrigin is 0.130.0's SpacePointer or OrganizationPointer.
type PermissionOrigin struct {
	Type         PermissionOriginType `json:"type"`
	Space        *string              `json:"space,omitempty"`
	Organization *string              `json:"organization,omitempty"`
}

// UserSitePermission is a member's role on a site (nil: guest).
type UserSitePermission struct {
	Permission *Role            `json:"permission"`
	User       *User            `json:"user"`
	Origin     PermissionOrigin `json:"origin"`
}

type UserSitePermissionList List[*UserSitePermission]

// InviteUsersAndTeamsInput is 0.130.0's InviteUsersAndTeams.
type InviteUsersAndTeamsInput struct {
	Role  *Role    `json:"role"`
	Users []string `json:"users,omitempty"`
	Teams []string `json:"teams,omitempty"`
}

// UpdateContentPermissionInput is the body of the update routes: a role,
// or null to remove the grant; a body without role is a 400.
type UpdateContentPermissionInput struct {
	Role graphql.Omittable[*Role] `json:"role,omitzero"`
}
