package rest

import (
	"net/http"

	"github.com/go-chi/chi/v5"

	"docsapi/graph/model"
)

func init() { register(mountTeams) }

func mountTeams(a *API, r chi.Router) {
	r.Get("/orgs/{organizationId}/teams", a.ok(func(r *http.Request) (any, error) {
		page, limit, err := paging(r)
		if err != nil {
			return nil, err
		}
		return a.Q.Teams(r.Context(), path(r, "organizationId"), page, limit, qStr(r, "owner"), qStr(r, "title"))
	}))
	r.Put("/orgs/{organizationId}/teams", a.created(func(r *http.Request) (any, error) {
		var in model.CreateTeamInput
		if err := decode(r, &in, bodyRequired); err != nil {
			return nil, err
		}
		return a.M.CreateTeam(r.Context(), path(r, "organizationId"), in)
	}))
	getTeam := func(r *http.Request) (any, error) {
		return a.Q.Team(r.Context(), path(r, "organizationId"), path(r, "teamId"))
	}
	r.Get("/orgs/{organizationId}/teams/{teamId}", a.resource(getTeam))
	r.Patch("/orgs/{organizationId}/teams/{teamId}", a.ifMatch(getTeam, a.ok(func(r *http.Request) (any, error) {
		var in model.UpdateTeamInput
		if err := decode(r, &in, bodyRequired); err != nil {
			return nil, err
		}
		return a.M.UpdateTeam(r.Context(), path(r, "organizationId"), path(r, "teamId"), in)
	})))
	r.Delete("/orgs/{organizationId}/teams/{teamId}", a.ifMatch(getTeam, a.deleted(func(r *http.Request) (*model.DeleteResult, error) {
		return a.M.DeleteTeam(r.Context(), path(r, "organizationId"), path(r, "teamId"))
	})))
	r.Get("/orgs/{organizationId}/teams/{teamId}/members", a.ok(func(r *http.Request) (any, error) {
		page, limit, err := paging(r)
		if err != nil {
			return nil, err
		}
		return a.Q.TeamMembers(r.Context(), path(r, "organizationId"), path(r, "teamId"), page, limit)
	}))
	r.Put("/orgs/{organizationId}/teams/{teamId}/members", a.noContent(func(r *http.Request) error {
		var in model.UpdateTeamMembersInput
		if err := decode(r, &in, bodyRequired); err != nil {
			return err
		}
		_, err := a.M.UpdateTeamMembers(r.Context(), path(r, "organizationId"), path(r, "teamId"), in)
		return err
	}))
	r.Put("/orgs/{organizationId}/teams/{teamId}/members/{userId}", a.noContent(func(r *http.Request) error {
		var in setTeamMemberBody
		if err := decode(r, &in, bodyOptional); err != nil {
			return err
		}
		_, err := a.M.SetTeamMember(r.Context(), path(r, "organizationId"), path(r, "teamId"), path(r, "userId"), in.Role)
		return err
	}))
	r.Delete("/orgs/{organizationId}/teams/{teamId}/members/{userId}", a.deleted(func(r *http.Request) (*model.DeleteResult, error) {
		return a.M.RemoveTeamMember(r.Context(), path(r, "organizationId"), path(r, "teamId"), path(r, "userId"))
	}))
}

// setTeamMemberBody is the optional body of PUT .../teams/{teamId}/members/{userId}.
type setTeamMemberBody struct {
	Role *model.TeamMemberRole `json:"role"`
}
