package model

import (
	"encoding/json"
	"io"

	"github.com/99designs/gqlgen/graphql"
)

// ContentVisibility is who may read a space's published content.
type ContentVisibility string

var ContentVisibilities = newEnum[ContentVisibility]("public", "unlisted", "share-link", "visitor-auth", "in-collection", "private")

func (v ContentVisibility) MarshalGQL(w io.Writer)     { ContentVisibilities.marshal(w, v) }
func (v *ContentVisibility) UnmarshalGQL(in any) error { return ContentVisibilities.unmarshal(in, v) }
func (v ContentVisibility) IsValid() bool              { return ContentVisibilities.valid[v] }

// SpaceEditMode: live (edits allowed) or locked (every content change refused).
type SpaceEditMode string

var SpaceEditModes = newEnum[SpaceEditMode]("live", "locked")

func (v SpaceEditMode) MarshalGQL(w io.Writer)     { SpaceEditModes.marshal(w, v) }
func (v *SpaceEditMode) UnmarshalGQL(in any) error { return SpaceEditModes.unmarshal(in, v) }
func (v SpaceEditMode) IsValid() bool              { return SpaceEditModes.valid[v] }

type Space struct {
	Object              string            `json:"object"`
	ID                  string            `json:"id"`
	Type                string            `json:"type"` // always SpaceTypeDocument
	Title               string            `json:"title"`
	Emoji               string            `json:"emoji"`
	Visibility          ContentVisibility `json:"visibility"`
	CreatedAt           string            `json:"createdAt"`
	UpdatedAt           string            `json:"updatedAt"`
	DeletedAt           *string           `json:"deletedAt,omitempty"`
	EditMode            SpaceEditMode     `json:"editMode"`
	Organization        string            `json:"organization"`
	Parent              *string           `json:"parent,omitempty"`
	Revision            string            `json:"revision"`
	DefaultLevel        *DefaultLevel     `json:"defaultLevel"`
	Comments            int               `json:"comments"`
	ChangeRequests      int               `json:"changeRequests"`
	ChangeRequestsOpen  int               `json:"changeRequestsOpen"`
	ChangeRequestsDraft int               `json:"changeRequestsDraft"`
	Urls                SpaceURLs         `json:"urls"`
	Permissions         SpacePermissions  `json:"permissions"`
	// GitSync is the space's Git Sync state (0.130.0 GitSyncState), absent
	// when Git Sync was never set up on it.
	GitSync *GitSyncState `json:"gitSync,omitempty"`
}

// APILocation is urls.location, for the Location header of a create
// (rest.locationOf).
func (s *Space) APILocation() string { return s.Urls.Location }

// SpaceTypeDocument is the one value of Space.type: 0.130.0 requires the
// field without defining it, and docsapi has one kind of space.
const SpaceTypeDocument = "document"

type SpaceURLs struct {
	Location string `json:"location"`
	App      string `json:"app"`
	// Published is the space's URL in the published site a share key opened.
	Published *string `json:"published,omitempty"`
	Icon      *string `json:"icon,omitempty"`
}

type SpacePermissions struct {
	View            bool `json:"view"`
	Access          bool `json:"access"`
	Admin           bool `json:"admin"`
	ViewInviteLinks bool `json:"viewInviteLinks"`
	Edit            bool `json:"edit"`
	TriggerGitSync  bool `json:"triggerGitSync"`
	Comment         bool `json:"comment"`
	Merge           bool `json:"merge"`
	Review          bool `json:"review"`
}

type SpaceList List[*Space]

// MemberSpaceEntry is a space a member can reach, with the member's role on it.
type MemberSpaceEntry struct {
	Permission Role   `json:"permission"`
	Space      *Space `json:"space"`
}

type MemberSpaceList List[*MemberSpaceEntry]

// CreateSpaceInput: Template and ComputedSource are accepted by the
// published interface but not supported here (400).
type CreateSpaceInput struct {
	Title          *string         `json:"title,omitempty"`
	Emoji          *string         `json:"emoji,omitempty"`
	Parent         *string         `json:"parent,omitempty"`
	EditMode       *SpaceEditMode  `json:"editMode,omitempty"`
	Template       json.RawMessage `json:"template,omitempty"`
	ComputedSource json.RawMessage `json:"computedSource,omitempty"`
}

// UpdateSpaceInput: base fields plus one emoji/icon variant ({emoji},
// {icon}, or {emoji: null, icon: null} to remove both).
type UpdateSpaceInput struct {
	EditMode     *SpaceEditMode                   `json:"editMode,omitempty"`
	Title        *string                          `json:"title,omitempty"`
	DefaultLevel graphql.Omittable[*DefaultLevel] `json:"defaultLevel,omitzero"`
	Visibility   *ContentVisibility               `json:"visibility,omitempty"`
	Emoji        graphql.Omittable[*string]       `json:"emoji,omitzero"`
	Icon         graphql.Omittable[*string]       `json:"icon,omitzero"`
}
