package rest

import (
	"net/http"

	"github.com/go-chi/chi/v5"

	"docsapi/graph/model"
)

// Personal API tokens: an extension beside the published interface.

func init() { register(mountTokens) }

func mountTokens(a *API, r chi.Router) {
	r.Get("/user/tokens", a.ok(func(r *http.Request) (any, error) {
		page, limit, err := paging(r)
		if err != nil {
			return nil, err
		}
		return a.Q.APITokens(r.Context(), page, limit)
	}))
	r.Post("/user/tokens", a.created(func(r *http.Request) (any, error) {
		var in model.CreateAPITokenInput
		if err := decode(r, &in, bodyRequired); err != nil {
			return nil, err
		}
		return a.M.CreateAPIToken(r.Context(), in)
	}))
	r.Delete("/user/tokens/{tokenId}", a.deleted(func(r *http.Request) (*model.DeleteResult, error) {
		return a.M.DeleteAPIToken(r.Context(), path(r, "tokenId"))
	}))
}
