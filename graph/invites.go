package graph

import (
	"context"

	"docsapi/apierr"
	"docsapi/auth"
	"docsapi/graph/model"
	"docsapi/storage"
)

// Invite links: reading and changing one (ADMIN), and joining an
// organization through one (any signed-in user).

func linkInviteModel(inv storage.LinkInvite) *model.LinkInvite {
	return &model.LinkInvite{Object: "invite", ID: inv.ID, Role: roleModel(inv.Role)}
}

func (r *Resolver) linkInvite(ctx context.Context, orgID, id string) (*model.LinkInvite, error) {
	if _, err := r.inOrgAtLeast(ctx, orgID, "admin", "reading invite links"); err != nil {
		return nil, err
	}
	inv, err := r.Store.LinkInvite(ctx, orgID, id)
	if err != nil {
		return nil, notFoundAs(err, "invite")
	}
	return linkInviteModel(inv), nil
}

func (r *Resolver) updateLinkInvite(ctx context.Context, orgID, id string, in model.UpdateLinkInviteInput) (*model.LinkInvite, error) {
	if _, err := r.inOrgAtLeast(ctx, orgID, "admin", "changing invite links"); err != nil {
		return nil, err
	}
	role, set := in.Role.ValueOK()
	switch {
	case !set && in.Level.IsSet():
		return nil, apierr.Invalid("level", "docsapi's invite links are to the organization: give role")
	case !set:
		return nil, apierr.Invalid("role", "is required (a role, or null for guests)")
	}
	if role != nil {
		if err := checkEnum("role", *role, model.Roles.List()); err != nil {
			return nil, err
		}
	}
	ctx = recordChange(ctx, orgID, "invite.updated", "invite", id, map[string]any{"role": roleString(role)})
	if err := r.Store.SetLinkInviteRole(ctx, orgID, id, roleString(role)); err != nil {
		return nil, notFoundAs(err, "invite")
	}
	return r.linkInvite(ctx, orgID, id)
}

// joinWithInvite makes the caller a member with the link's role. Unknown
// organizations and links are 404 alike (a link is the only way in).
func (r *Resolver) joinWithInvite(ctx context.Context, orgID, id string) (bool, error) {
	c, err := callerOf(ctx)
	if err != nil {
		return false, err
	}
	switch {
	case c.Kind == auth.KindInstallation:
		return false, apierr.Forbidden("an installation token cannot join an organization")
	case c.OrganizationID != "" && c.OrganizationID != orgID:
		return false, apierr.Forbidden("this token is scoped to another organization")
	}
	inv, err := r.Store.LinkInvite(ctx, orgID, id)
	if err != nil || inv.TargetKind != "organization" {
		return false, notFoundAs(storage.ErrNotFound, "invite")
	}
	ctx = recordChange(ctx, orgID, "member.added", "member", c.UserID, map[string]any{"role": inv.Role, "invite": id})
	joined, _, err := r.Store.JoinWithLinkInvite(ctx, orgID, id, c.UserID)
	return joined, notFoundAs(err, "invite")
}
