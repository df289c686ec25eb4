package model

import "io"

// ChangeRequest is a branch of a space's content.
type ChangeRequest struct {
	Object                 string              `json:"object"`
	ID                     string              `json:"id"`
	Number                 int                 `json:"number"`
	Status                 ChangeRequestStatus `json:"status"`
	Subject                string              `json:"subject"`
	AgentTaskID            *string             `json:"agentTaskId,omitempty"`
	CreatedBy              *User               `json:"createdBy"`
	CreatedAt              string              `json:"createdAt"`
	UpdatedAt              string              `json:"updatedAt"`
	Revision               string              `json:"revision"`
	RevisionInitial        string              `json:"revisionInitial"`
	RevisionMergedAncestor *string             `json:"revisionMergedAncestor,omitempty"`
	RevisionMerged         *string             `json:"revisionMerged,omitempty"`
	Comments               int                 `json:"comments"`
	Outdated               bool                `json:"outdated"`
	Urls                   ChangeRequestURLs   `json:"urls"`
}

type ChangeRequestURLs struct {
	Location string `json:"location"`
	App      string `json:"app"`
}

type ChangeRequestList List[*ChangeRequest]

type CreateChangeRequestInput struct {
	Subject     *string `json:"subject"`
	AgentTaskID *string `json:"agentTaskId"`
}

type UpdateChangeRequestInput struct {
	Subject *string              `json:"subject"`
	Status  *ChangeRequestStatus `json:"status"`
}

// ChangeRequestResult is the answer of a merge or an update.
type ChangeRequestResult struct {
	Revision string       `json:"revision"`
	Result   MergeOutcome `json:"result"`
}

// ChangeRequestPDF is where the rendered PDF can be downloaded.
type ChangeRequestPDF struct {
	URL string `json:"url"`
}

// ChangeRequestStatus is a change request's state.
type ChangeRequestStatus string

var ChangeRequestStatuses = newEnum[ChangeRequestStatus]("draft", "open", "archived", "merged")

func (v ChangeRequestStatus) MarshalGQL(w io.Writer) { ChangeRequestStatuses.marshal(w, v) }
func (v *ChangeRequestStatus) UnmarshalGQL(in any) error {
	return ChangeRequestStatuses.unmarshal(in, v)
}
func (v ChangeRequestStatus) IsValid() bool { return ChangeRequestStatuses.valid[v] }

// MergeOutcome is what a merge or an update did.
type MergeOutcome string

var MergeOutcomes = newEnum[MergeOutcome]("merge", "update", "conflicts")

func (v MergeOutcome) MarshalGQL(w io.Writer)     { MergeOutcomes.marshal(w, v) }
func (v *MergeOutcome) UnmarshalGQL(in any) error { return MergeOutcomes.unmarshal(in, v) }
func (v MergeOutcome) IsValid() bool              { return MergeOutcomes.valid[v] }
