package rest

import (
	"net/http"

	"github.com/go-chi/chi/v5"

	"docsapi/graph/model"
)

func init() { register(mountOrganizations) }

func mountOrganizations(a *API, r chi.Router) {
	r.Get("/", a.ok(func(r *http.Request) (any, error) { return a.Q.APIInformation(r.Context()) }))
	r.Get("/user", a.resource(func(r *http.Request) (any, error) { return a.Q.Viewer(r.Context()) }))
	r.Get("/users/{userId}", a.resource(func(r *http.Request) (any, error) { return a.Q.User(r.Context(), path(r, "userId")) }))

	r.Get("/orgs", a.ok(func(r *http.Request) (any, error) {
		page, limit, err := paging(r)
		if err != nil {
			return nil, err
		}
		return a.Q.Organizations(r.Context(), page, limit)
	}))
	getOrg := func(r *http.Request) (any, error) { return a.Q.Organization(r.Context(), path(r, "organizationId")) }
	r.Get("/orgs/{organizationId}", a.storedResource("organization", "organizationId", getOrg))
	r.Patch("/orgs/{organizationId}", a.ifMatch(getOrg, a.ok(func(r *http.Request) (any, error) {
		var in model.UpdateOrganizationInput
		if err := decode(r, &in, bodyRequired); err != nil {
			return nil, err
		}
		return a.M.UpdateOrganization(r.Context(), path(r, "organizationId"), in)
	})))
	r.Get("/email-domains/{emailDomain}/orgs", a.ok(func(r *http.Request) (any, error) {
		return a.Q.OrganizationsForEmailDomain(r.Context(), path(r, "emailDomain"))
	}))

	r.Post("/orgs/{organizationId}/invites", a.ok(func(r *http.Request) (any, error) {
		var in model.InviteUsersInput
		if err := decode(r, &in, bodyRequired); err != nil {
			return nil, err
		}
		return a.M.InviteUsers(r.Context(), path(r, "organizationId"), in)
	}))
	r.Get("/orgs/{organizationId}/link-invites", a.ok(func(r *http.Request) (any, error) {
		page, limit, err := paging(r)
		if err != nil {
			return nil, err
		}
		return a.Q.LinkInvites(r.Context(), path(r, "organizationId"), page, limit)
	}))
	r.Post("/orgs/{organizationId}/link-invites", a.created(func(r *http.Request) (any, error) {
		var in model.CreateLinkInviteInput
		if err := decode(r, &in, bodyRequired); err != nil {
			return nil, err
		}
		return a.M.CreateLinkInvite(r.Context(), path(r, "organizationId"), in)
	}))
	r.Delete("/orgs/{organizationId}/link-invites/{inviteId}", a.deleted(func(r *http.Request) (*model.DeleteResult, error) {
		return a.M.DeleteLinkInvite(r.Context(), path(r, "organizationId"), path(r, "inviteId"))
	}))
}
