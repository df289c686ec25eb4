package graph

import (
	"context"
	"slices"

	"docsapi/apierr"
	"docsapi/auth"
	"docsapi/graph/model"
	"docsapi/storage"
)

// Integration scopes. An installation token is judged by its integration's
// scopes, not by a role, wherever a family accepts such tokens; everything
// else refuses them through roles (the token is a READ member of its
// installation's organization) or outright (userCaller). What each scope
// opens, in the installation's organization only:
//
//	space:metadata:read   read the spaces the installation covers (GET
//	                      /spaces/{id}, space lists): every live space with
//	                      space_selection "all", the spaces it is installed on
//	                      with "selected"; other spaces are 404, collections
//	                      are not covered (404, left out of lists)
//	space:metadata:write  the same reads, and changing the settings of those
//	                      spaces (PATCH /spaces/{id}); nothing else (delete,
//	                      move, transfer, duplicate, create need roles a token
//	                      never has: 403)
//	openapi:read          list and read OpenAPI specs and their versions
//	openapi:write         the same reads, and create, replace, change and
//	                      delete specs
//	site:metadata:read    list and read sites and their structure (site
//	                      changes need roles a token never has: 403)
//
// A token without the scope an operation needs gets 403 (it can see the
// organization); a write scope implies its read scope.
const (
	scopeSpaceRead    model.IntegrationScope = "space:metadata:read"
	scopeSpaceWrite   model.IntegrationScope = "space:metadata:write"
	scopeOpenAPIRead  model.IntegrationScope = "openapi:read"
	scopeOpenAPIWrite model.IntegrationScope = "openapi:write"
	scopeSiteRead     model.IntegrationScope = "site:metadata:read"
)

// requireScope refuses an installation token whose integration has none of
// scopes (the first one is named); other callers pass (their role decides).
func (r *Resolver) requireScope(ctx context.Context, action string, scopes ...model.IntegrationScope) error {
	c, err := callerOf(ctx)
	if err != nil || !isInstallationToken(c) {
		return err
	}
	_, granted, err := r.Store.InstallationOfToken(ctx, c.TokenID)
	if err != nil {
		return notFoundAs(err, "installation")
	}
	return scopeRefusal(granted, action, scopes...)
}

func scopeRefusal(granted []string, action string, scopes ...model.IntegrationScope) error {
	for _, s := range scopes {
		if slices.Contains(granted, string(s)) {
			return nil
		}
	}
	return apierr.Forbidden("%s with an installation token needs the integration's %s scope", action, scopes[0])
}

// inOrgFor is inOrgAtLeast for people; an installation token needs one of
// scopes instead of the role min.
func (r *Resolver) inOrgFor(ctx context.Context, orgID string, min model.Role, action string, scopes ...model.IntegrationScope) (orgScope, error) {
	s, err := r.inOrg(ctx, orgID)
	if err != nil {
		return s, err
	}
	if !isInstallationToken(s.Caller) {
		return s, s.require(min, action)
	}
	if err := r.requireScope(ctx, action, scopes...); err != nil {
		return s, err
	}
	// The scope stands in for the role: the answer's permissions say what
	// the token may do.
	role := string(min)
	s.Member.Role = &role
	return s, nil
}

// installationReach is what an installation token reaches of its
// organization's content: the spaces its installation covers, readable with
// space:metadata:read (or write), their settings changeable with
// space:metadata:write.
//
// With space_selection "selected" the covered spaces are never loaded
// whole: a single space is one primary-key read of the installation's
// targets (lookup), a list selects them in SQL
// (storage.SpaceVisibility.Installation), and the answers this request
// already has are kept in known (a list's rows, spaces primed together).
type installationReach struct {
	id        string
	allSpaces bool
	write     bool
	known     map[string]bool // space id -> is a target, as far as asked
	lookup    func(ids []string) (map[string]bool, error)
	err       error // the first failed lookup (its spaces count as not covered)
}

