package rest

import (
	"net/http"

	"github.com/go-chi/chi/v5"

	"docsapi/graph/model"
)

func init() { register(mountMembers) }

func mountMembers(a *API, r chi.Router) {
	r.Get("/orgs/{organizationId}/members", a.ok(func(r *http.Request) (any, error) {
		page, limit, err := paging(r)
		if err != nil {
			return nil, err
		}
		return a.Q.Members(r.Context(), path(r, "organizationId"), page, limit,
			qEnum[model.Order](r, "order"), qStr(r, "role"), qStr(r, "search"), qEnum[model.MemberSort](r, "sort"))
	}))
	getMember := func(r *http.Request) (any, error) {
		return a.Q.Member(r.Context(), path(r, "organizationId"), path(r, "userId"))
	}
	r.Get("/orgs/{organizationId}/members/{userId}", a.resource(getMember))
	r.Patch("/orgs/{organizationId}/members/{userId}", a.ifMatch(getMember, a.ok(func(r *http.Request) (any, error) {
		var in model.UpdateMemberInput
		if err := decode(r, &in, bodyRequired); err != nil {
			return nil, err
		}
		return a.M.UpdateMember(r.Context(), path(r, "organizationId"), path(r, "userId"), in)
	})))
	r.Delete("/orgs/{organizationId}/members/{userId}", a.ifMatch(getMember, a.deleted(func(r *http.Request) (*model.DeleteResult, error) {
		return a.M.RemoveMember(r.Context(), path(r, "organizationId"), path(r, "userId"))
	})))
	r.Post("/orgs/{organizationId}/ping", a.ok(func(r *http.Request) (any, error) {
		return a.M.PingOrganization(r.Context(), path(r, "organizationId"))
	}))
	r.Post("/orgs/{organizationId}/members/{userId}/sso", a.ok(func(r *http.Request) (any, error) {
		return a.M.SetMemberSso(r.Context(), path(r, "organizationId"), path(r, "userId"))
	}))
	r.Get("/orgs/{organizationId}/members/{userId}/teams", a.ok(func(r *http.Request) (any, error) {
		page, limit, err := paging(r)
		if err != nil {
			return nil, err
		}
		return a.Q.MemberTeams(r.Context(), path(r, "organizationId"), path(r, "userId"), page, limit, qStr(r, "title"))
	}))
}
