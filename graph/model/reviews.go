package model

import "io"

// ChangeRequestReviewStatus is a reviewer's verdict.
type ChangeRequestReviewStatus string

var ChangeRequestReviewStatuses = newEnum[ChangeRequestReviewStatus]("approved", "changes-requested")

func (v ChangeRequestReviewStatus) MarshalGQL(w io.Writer) { ChangeRequestReviewStatuses.marshal(w, v) }
func (v *ChangeRequestReviewStatus) UnmarshalGQL(in any) error {
	return ChangeRequestReviewStatuses.unmarshal(in, v)
}
func (v ChangeRequestReviewStatus) IsValid() bool { return ChangeRequestReviewStatuses.valid[v] }

// RequestedReviewerKind is who was asked: docsapi asks users.
type RequestedReviewerKind string

var RequestedReviewerKinds = newEnum[RequestedReviewerKind]("user")

func (v RequestedReviewerKind) MarshalGQL(w io.Writer) { RequestedReviewerKinds.marshal(w, v) }
func (v *RequestedReviewerKind) UnmarshalGQL(in any) error {
	return RequestedReviewerKinds.unmarshal(in, v)
}
func (v RequestedReviewerKind) IsValid() bool { return RequestedReviewerKinds.valid[v] }

type ChangeRequestRequestedReviewer struct {
	Object      string                `json:"object"`
	Kind        RequestedReviewerKind `json:"kind"`
	User        *User                 `json:"user"`
	Revision    string                `json:"revision"`
	RequestedBy *User                 `json:"requestedBy"`
	CreatedAt   string                `json:"createdAt"`
}

type ChangeRequestRequestedReviewerList List[*ChangeRequestRequestedReviewer]

type RequestReviewersResult struct {
	Users []*ChangeRequestRequestedReviewer `json:"users"`
}

type ChangeRequestReview struct {
	Object      string                    `json:"object"`
	ID          string                    `json:"id"`
	Revision    string                    `json:"revision"`
	Reviewer    *User                     `json:"reviewer"`
	RequestedBy *User                     `json:"requestedBy,omitempty"`
	Status      ChangeRequestReviewStatus `json:"status"`
	Comment     *Comment                  `json:"comment,omitempty"`
	CreatedAt   string                    `json:"createdAt"`
	UpdatedAt   string                    `json:"updatedAt"`
	// Stale is GraphQL's: REST answers 0.130.0's shape, where a client
	// compares revision with the change request's.
	Stale bool `json:"-"`
	// location is the REST Location of a new review: the reviews list of
	// its change request (a review has no route of its own).
	location string
}

// APILocation is the Location header of a created review.
func (r *ChangeRequestReview) APILocation() string { return r.location }

// WithLocation sets the review's APILocation.
func (r *ChangeRequestReview) WithLocation(url string) *ChangeRequestReview {
	r.location = url
	return r
}

type ChangeRequestReviewList List[*ChangeRequestReview]

type UserContributor struct {
	User      *User  `json:"user"`
	Count     int    `json:"count"`
	UpdatedAt string `json:"updatedAt"`
}

type UserContributorList List[*UserContributor]

type RequestReviewersInput struct {
	Users   []string `json:"users"`
	Subject *string  `json:"subject,omitempty"`
}

type SubmitReviewInput struct {
	Status  ChangeRequestReviewStatus `json:"status"`
	Comment map[string]any            `json:"comment,omitempty"`
}