func (t *installationReach) spaceRole(it contentItem) int {
	if it.Ref.Kind != storage.KindSpace {
		return 0
	}
	if t.allSpaces {
		return roleRank["read"]
	}
	covered, ok := t.known[it.Ref.ID]
	if !ok {
		_ = t.prime(it.Ref.ID)
		covered = t.known[it.Ref.ID]
	}
	if covered {
		return roleRank["read"]
	}
	return 0
}

// prime asks, in one statement per storage.MaxTargetLookup ids, which of
// ids not already known the installation covers.
func (t *installationReach) prime(ids ...string) error {
	if t.allSpaces {
		return nil
	}
	var ask []string
	for _, id := range ids {
		if _, ok := t.known[id]; !ok && !slices.Contains(ask, id) {
			ask = append(ask, id)
		}
	}
	for len(ask) > 0 {
		n := min(len(ask), storage.MaxTargetLookup)
		found, err := t.lookup(ask[:n])
		if err != nil {
			if t.err == nil {
				t.err = err
			}
			return err
		}
		for _, id := range ask[:n] {
			t.known[id] = found[id]
		}
		ask = ask[n:]
	}
	return nil
}

// seen records ids as covered: rows of a list selected by the
// installation's view in SQL.
func (t *installationReach) seen(ids ...string) {
	for _, id := range ids {
		t.known[id] = true
	}
}

// primeSpaces asks in one statement whether an installation token covers
// ids (nothing to ask for other callers), so that spaceRole on each of them
// reads no more.
func (a *contentAccess) primeSpaces(ids ...string) error {
	if a == nil {
		return nil
	}
	if a.installation == nil {
		return a.primeGrants(ids...)
	}
	return a.installation.prime(ids...)
}

// listed records the spaces of a list selected in SQL by a's view as seen
// by a (an installation token's page needs no lookup per row), and looks
// up a member's grants on them when a's base does not hold them.
func (a *contentAccess) listed(spaces []storage.Space) error {
	if a == nil || a.installation != nil && a.installation.allSpaces {
		return nil
	}
	if a.installation == nil {
		// A member's grants on the page's spaces, when not held: one
		// lookup for the page (SQL selected the rows, not their role).
		ids := make([]string, len(spaces))
		for i, s := range spaces {
			ids[i] = s.ID
		}
		return a.primeGrants(ids...)
	}
	for _, s := range spaces {
		a.installation.seen(s.ID)
	}
	return nil
}

// installationContent is an installation token's view of its
// organization's content; 403 without a space scope.
func (r *Resolver) installationContent(ctx context.Context, c auth.Caller) (*contentAccess, error) {
	in, granted, err := r.Store.InstallationOfToken(ctx, c.TokenID)
	if err != nil {
		return nil, notFoundAs(err, "installation")
	}
	if err := scopeRefusal(granted, "reading spaces", scopeSpaceRead, scopeSpaceWrite); err != nil {
		return nil, err
	}
	reach := &installationReach{id: in.ID, allSpaces: in.SpaceSelection == "all", write: slices.Contains(granted, string(scopeSpaceWrite)),
		known: map[string]bool{}}
	reach.lookup = func(ids []string) (map[string]bool, error) {
		return r.Store.InstallationTargetsAmong(ctx, in.ID, "space", ids)
	}
	a := newContentAccess(storage.AccessData{Membership: &storage.Membership{Role: &installationRole}})
	a.installation = reach
	return a, nil
}

// requireSettingsChange lets admins of a space change its settings, and
// installation tokens whose integration has space:metadata:write.
func (s ContentScope) requireSettingsChange(action string) error {
	if t := s.Access.installation; t != nil {
		if !t.write {
			return apierr.Forbidden("%s with an installation token needs the integration's %s scope", action, scopeSpaceWrite)
		}
		return nil
	}
	return s.require("admin", action)
}
