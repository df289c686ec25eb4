package rest

import (
	"net/http"

	"github.com/go-chi/chi/v5"

	"docsapi/graph/model"
)

func init() { register(mountPermissions) }

// permissionTargets are the two kinds of content with the same permissions
// routes: the base path, its id parameter, and how a path id becomes the
// (space, collection) pair the resolvers take.
var permissionTargets = []struct {
	base, param string
	target      func(id string) (space, collection *string)
}{
	{"/spaces/{spaceId}", "spaceId", func(id string) (*string, *string) { return &id, nil }},
	{"/collections/{collectionId}", "collectionId", func(id string) (*string, *string) { return nil, &id }},
}

func mountPermissions(a *API, r chi.Router) {
	for _, t := range permissionTargets {
		target := func(r *http.Request) (*string, *string) { return t.target(path(r, t.param)) }
		r.Post(t.base+"/permissions", a.noContent(func(r *http.Request) error {
			var in model.InviteUsersAndTeamsInput
			if err := decode(r, &in, bodyRequired); err != nil {
				return err
			}
			space, collection := target(r)
			_, err := a.M.InviteToContent(r.Context(), space, collection, in)
			return err
		}))
		r.Get(t.base+"/permissions/users", a.ok(func(r *http.Request) (any, error) {
			page, limit, err := paging(r)
			if err != nil {
				return nil, err
			}
			space, collection := target(r)
			return a.Q.ContentUserPermissions(r.Context(), space, collection, page, limit)
		}))
		r.Get(t.base+"/permissions/teams", a.ok(func(r *http.Request) (any, error) {
			page, limit, err := paging(r)
			if err != nil {
				return nil, err
			}
			space, collection := target(r)
			return a.Q.ContentTeamPermissions(r.Context(), space, collection, page, limit)
		}))
		r.Get(t.base+"/permissions/aggregate", a.ok(func(r *http.Request) (any, error) {
			page, limit, err := paging(r)
			if err != nil {
				return nil, err
			}
			space, collection := target(r)
			return a.Q.ContentPermissionsAggregate(r.Context(), space, collection, qEnum[model.Role](r, "role"), page, limit)
		}))
		// principal reads the {userId} or {teamId} of the route as the
		// (user, team) pair.
		for _, p := range []struct {
			segment, param string
			principal      func(id string) (user, team *string)
		}{
			{"users", "userId", func(id string) (*string, *string) { return &id, nil }},
			{"teams", "teamId", func(id string) (*string, *string) { return nil, &id }},
		} {
			route := t.base + "/permissions/" + p.segment + "/{" + p.param + "}"
			r.Patch(route, a.noContent(func(r *http.Request) error {
				var in model.UpdateContentPermissionInput
				if err := decode(r, &in, bodyRequired); err != nil {
					return err
				}
				space, collection := target(r)
				user, team := p.principal(path(r, p.param))
				_, err := a.M.UpdateContentPermission(r.Context(), space, collection, user, team, in)
				return err
			}))
			r.Delete(route, a.deleted(func(r *http.Request) (*model.DeleteResult, error) {
				space, collection := target(r)
				user, team := p.principal(path(r, p.param))
				return a.M.RemoveContentPermission(r.Context(), space, collection, user, team)
			}))
		}
	}
	r.Get("/orgs/{organizationId}/sites/{siteId}/permissions/aggregate", a.ok(func(r *http.Request) (any, error) {
		page, limit, err := paging(r)
		if err != nil {
			return nil, err
		}
		return a.Q.SitePermissionsAggregate(r.Context(), path(r, "organizationId"), path(r, "siteId"), page, limit)
	}))
}
