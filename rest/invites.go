package rest

import (
	"net/http"

	"github.com/go-chi/chi/v5"

	"docsapi/graph/model"
)

func init() { register(mountInvites) }

// mountInvites serves one invite link, joining through one, and the
// caller's own profile (graph/invites.go, graph/users.go).
func mountInvites(a *API, r chi.Router) {
	r.Get("/orgs/{organizationId}/link-invites/{inviteId}", a.ok(func(r *http.Request) (any, error) {
		return a.Q.LinkInvite(r.Context(), path(r, "organizationId"), path(r, "inviteId"))
	}))
	r.Patch("/orgs/{organizationId}/link-invites/{inviteId}", a.ok(func(r *http.Request) (any, error) {
		var in model.UpdateLinkInviteInput
		if err := decode(r, &in, bodyRequired); err != nil {
			return nil, err
		}
		return a.M.UpdateLinkInvite(r.Context(), path(r, "organizationId"), path(r, "inviteId"), in)
	}))
	r.Post("/orgs/{organizationId}/invites/{inviteId}", a.ok(func(r *http.Request) (any, error) {
		_, err := a.M.JoinOrganizationWithInvite(r.Context(), path(r, "organizationId"), path(r, "inviteId"))
		return joinResult{}, err
	}))
	r.Patch("/users/{userId}", a.ok(func(r *http.Request) (any, error) {
		var in model.UpdateUserInput
		if err := decode(r, &in, bodyRequired); err != nil {
			return nil, err
		}
		return a.M.UpdateUser(r.Context(), path(r, "userId"), in)
	}))
}

// joinResult is 0.130.0's answer to joining: an empty object.
type joinResult struct{}
