package graph

import (
	"context"
	"errors"

	"docsapi/apierr"
	"docsapi/auth"
	"docsapi/graph/model"
	"docsapi/storage"
)

// roleRank orders roles: a higher rank may do everything a lower one may.
// Guests (nil role) rank 0; non-members rank -1.
var roleRank = map[model.Role]int{
	"read": 1, "comment": 2, "edit": 3, "review": 4, "create": 5, "admin": 6,
}

// rank of an optional role; nil (guest) is 0.
func rank(role *string) int {
	if role == nil {
		return 0
	}
	return roleRank[model.Role(*role)]
}

// atLeast tells whether role is min or above.
func atLeast(role *string, min model.Role) bool { return rank(role) >= roleRank[min] }

// callerOf returns the authenticated caller or a 401. A site's apiToken
// is refused here (403): only the published reads take it (readerOf).
func callerOf(ctx context.Context) (auth.Caller, error) {
	c, ok := auth.CallerFrom(ctx)
	if !ok {
		return c, apierr.Unauthorized("missing or invalid bearer token")
	}
	if c.Kind == auth.KindSite {
		return c, errSiteTokenElsewhere()
	}
	return c, nil
}

// orgScope is an organization as seen by the caller.
type orgScope struct {
	Caller auth.Caller
	Org    storage.Organization
	Member storage.Membership
}

// Role is the caller's role in the organization (nil: guest).
func (s orgScope) Role() *string { return s.Member.Role }

// require refuses with 403 when the caller's organization role is below min.
func (s orgScope) require(min model.Role, action string) error {
	if !atLeast(s.Member.Role, min) {
		return apierr.Forbidden("%s needs the %s role in the organization", action, min)
	}
	return nil
}

// inOrg loads an organization for the caller. Organizations the caller does
// not belong to answer 404, exactly like ones that do not exist. Members whom
// the organization's SSO enforcement refuses get a 403 (see ssoRefusal).
func (r *Resolver) inOrg(ctx context.Context, orgID string) (orgScope, error) {
	c, err := callerOf(ctx)
	if err != nil {
		return orgScope{}, err
	}
	if c.OrganizationID != "" && c.OrganizationID != orgID {
		return orgScope{}, apierr.NotFound("organization")
	}
	org, m, err := r.Store.OrganizationFor(ctx, orgID, c.UserID)
	if err == nil && c.Kind == auth.KindInstallation {
		// An installation token acts for its installation, not for the user
		// who minted it: it reads its organization as a READ member would.
		m = &storage.Membership{Role: &installationRole}
	}
	if errors.Is(err, storage.ErrNotFound) || (err == nil && m == nil) {
		return orgScope{}, apierr.NotFound("organization")
	}
	if err != nil {
		return orgScope{}, err
	}
	if err := ssoRefusal(c, org, *m); err != nil {
		return orgScope{}, err
	}
	return orgScope{Caller: c, Org: org, Member: *m}, nil
}

// inOrgAtLeast is inOrg followed by require.
func (r *Resolver) inOrgAtLeast(ctx context.Context, orgID string, min model.Role, action string) (orgScope, error) {
	s, err := r.inOrg(ctx, orgID)
	if err != nil {
		return s, err
	}
	return s, s.require(min, action)
}

// notFoundAs maps storage.ErrNotFound to a 404 naming what was missing.
func notFoundAs(err error, what string) error {
	if errors.Is(err, storage.ErrNotFound) {
		return apierr.NotFound(what)
	}
	return err
}
