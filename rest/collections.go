package rest

import (
	"net/http"

	"github.com/go-chi/chi/v5"

	"docsapi/graph/model"
)

func init() { register(mountCollections) }

func mountCollections(a *API, r chi.Router) {
	r.Get("/orgs/{organizationId}/collections", a.ok(func(r *http.Request) (any, error) {
		page, limit, err := paging(r)
		if err != nil {
			return nil, err
		}
		nested, err := qBool(r, "nested")
		if err != nil {
			return nil, err
		}
		return a.Q.Collections(r.Context(), path(r, "organizationId"), page, limit, nested)
	}))
	r.Post("/orgs/{organizationId}/collections", a.created(func(r *http.Request) (any, error) {
		var in model.CreateCollectionInput
		if err := decode(r, &in, bodyOptional); err != nil {
			return nil, err
		}
		return a.M.CreateCollection(r.Context(), path(r, "organizationId"), &in)
	}))
	get := func(r *http.Request) (any, error) { return a.Q.Collection(r.Context(), path(r, "collectionId")) }
	r.Get("/collections/{collectionId}", a.resource(get))
	r.Patch("/collections/{collectionId}", a.ifMatch(get, a.ok(func(r *http.Request) (any, error) {
		var in model.UpdateCollectionInput
		if err := decode(r, &in, bodyRequired); err != nil {
			return nil, err
		}
		return a.M.UpdateCollection(r.Context(), path(r, "collectionId"), in)
	})))
	r.Delete("/collections/{collectionId}", a.ifMatch(get, a.deleted(func(r *http.Request) (*model.DeleteResult, error) {
		return a.M.DeleteCollection(r.Context(), path(r, "collectionId"))
	})))
	r.Get("/collections/{collectionId}/spaces", a.ok(func(r *http.Request) (any, error) {
		page, limit, err := paging(r)
		if err != nil {
			return nil, err
		}
		return a.Q.CollectionSpaces(r.Context(), path(r, "collectionId"), page, limit)
	}))
	r.Post("/collections/{collectionId}/move", a.ok(func(r *http.Request) (any, error) {
		var in model.MoveContentInput
		if err := decode(r, &in, bodyRequired); err != nil {
			return nil, err
		}
		return a.M.MoveCollection(r.Context(), path(r, "collectionId"), in)
	}))
	r.Post("/collections/{collectionId}/transfer", a.ok(func(r *http.Request) (any, error) {
		var in model.TransferContentInput
		if err := decode(r, &in, bodyRequired); err != nil {
			return nil, err
		}
		return a.M.TransferCollection(r.Context(), path(r, "collectionId"), in)
	}))
}
