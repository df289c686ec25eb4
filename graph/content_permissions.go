package graph

import (
	"context"

	"docsapi/apierr"
	"docsapi/graph/model"
	"docsapi/storage"
)

// The permissions routes of spaces, collections and sites: the grants of
// content.go (grantContentRole) seen per member and per team, and everyone
// an item reaches, computed by contentAccess.effectiveRole for each member.

// maxInvitees bounds each list of an invitation (users, teams): one write
// transaction holds them all.
const maxInvitees = 100

// contentRole validates a content role given where null means the guest
// organization role, which is no role on content.
func contentRole(role *model.Role) (string, error) {
	if role == nil {
		return "", apierr.Invalid("role", "must be one of %s (null, the guest role, gives no access to content)", model.Roles.List())
	}
	if err := checkEnum("role", *role, model.Roles.List()); err != nil {
		return "", err
	}
	return string(*role), nil
}

// principalRef is exactly one of a user id and a team id, as "user" or
// "team" and the id.
func principalRef(user, team *string) (kind, id string, err error) {
	switch {
	case (user == nil) == (team == nil):
		return "", "", apierr.Invalid("user", "give exactly one of user and team")
	case user != nil:
		return "user", *user, nil
	default:
		return "team", *team, nil
	}
}

// requirePrincipal answers 404 for a user who is not a member of orgID or a
// team that is not one of its teams (the published interface's answer to an
// unknown user or team).
func (r *Resolver) requirePrincipal(ctx context.Context, orgID, kind, id string) error {
	if kind == "team" {
		_, err := r.Store.Team(ctx, orgID, id)
		return notFoundAs(err, "team")
	}
	m, err := r.Store.MembershipOf(ctx, orgID, id)
	if err != nil {
		return err
	}
	if m == nil {
		return apierr.NotFound("user")
	}
	return nil
}

// adminTarget is contentTarget for changing who has access (ADMIN on it).
func (r *Resolver) adminTarget(ctx context.Context, space, collection *string) (contentTarget, error) {
	t, err := r.contentTarget(ctx, space, collection)
	if err != nil {
		return t, err
	}
	return t, t.Scope.require("admin", "managing who has access")
}

// grantChange is the audit entry of a grant given, changed or removed.
func grantChange(orgID, action string, g storage.ContentGrant) storage.Change {
	fields := map[string]any{g.PrincipalKind: g.PrincipalID}
	if g.Role != "" {
		fields["role"] = g.Role
	}
	return storage.Change{OrganizationID: orgID, Action: action, TargetType: g.TargetKind, TargetID: g.TargetID, Fields: fields}
}

// inviteToContent grants every user and team of the input the role, in one
// transaction (all or none).
func (r *Resolver) inviteToContent(ctx context.Context, space, collection *string, in model.InviteUsersAndTeamsInput) error {
	t, err := r.adminTarget(ctx, space, collection)
	if err != nil {
		return err
	}
	role, err := contentRole(in.Role)
	if err != nil {
		return err
	}
	if len(in.Users) == 0 && len(in.Teams) == 0 {
		return apierr.Invalid("users", "give at least one user or team")
	}
	var grants []storage.ContentGrant
	for _, list := range []struct {
		kind string
		ids  []string
	}{{"user", in.Users}, {"team", in.Teams}} {
		field := list.kind + "s"
		if len(list.ids) > maxInvitees {
			return apierr.Invalid(field, "at most %d", maxInvitees)
		}
		seen := map[string]bool{}
		for _, id := range list.ids {
			if err := checkLen(field, id, 1, 64); err != nil {
				return err
			}
			if seen[id] {
				continue
			}
			seen[id] = true
			if err := r.requirePrincipal(ctx, t.OrgID, list.kind, id); err != nil {
				return err
			}
			grants = append(grants, storage.ContentGrant{TargetKind: t.Item.Ref.Kind, TargetID: t.Item.Ref.ID, PrincipalKind: list.kind, PrincipalID: id, Role: role})
		}
	}
	ctx = storage.Recording(ctx, func() []storage.Change {
		out := make([]storage.Change, len(grants))
		for i, g := range grants {
			out[i] = grantChange(t.OrgID, "permission.granted", g)
		}
		return out
	})
	return r.Store.SetContentGrants(ctx, t.OrgID, grants)
}

