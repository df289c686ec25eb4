package rest

import (
	"docsapi/graph/model"
)

// Declarations of the routes in reviews.go for the served API description.

func init() {
	declareEnum[model.ChangeRequestReviewStatus](model.ChangeRequestReviewStatuses.List())
	declareEnum[model.RequestedReviewerKind](model.RequestedReviewerKinds.List())
	op := func(method, suffix, id, summary string, status int, res any) Operation {
		return Operation{Method: method, Pattern: crPrefix + suffix, ID: id, Tag: "change-requests", Summary: summary, Status: status, Response: res}
	}
	with := func(o Operation, f func(o *Operation)) Operation { f(&o); return o }
	describe(
		with(op("GET", "/requested-reviewers", "getRequestedReviewersByChangeRequestId", "Pending review requests, oldest first.", 200, model.ChangeRequestRequestedReviewerList{}),
			func(o *Operation) { o.Query = pageParams }),
		with(op("POST", "/requested-reviewers", "requestReviewersForChangeRequest",
			"Ask members holding review on the space to review (edit role); asking again renews the request.", 200, model.RequestReviewersResult{}),
			func(o *Operation) { o.Body = model.RequestReviewersInput{} }),
		op("DELETE", "/requested-reviewers/{userId}", "removeRequestedReviewerFromChangeRequest", "Withdraw a review request (edit role).", 205, nil),
		with(op("GET", "/reviews", "getReviewsByChangeRequestId",
			"Each reviewer's latest review, oldest first; a review whose revision is not the change request's is stale.", 200, model.ChangeRequestReviewList{}),
			func(o *Operation) {
				o.Query = append([]Param{{Name: "format", Type: model.PageFormat(""), Description: "Format of the review comments' bodies."}}, pageParams...)
			}),
		with(op("POST", "/reviews", "submitChangeRequestReview",
			"Approve or request changes (review role); replaces the caller's previous review and fulfils their request.", 201, model.ChangeRequestReview{}),
			func(o *Operation) { o.Body = model.SubmitReviewInput{} }),
		op("GET", "/contributors", "getContributorsByChangeRequestId", "Who created or edited the change request, latest first.", 200, model.UserContributorList{}),
		with(op("GET", "/links", "listChangeRequestLinks", "Link targets of the change request's content, with stats.", 200, model.LinkList{}),
			func(o *Operation) {
				o.Query = append([]Param{
					{Name: "status", Type: model.LinkStatus(""), Description: "Only link targets of this status."},
					{Name: "brokenContext", Type: "", Description: "change-request or space: accepted; links are judged in the change request's content."},
				}, pageParams...)
			}),
	)
}
