package rest

import (
	"net/http"

	"github.com/go-chi/chi/v5"

	"docsapi/apierr"
)

func init() { register(mountSearch) }

func mountSearch(a *API, r chi.Router) {
	query := func(r *http.Request) (string, error) {
		q := qStr(r, "query")
		if q == nil {
			return "", apierr.Invalid("query", "is required")
		}
		return *q, nil
	}
	r.Get("/spaces/{spaceId}/search", a.ok(func(r *http.Request) (any, error) {
		pg, limit, err := paging(r)
		if err != nil {
			return nil, err
		}
		q, err := query(r)
		if err != nil {
			return nil, err
		}
		return a.Q.SearchSpace(r.Context(), path(r, "spaceId"), q, pg, limit)
	}))
	r.Get("/orgs/{organizationId}/search", a.ok(func(r *http.Request) (any, error) {
		pg, limit, err := paging(r)
		if err != nil {
			return nil, err
		}
		q, err := query(r)
		if err != nil {
			return nil, err
		}
		return a.Q.SearchOrganization(r.Context(), path(r, "organizationId"), q, pg, limit)
	}))
}
