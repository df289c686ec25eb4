package rest

import (
	"net/http"

	"github.com/go-chi/chi/v5"

	"docsapi/graph/model"
)

func init() { register(mountSpaces) }

func mountSpaces(a *API, r chi.Router) {
	r.Get("/orgs/{organizationId}/spaces", a.ok(func(r *http.Request) (any, error) {
		page, limit, err := paging(r)
		if err != nil {
			return nil, err
		}
		return a.Q.Spaces(r.Context(), path(r, "organizationId"), page, limit)
	}))
	r.Post("/orgs/{organizationId}/spaces", a.created(func(r *http.Request) (any, error) {
		var in model.CreateSpaceInput
		if err := decode(r, &in, bodyOptional); err != nil {
			return nil, err
		}
		return a.M.CreateSpace(r.Context(), path(r, "organizationId"), &in)
	}))
	r.Get("/orgs/{organizationId}/members/{userId}/spaces", a.ok(func(r *http.Request) (any, error) {
		page, limit, err := paging(r)
		if err != nil {
			return nil, err
		}
		return a.Q.MemberSpaces(r.Context(), path(r, "organizationId"), path(r, "userId"), page, limit, qEnum[model.Order](r, "order"))
	}))
	get := func(r *http.Request) (any, error) {
		return a.Q.Space(r.Context(), path(r, "spaceId"), qStr(r, "shareKey"))
	}
	r.Get("/spaces/{spaceId}", a.storedResource("space", "spaceId", get))
	r.Patch("/spaces/{spaceId}", a.ifMatch(get, a.ok(func(r *http.Request) (any, error) {
		var in model.UpdateSpaceInput
		if err := decode(r, &in, bodyRequired); err != nil {
			return nil, err
		}
		return a.M.UpdateSpace(r.Context(), path(r, "spaceId"), in)
	})))
	r.Delete("/spaces/{spaceId}", a.ifMatch(get, a.deleted(func(r *http.Request) (*model.DeleteResult, error) {
		return a.M.DeleteSpace(r.Context(), path(r, "spaceId"))
	})))
	r.Post("/spaces/{spaceId}/duplicate", a.created(func(r *http.Request) (any, error) {
		return a.M.DuplicateSpace(r.Context(), path(r, "spaceId"))
	}))
	r.Post("/spaces/{spaceId}/restore", a.ok(func(r *http.Request) (any, error) {
		return a.M.RestoreSpace(r.Context(), path(r, "spaceId"))
	}))
	r.Post("/spaces/{spaceId}/move", a.ok(func(r *http.Request) (any, error) {
		var in model.MoveContentInput
		if err := decode(r, &in, bodyRequired); err != nil {
			return nil, err
		}
		return a.M.MoveSpace(r.Context(), path(r, "spaceId"), in)
	}))
	r.Post("/spaces/{spaceId}/transfer", a.ok(func(r *http.Request) (any, error) {
		var in model.TransferContentInput
		if err := decode(r, &in, bodyRequired); err != nil {
			return nil, err
		}
		return a.M.TransferSpace(r.Context(), path(r, "spaceId"), in)
	}))
}
