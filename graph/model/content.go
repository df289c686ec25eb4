package model

import (
	"io"

	"github.com/99designs/gqlgen/graphql"
)

// DefaultLevel is the role members get on content by default: a Role,
// "inherit" (the parent's, or the organization role at the top level), or
// null (no default access).
type DefaultLevel string

var DefaultLevels = newEnum[DefaultLevel]("admin", "create", "review", "edit", "comment", "read", "inherit")

func (v DefaultLevel) MarshalGQL(w io.Writer)     { DefaultLevels.marshal(w, v) }
func (v *DefaultLevel) UnmarshalGQL(in any) error { return DefaultLevels.unmarshal(in, v) }
func (v DefaultLevel) IsValid() bool              { return DefaultLevels.valid[v] }

// ContentPointerType names the kind of item a position points at.
type ContentPointerType string

var ContentPointerTypes = newEnum[ContentPointerType]("space", "collection")

func (v ContentPointerType) MarshalGQL(w io.Writer)     { ContentPointerTypes.marshal(w, v) }
func (v *ContentPointerType) UnmarshalGQL(in any) error { return ContentPointerTypes.unmarshal(in, v) }
func (v ContentPointerType) IsValid() bool              { return ContentPointerTypes.valid[v] }

// ContentPointer is {type: "space", space} or {type: "collection", collection}.
type ContentPointer struct {
	Type       ContentPointerType `json:"type"`
	Space      *string            `json:"space,omitempty"`
	Collection *string            `json:"collection,omitempty"`
}

// ContentPointerInput is a position pointer in a move body.
type ContentPointerInput struct {
	Type       ContentPointerType `json:"type"`
	Space      *string            `json:"space,omitempty"`
	Collection *string            `json:"collection,omitempty"`
}

// ContentPositionInput places an item before or after a sibling; neither: at the end.
type ContentPositionInput struct {
	Before *ContentPointerInput `json:"before,omitempty"`
	After  *ContentPointerInput `json:"after,omitempty"`
}

// MoveContentInput is the body of the collection and space moves: Parent
// omitted keeps the parent (or takes the pointer's), null is the top level.
type MoveContentInput struct {
	Parent   graphql.Omittable[*string] `json:"parent,omitzero"`
	Position *ContentPositionInput      `json:"position,omitempty"`
}

type TransferContentInput struct {
	Organization string `json:"organization"`
}

// GrantPrincipalType is who a content grant is made to.
type GrantPrincipalType string

var GrantPrincipalTypes = newEnum[GrantPrincipalType]("team", "user")

func (v GrantPrincipalType) MarshalGQL(w io.Writer)     { GrantPrincipalTypes.marshal(w, v) }
func (v *GrantPrincipalType) UnmarshalGQL(in any) error { return GrantPrincipalTypes.unmarshal(in, v) }
func (v GrantPrincipalType) IsValid() bool              { return GrantPrincipalTypes.valid[v] }

// ContentGrant is a role on a space or collection given to a team or member.
type ContentGrant struct {
	Target        ContentPointer     `json:"target"`
	PrincipalType GrantPrincipalType `json:"principalType"`
	Principal     string             `json:"principal"`
	Role          Role               `json:"role"`
	CreatedAt     string             `json:"createdAt"`
}

type ContentGrantList List[*ContentGrant]

// ContentGrantInput names a target (exactly one of space, collection) and a
// principal (exactly one of team, user).
type ContentGrantInput struct {
	Space      *string `json:"space,omitempty"`
	Collection *string `json:"collection,omitempty"`
	Team       *string `json:"team,omitempty"`
	User       *string `json:"user,omitempty"`
	Role       *Role   `json:"role,omitempty"`
}
