package rest

import (
	"net/http"

	"github.com/go-chi/chi/v5"

	"docsapi/graph/model"
)

func init() { register(mountReviews) }

// mountReviews serves the review of change requests (graph/reviews.go) and
// the change request's link list.
func mountReviews(a *API, r chi.Router) {
	ids := func(r *http.Request) (string, string) { return path(r, "spaceId"), path(r, "changeRequestId") }
	r.Get(crPrefix+"/requested-reviewers", a.ok(func(r *http.Request) (any, error) {
		page, limit, err := paging(r)
		if err != nil {
			return nil, err
		}
		space, cr := ids(r)
		return a.Q.ChangeRequestRequestedReviewers(r.Context(), space, cr, page, limit)
	}))
	r.Post(crPrefix+"/requested-reviewers", a.ok(func(r *http.Request) (any, error) {
		var in model.RequestReviewersInput
		if err := decode(r, &in, bodyRequired); err != nil {
			return nil, err
		}
		space, cr := ids(r)
		return a.M.RequestReviewers(r.Context(), space, cr, in)
	}))
	r.Delete(crPrefix+"/requested-reviewers/{userId}", a.deleted(func(r *http.Request) (*model.DeleteResult, error) {
		space, cr := ids(r)
		return a.M.RemoveRequestedReviewer(r.Context(), space, cr, path(r, "userId"))
	}))
	r.Get(crPrefix+"/reviews", a.ok(func(r *http.Request) (any, error) {
		page, limit, err := paging(r)
		if err != nil {
			return nil, err
		}
		space, cr := ids(r)
		return a.Q.ChangeRequestReviews(r.Context(), space, cr, qEnum[model.PageFormat](r, "format"), page, limit)
	}))
	r.Post(crPrefix+"/reviews", a.created(func(r *http.Request) (any, error) {
		var in model.SubmitReviewInput
		if err := decode(r, &in, bodyRequired); err != nil {
			return nil, err
		}
		space, cr := ids(r)
		return a.M.SubmitChangeRequestReview(r.Context(), space, cr, in)
	}))
	r.Get(crPrefix+"/contributors", a.ok(func(r *http.Request) (any, error) {
		space, cr := ids(r)
		return a.Q.ChangeRequestContributors(r.Context(), space, cr)
	}))
	r.Get(crPrefix+"/links", a.ok(func(r *http.Request) (any, error) {
		page, limit, err := paging(r)
		if err != nil {
			return nil, err
		}
		space, cr := ids(r)
		return a.Q.ChangeRequestLinks(r.Context(), space, cr, page, limit, qEnum[model.LinkStatus](r, "status"), qStr(r, "brokenContext"))
	}))
}
