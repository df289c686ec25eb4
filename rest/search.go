package rest

import (
	"net/http"

	"github.com/go-chi/chi/v5"
)

func init() { register(mountSearch) }

func mountSearch(a *API, r chi.Router) {
	// A missing query is an empty one: the resolver refuses it (400 naming
	// `query`), for REST and GraphQL alike.
	query := func(r *http.Request) string { return r.URL.Query().Get("query") }
	r.Get("/spaces/{spaceId}/search", a.ok(func(r *http.Request) (any, error) {
		pg, limit, err := paging(r)
		if err != nil {
			return nil, err
		}
		return a.Q.SearchSpace(r.Context(), path(r, "spaceId"), query(r), pg, limit)
	}))
	r.Get("/orgs/{organizationId}/search", a.ok(func(r *http.Request) (any, error) {
		pg, limit, err := paging(r)
		if err != nil {
			return nil, err
		}
		return a.Q.SearchOrganization(r.Context(), path(r, "organizationId"), query(r), pg, limit)
	}))
}