// setContentPermission sets a member's or a team's role on the target; a
// null role removes their grant (false when there was none).
func (r *Resolver) setContentPermission(ctx context.Context, space, collection, user, team *string, in model.UpdateContentPermissionInput) (bool, error) {
	t, err := r.adminTarget(ctx, space, collection)
	if err != nil {
		return false, err
	}
	kind, id, err := principalRef(user, team)
	if err != nil {
		return false, err
	}
	if err := r.requirePrincipal(ctx, t.OrgID, kind, id); err != nil {
		return false, err
	}
	role, set := in.Role.ValueOK()
	if !set {
		return false, apierr.Invalid("role", "is required (a role, or null to remove the grant)")
	}
	if role == nil {
		res, err := r.removeGrant(ctx, t, kind, id)
		return res.Deleted, err
	}
	name, err := contentRole(role)
	if err != nil {
		return false, err
	}
	g := storage.ContentGrant{TargetKind: t.Item.Ref.Kind, TargetID: t.Item.Ref.ID, PrincipalKind: kind, PrincipalID: id, Role: name}
	ctx = storage.RecordingChange(ctx, grantChange(t.OrgID, "permission.granted", g))
	return true, r.Store.SetContentGrant(ctx, t.OrgID, g)
}

// removeContentPermission takes a member's or a team's grant away.
func (r *Resolver) removeContentPermission(ctx context.Context, space, collection, user, team *string) (*model.DeleteResult, error) {
	t, err := r.adminTarget(ctx, space, collection)
	if err != nil {
		return nil, err
	}
	kind, id, err := principalRef(user, team)
	if err != nil {
		return nil, err
	}
	return r.removeGrant(ctx, t, kind, id)
}

func (r *Resolver) removeGrant(ctx context.Context, t contentTarget, kind, id string) (*model.DeleteResult, error) {
	g := storage.ContentGrant{TargetKind: t.Item.Ref.Kind, TargetID: t.Item.Ref.ID, PrincipalKind: kind, PrincipalID: id}
	ctx = storage.RecordingChange(ctx, grantChange(t.OrgID, "permission.revoked", g))
	deleted, err := r.Store.DeleteContentGrant(ctx, t.Item.Ref, kind, id)
	if err != nil {
		return nil, err
	}
	return &model.DeleteResult{Deleted: deleted}, nil
}

func (r *Resolver) contentUserPermissions(ctx context.Context, space, collection, page *string, limit *int) (*model.UserContentPermissionList, error) {
	t, err := r.contentTarget(ctx, space, collection)
	if err != nil {
		return nil, err
	}
	pq, err := pageQuery(page, limit)
	if err != nil {
		return nil, err
	}
	p, err := r.Store.ListUserGrants(ctx, t.Item.Ref, pq)
	if err != nil {
		return nil, err
	}
	l := model.UserContentPermissionList(listOf(p, func(g storage.UserGrant) *model.UserContentPermission {
		return &model.UserContentPermission{Permission: model.Role(g.Grant.Role), User: r.userModel(g.User)}
	}))
	return &l, nil
}

func (r *Resolver) contentTeamPermissions(ctx context.Context, space, collection, page *string, limit *int) (*model.TeamContentPermissionList, error) {
	t, err := r.contentTarget(ctx, space, collection)
	if err != nil {
		return nil, err
	}
	pq, err := pageQuery(page, limit)
	if err != nil {
		return nil, err
	}
	p, err := r.Store.ListTeamGrants(ctx, t.Item.Ref, pq)
	if err != nil {
		return nil, err
	}
	// A team's admin permission is the caller's right to manage its members,
	// as in the teams list.
	s, err := r.inOrg(ctx, t.OrgID)
	if err != nil {
		return nil, err
	}
	manages, err := r.teamsManagedBy(ctx, s)
	if err != nil {
		return nil, err
	}
	l := model.TeamContentPermissionList(listOf(p, func(g storage.TeamGrant) *model.TeamContentPermission {
		return &model.TeamContentPermission{Permission: model.Role(g.Grant.Role), Team: r.teamModel(g.Team, manages(g.Team.ID))}
	}))
	return &l, nil
}

