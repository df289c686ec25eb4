// Package model holds the types of the API: each struct is both the GraphQL
// type (gqlgen binds to it) and the exact JSON the REST API writes.
package model

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
	"unicode"
)

// enum maps an API enum's REST values (admin, share-link, joinedAt) to
// GraphQL names (ADMIN, SHARE_LINK, JOINED_AT) and back. REST values are the
// Go values; GraphQL names appear only on the GraphQL wire.
type enum[T ~string] struct {
	values  []T
	fromGQL map[string]T
	valid   map[T]bool
}

func newEnum[T ~string](values ...T) enum[T] {
	e := enum[T]{values: values, fromGQL: map[string]T{}, valid: map[T]bool{}}
	for _, v := range values {
		e.fromGQL[gqlName(string(v))] = v
		e.valid[v] = true
	}
	return e
}

// gqlName turns a REST enum value into a GraphQL enum name.
func gqlName(v string) string {
	var b strings.Builder
	prevLower := false
	for _, r := range v {
		switch {
		case r == '-' || r == ':' || r == '.' || r == ' ':
			b.WriteByte('_')
			prevLower = false
			continue
		case unicode.IsUpper(r) && prevLower:
			b.WriteByte('_')
		}
		b.WriteRune(unicode.ToUpper(r))
		prevLower = unicode.IsLower(r) || unicode.IsDigit(r)
	}
	return b.String()
}

func (e enum[T]) marshal(w io.Writer, v T) { io.WriteString(w, strconv.Quote(gqlName(string(v)))) }

func (e enum[T]) unmarshal(in any, out *T) error {
	s, ok := in.(string)
	if !ok {
		return fmt.Errorf("enum value must be a string")
	}
	v, ok := e.fromGQL[s]
	if !ok {
		return fmt.Errorf("%s is not a valid value", s)
	}
	*out = v
	return nil
}

// Values is the REST values in declaration order (do not change the slice).
func (e enum[T]) Values() []T { return e.values }

// List is the REST values, for error messages.
func (e enum[T]) List() string {
	parts := make([]string, len(e.values))
	for i, v := range e.values {
		parts[i] = string(v)
	}
	return strings.Join(parts, ", ")
}

// Role is a member's or a content default role.
type Role string

var Roles = newEnum[Role]("admin", "create", "review", "edit", "comment", "read")

func (v Role) MarshalGQL(w io.Writer)     { Roles.marshal(w, v) }
func (v *Role) UnmarshalGQL(in any) error { return Roles.unmarshal(in, v) }
func (v Role) IsValid() bool              { return Roles.valid[v] }

// Order is a list's sort direction.
type Order string

var Orders = newEnum[Order]("asc", "desc")

func (v Order) MarshalGQL(w io.Writer)     { Orders.marshal(w, v) }
func (v *Order) UnmarshalGQL(in any) error { return Orders.unmarshal(in, v) }
func (v Order) IsValid() bool              { return Orders.valid[v] }

// MemberSort is the sort key of the members list.
type MemberSort string

var MemberSorts = newEnum[MemberSort]("joinedAt", "lastSeenAt")

func (v MemberSort) MarshalGQL(w io.Writer)     { MemberSorts.marshal(w, v) }
func (v *MemberSort) UnmarshalGQL(in any) error { return MemberSorts.unmarshal(in, v) }
func (v MemberSort) IsValid() bool              { return MemberSorts.valid[v] }

// TeamMemberRole is a member's role in a team.
type TeamMemberRole string

var TeamMemberRoles = newEnum[TeamMemberRole]("owner", "member")

func (v TeamMemberRole) MarshalGQL(w io.Writer)     { TeamMemberRoles.marshal(w, v) }
func (v *TeamMemberRole) UnmarshalGQL(in any) error { return TeamMemberRoles.unmarshal(in, v) }
func (v TeamMemberRole) IsValid() bool              { return TeamMemberRoles.valid[v] }

// Time formats a timestamp as the API writes it: ISO 8601, UTC, milliseconds.
func Time(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

// TimePtr is Time for optional timestamps.
func TimePtr(t *time.Time) *string {
	if t == nil {
		return nil
	}
	s := Time(*t)
	return &s
}
