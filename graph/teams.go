package graph

import (
	"context"

	"docsapi/apierr"
	"docsapi/graph/model"
	"docsapi/storage"
)

func (r *Resolver) teamModel(t storage.Team, admin bool) *model.Team {
	return &model.Team{
		Object: "team", ID: t.ID, Title: t.Title, Members: t.Members, Spaces: t.Spaces,
		CreatedAt: model.Time(t.CreatedAt), Permissions: model.TeamPermissions{Admin: admin, View: true},
	}
}

// teamScope loads a team for a caller who may at least read the org.
func (r *Resolver) teamScope(ctx context.Context, orgID, teamID string) (orgScope, storage.Team, error) {
	s, err := r.inOrgAtLeast(ctx, orgID, "read", "reading teams")
	if err != nil {
		return s, storage.Team{}, err
	}
	t, err := r.Store.Team(ctx, orgID, teamID)
	if err != nil {
		return s, t, notFoundAs(err, "team")
	}
	return s, t, nil
}

// canManageTeamMembers: organization admins and the team's owners.
func (r *Resolver) canManageTeamMembers(ctx context.Context, s orgScope, teamID string) (bool, error) {
	if atLeast(s.Role(), "admin") {
		return true, nil
	}
	role, err := r.Store.TeamRole(ctx, teamID, s.Caller.UserID)
	return role == "owner", err
}

// teamsManagedBy tells which teams the caller may manage, for computing the
// permissions of a whole list with at most one query.
func (r *Resolver) teamsManagedBy(ctx context.Context, s orgScope) (func(teamID string) bool, error) {
	if atLeast(s.Role(), "admin") {
		return func(string) bool { return true }, nil
	}
	owned, err := r.Store.OwnedTeamIDs(ctx, s.Org.ID, s.Caller.UserID)
	if err != nil {
		return nil, err
	}
	return func(id string) bool { return owned[id] }, nil
}

// manageableTeam loads a team whose members the caller may manage.
func (r *Resolver) manageableTeam(ctx context.Context, orgID, teamID string) (orgScope, storage.Team, error) {
	s, t, err := r.teamScope(ctx, orgID, teamID)
	if err != nil {
		return s, t, err
	}
	ok, err := r.canManageTeamMembers(ctx, s, teamID)
	if err != nil {
		return s, t, err
	}
	if !ok {
		return s, t, apierr.Forbidden("managing a team's members needs the admin role or team ownership")
	}
	return s, t, nil
}

// resolveMemberRefs maps user ids or e-mails of organization members to
// user ids; an unknown reference is a 400 naming the field.
func (r *Resolver) resolveMemberRefs(ctx context.Context, orgID, field string, refs []string) ([]string, error) {
	if len(refs) == 0 {
		return nil, nil
	}
	if len(refs) > 1000 {
		return nil, apierr.Invalid(field, "must list at most 1000 members")
	}
	ids, missing, err := r.Store.MemberIDsByRef(ctx, orgID, refs)
	if err != nil {
		return nil, err
	}
	if len(missing) > 0 {
		return nil, apierr.Invalid(field, "%q is not a member of the organization", missing[0])
	}
	out := make([]string, 0, len(refs))
	for _, ref := range refs {
		out = append(out, ids[ref])
	}
	return out, nil
}

// parseMemberships reads {"<userId>": {"role": "owner"|"member"}}.
func parseMemberships(in map[string]any) (map[string]string, error) {
	out := map[string]string{}
	for uid, v := range in {
		obj, ok := v.(map[string]any)
		if !ok {
			return nil, apierr.Invalid("memberships", "entry %q must be an object {role}", uid)
		}
		role, _ := obj["role"].(string)
		if !model.TeamMemberRole(role).IsValid() {
			return nil, apierr.Invalid("memberships", "role of %q must be one of %s", uid, model.TeamMemberRoles.List())
		}
		out[uid] = role
	}
	return out, nil
}

func teamRoleFrom(role string) model.TeamMemberRole { return model.TeamMemberRole(role) }