// contentPermissionsAggregate lists every member whose effective role on
// the item is above none. effectiveRole, for a member, is their
// organization role capped by the item's default levels, raised by the
// grants to them and their teams on the item and the collections above it,
// and by the space's visibility; all but the member's role and grants are
// the same for everyone, so they are worked out here once (readerQuery) and
// the storage pages through the members with the rank computed in SQL: a
// page costs its rows, not the organization's members.
func (r *Resolver) contentPermissionsAggregate(ctx context.Context, space, collection *string, role *model.Role, page *string, limit *int) (*model.UserContentPermissionList, error) {
	t, err := r.contentTarget(ctx, space, collection)
	if err != nil {
		return nil, err
	}
	pq, err := pageQuery(page, limit)
	if err != nil {
		return nil, err
	}
	q := readerQuery(t.Item, t.Scope.Access.nodes)
	if role != nil {
		if err := checkEnum("role", *role, model.Roles.List()); err != nil {
			return nil, err
		}
		q.Only = roleRank[*role]
	}
	p, err := r.Store.ListContentReaders(ctx, t.OrgID, q, pq)
	if err != nil {
		return nil, err
	}
	l := model.UserContentPermissionList(listOf(p, func(m storage.ContentReader) *model.UserContentPermission {
		return &model.UserContentPermission{Permission: roleName(m.Rank), User: r.userModel(m.Member.User)}
	}))
	return &l, nil
}

// readerQuery is what effectiveRole does for every member of the item's
// organization at once: admins reach everything; the default levels (the
// item's, and its collection's for an in-collection space) cap the
// organization role, the admin rank standing for "inherits the organization
// role"; grants on the item and every collection above it count; public
// and unlisted spaces give every member read. TestAggregateMatchesEffectiveRole
// holds it to effectiveRole.
func readerQuery(it contentItem, tree storage.CollectionTree) storage.ReaderQuery {
	admin := roleRank["admin"]
	probe := &contentAccess{accessBase: &accessBase{member: true, orgRank: admin, nodes: tree}, memo: map[string]int{}}
	q := storage.ReaderQuery{Targets: []storage.ContentRef{it.Ref}, Ranks: map[string]int{}, Admin: "admin",
		Default: probe.defaultRank(it.DefaultLevel, it.Parent)}
	for role, rank := range roleRank {
		q.Ranks[string(role)] = rank
	}
	for p, depth := it.Parent, 0; p != nil && depth < maxDepth; p, depth = tree[*p].ParentID, depth+1 {
		q.Targets = append(q.Targets, storage.ContentRef{Kind: storage.KindCollection, ID: *p})
	}
	if it.Ref.Kind == storage.KindSpace {
		switch it.Visibility {
		case "in-collection":
			if it.Parent != nil {
				if n, ok := tree[*it.Parent]; ok {
					q.Default = max(q.Default, probe.defaultRank(n.DefaultLevel, n.ParentID))
				}
			}
		case "public", "unlisted":
			q.Floor = roleRank["read"]
		}
	}
	return q
}

// sitePermissionsAggregate lists the members who can read a site: sites
// follow organization roles (READ and up), so each permission is the
// member's organization role and comes from the organization.
func (r *Resolver) sitePermissionsAggregate(ctx context.Context, orgID, siteID string, page *string, limit *int) (*model.UserSitePermissionList, error) {
	s, _, err := r.siteScope(ctx, orgID, siteID, "read", "reading a site's permissions")
	if err != nil {
		return nil, err
	}
	pq, err := pageQuery(page, limit)
	if err != nil {
		return nil, err
	}
	// Guests do not read sites; the filter is SQL, so a page costs its rows.
	p, err := r.Store.ListMembers(ctx, s.Org.ID, storage.MemberFilter{Asc: true, WithRole: true}, pq)
	if err != nil {
		return nil, err
	}
	origin := model.PermissionOrigin{Type: "organization", Organization: &s.Org.ID}
	l := model.UserSitePermissionList(listOf(p, func(m storage.Member) *model.UserSitePermission {
		role := model.Role(*m.Role)
		return &model.UserSitePermission{Permission: &role, User: r.userModel(m.User), Origin: origin}
	}))
	return &l, nil
}
