package model

import "github.com/99designs/gqlgen/graphql"

type Collection struct {
	Object       string                `json:"object"`
	ID           string                `json:"id"`
	Title        string                `json:"title"`
	Description  *string               `json:"description,omitempty"`
	Organization string                `json:"organization"`
	Parent       *string               `json:"parent,omitempty"`
	DefaultLevel *DefaultLevel         `json:"defaultLevel"`
	Urls         CollectionURLs        `json:"urls"`
	Permissions  CollectionPermissions `json:"permissions"`
}

type CollectionURLs struct {
	Location string `json:"location"`
	App      string `json:"app"`
}

type CollectionPermissions struct {
	View            bool `json:"view"`
	Admin           bool `json:"admin"`
	ViewInviteLinks bool `json:"viewInviteLinks"`
	Create          bool `json:"create"`
}

type CollectionList List[*Collection]

type CreateCollectionInput struct {
	Title  *string `json:"title,omitempty"`
	Parent *string `json:"parent,omitempty"`
}

type UpdateCollectionInput struct {
	Title        *string                          `json:"title,omitempty"`
	Description  graphql.Omittable[*string]       `json:"description,omitzero"`
	DefaultLevel graphql.Omittable[*DefaultLevel] `json:"defaultLevel,omitzero"`
}
