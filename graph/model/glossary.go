package model

import "io"

// GlossaryEntry is an entry of an organization's translations glossary.
type GlossaryEntry struct {
	Object string `json:"object"`
	ID     string `json:"id"`
	// Translations maps a language code to the term in that language.
	Translations map[string]any    `json:"translations"`
	CreatedAt    string            `json:"createdAt"`
	UpdatedAt    string            `json:"updatedAt"`
	Urls         GlossaryEntryURLs `json:"urls"`
}

type GlossaryEntryURLs struct {
	Location string `json:"location"`
}

type GlossaryEntryList List[*GlossaryEntry]

// GlossaryBatchOperation is one operation of updateGlossaryEntries.
type GlossaryBatchOperation struct {
	Type         GlossaryOperationType `json:"type"`
	ID           *string               `json:"id,omitempty"`
	Translations map[string]any        `json:"translations,omitempty"`
}

type UpdateGlossaryEntriesInput struct {
	Operations []*GlossaryBatchOperation `json:"operations"`
}

// GlossaryOperationType is the kind of a glossary batch operation.
type GlossaryOperationType string

var GlossaryOperationTypes = newEnum[GlossaryOperationType]("insert", "update", "delete")

func (v GlossaryOperationType) MarshalGQL(w io.Writer) { GlossaryOperationTypes.marshal(w, v) }
func (v *GlossaryOperationType) UnmarshalGQL(in any) error {
	return GlossaryOperationTypes.unmarshal(in, v)
}
func (v GlossaryOperationType) IsValid() bool { return GlossaryOperationTypes.valid[v] }
