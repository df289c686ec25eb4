package rest

import (
	"net/http"

	"github.com/go-chi/chi/v5"

	"docsapi/graph/model"
)

func init() { register(mountTranslations) }

func mountTranslations(a *API, r chi.Router) {
	const one = "/orgs/{organizationId}/translations/{translationId}"
	org := func(r *http.Request) string { return path(r, "organizationId") }
	id := func(r *http.Request) string { return path(r, "translationId") }

	r.Get("/orgs/{organizationId}/translations", a.ok(func(r *http.Request) (any, error) {
		page, limit, err := paging(r)
		if err != nil {
			return nil, err
		}
		return a.Q.Translations(r.Context(), org(r), page, limit)
	}))
	r.Post("/orgs/{organizationId}/translations", a.created(func(r *http.Request) (any, error) {
		var in model.CreateTranslationInput
		if err := decode(r, &in, bodyRequired); err != nil {
			return nil, err
		}
		return a.M.CreateTranslation(r.Context(), org(r), in)
	}))
	get := func(r *http.Request) (any, error) { return a.Q.Translation(r.Context(), org(r), id(r)) }
	r.Get(one, a.resource(get))
	r.Put(one, a.ifMatch(get, a.ok(func(r *http.Request) (any, error) {
		var in model.UpdateTranslationInput
		if err := decode(r, &in, bodyRequired); err != nil {
			return nil, err
		}
		return a.M.UpdateTranslation(r.Context(), org(r), id(r), in)
	})))
	r.Delete(one, a.ifMatch(get, a.deleted(func(r *http.Request) (*model.DeleteResult, error) {
		return a.M.DeleteTranslation(r.Context(), org(r), id(r))
	})))
	// docsapi addition: the reference has no run operation. 202: the run is
	// queued, not done.
	r.Post(one+"/run", a.status(http.StatusAccepted, func(r *http.Request) (any, error) {
		return a.M.RunTranslation(r.Context(), org(r), id(r))
	}))
}
