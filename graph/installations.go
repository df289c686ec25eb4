package graph

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"docsapi/apierr"
	"docsapi/auth"
	"docsapi/graph/model"
	"docsapi/storage"
)

// Installation tokens (POST .../installations/{id}/tokens) are minted by
// admins of the integration's owning organization. What such a token may do:
//   - it is bound to the installation's organization (tokens.organization_id,
//     which inOrg honours: every other organization answers 404);
//   - in that organization it acts as a READ member (inOrg gives it that
//     role whatever the minting user's membership), so it changes nothing
//     that needs a higher role;
//   - it reads and updates its own installation and the space and site
//     installations under it, and nothing else of the integrations family
//     (publishing, installing, development mode, events: 403);
//   - the content families that accept installation tokens judge them by
//     the integration's scopes instead (see scopes.go);
//   - it expires after an hour and is revoked with its installation.
var installationRole = "read"

// installationRule says who besides admins of the installation's
// organization may act on an installation.
type installationRule struct {
	action     string
	ownerAdmin bool // admins of the integration's owning organization
	token      bool // the installation's own tokens
	// members: every member of the installation's organization passes
	// (space and site installations, where the role on the target decides).
	members bool
}

var (
	readInstallation   = installationRule{action: "reading an installation", ownerAdmin: true, token: true}
	updateInstallation = installationRule{action: "updating an installation", ownerAdmin: true, token: true}
	removeInstallation = installationRule{action: "uninstalling an integration", ownerAdmin: true}
	installOnTarget    = installationRule{action: "installing on or uninstalling from a space or site"}
)

// installationFor loads an installation the caller may act on by rule:
// others who belong to the installation's or the owner's organization get
// 403, everyone else 404.
func (r *Resolver) installationFor(ctx context.Context, name, installationID string, rule installationRule) (auth.Caller, storage.Integration, storage.Installation, error) {
	c, it, err := r.visibleIntegration(ctx, name)
	if err != nil {
		return c, it, storage.Installation{}, err
	}
	in, err := r.Store.Installation(ctx, it.ID, installationID)
	if err != nil {
		return c, it, in, notFoundAs(err, "installation")
	}
	if isInstallationToken(c) {
		own, _, err := r.Store.InstallationOfToken(ctx, c.TokenID)
		if err == nil && own.ID == in.ID && rule.token {
			return c, it, in, nil
		}
		return c, it, in, apierr.NotFound("installation")
	}
	if rule.ownerAdmin && ownerAdmin(c, it) {
		return c, it, in, nil
	}
	var m *storage.Membership
	if c.OrganizationID == "" || c.OrganizationID == in.OrganizationID {
		if m, err = r.Store.MembershipOf(ctx, in.OrganizationID, c.UserID); err != nil {
			return c, it, in, err
		}
	}
	if m != nil && (rule.members || atLeast(m.Role, "admin")) {
		return c, it, in, nil
	}
	if m != nil || memberOfOwner(c, it) {
		return c, it, in, apierr.Forbidden("%s needs the admin role in the installation's organization", rule.action)
	}
	return c, it, in, apierr.NotFound("installation")
}

// installationScope is which installations of an integration the caller
// lists: all of them for owner admins, those of organizations they
// administrate otherwise, and its own for an installation token.
func (r *Resolver) installationScope(ctx context.Context, c auth.Caller, it storage.Integration) (storage.InstallationFilter, error) {
	if isInstallationToken(c) {
		own, _, err := r.Store.InstallationOfToken(ctx, c.TokenID)
		if err != nil || own.IntegrationID != it.ID {
			return storage.InstallationFilter{}, nil
		}
		return storage.InstallationFilter{Orgs: []string{own.OrganizationID}}, nil
	}
	if ownerAdmin(c, it) {
		return storage.InstallationFilter{AllOrgs: true}, nil
	}
	orgs, err := r.callerOrgs(ctx, c, true)
	return storage.InstallationFilter{Orgs: orgs}, err
}

func (r *Resolver) installationModel(in storage.Installation) *model.IntegrationInstallation {
	loc := r.Config.PublicURL + "/v1/integrations/" + in.IntegrationName + "/installations/" + in.ID
	m := &model.IntegrationInstallation{
		ID: in.ID, Status: model.InstallationStatus(in.Status), SpaceSelection: model.InstallationSelection(in.SpaceSelection),
		SiteSelection: model.InstallationSelection(in.SiteSelection), Spaces: in.Spaces, Configuration: configurationObject(in.Configuration),
		CreatedAt: model.Time(in.CreatedAt), UpdatedAt: model.Time(in.UpdatedAt), ExternalIds: in.ExternalIDs,
		Urls:   model.InstallationURLs{Location: loc, App: r.Config.PublicURL + "/o/" + in.OrganizationID + "/integrations/" + in.IntegrationName, PublicEndpoint: loc},
		Target: model.InstallationTarget{Organization: in.OrganizationID},
	}
	if m.ExternalIds == nil {
		m.ExternalIds = []string{}
	}
	return m
}

// configurationObject is a stored configuration as the object both
// transports answer: {} when nothing is configured (rows written before
// checkConfiguration normalized an absent configuration hold JSON null).
func configurationObject(raw json.RawMessage) map[string]any {
	var conf map[string]any
	json.Unmarshal(raw, &conf)
	if conf == nil {
		conf = map[string]any{}
	}
	return conf
}

// targetEntry is the common part of space and site installation entries.
type targetEntry struct {
	integration, installation string
	status                    model.InstallationStatus
	configuration             map[string]any
	externalIDs               []string
	urls                      model.TargetInstallationURLs
	target                    string
}

func (r *Resolver) targetEntryOf(t storage.TargetInstallation) targetEntry {
	loc := fmt.Sprintf("%s/v1/integrations/%s/installations/%s/%ss/%s", r.Config.PublicURL, t.IntegrationName, t.InstallationID, t.Kind, t.TargetID)
	e := targetEntry{integration: t.IntegrationName, installation: t.InstallationID, status: model.InstallationStatus(t.Status),
		configuration: configurationObject(t.Configuration), externalIDs: t.ExternalIDs, urls: model.TargetInstallationURLs{Location: loc, PublicEndpoint: loc}, target: t.TargetID}
	if e.externalIDs == nil {
		e.externalIDs = []string{}
	}
	return e
}

func (r *Resolver) spaceInstallationModel(t storage.TargetInstallation) *model.IntegrationSpaceInstallation {
	e := r.targetEntryOf(t)
	return &model.IntegrationSpaceInstallation{Integration: e.integration, Installation: e.installation, Status: e.status,
		Configuration: e.configuration, ExternalIds: e.externalIDs, Urls: e.urls, Space: e.target}
}

func (r *Resolver) siteInstallationModel(t storage.TargetInstallation) *model.IntegrationSiteInstallation {
	e := r.targetEntryOf(t)
	return &model.IntegrationSiteInstallation{Integration: e.integration, Installation: e.installation, Status: e.status,
		Configuration: e.configuration, ExternalIds: e.externalIDs, Urls: e.urls, Site: e.target}
}

// targetAllows tells whether an integration with target may be installed
// at level. Every installation starts on an organization (space and site
// installations hang under it, as the paths .../installations/{id}/spaces
// show), so the organization level is open to every target.
func targetAllows(target, level string) bool {
	return level == "organization" || target == "all" || target == level
}

// checkExternalIDs: at most 5 non-empty ids of at most 100 characters.
func checkExternalIDs(ids []string) error {
	if len(ids) > 5 {
		return apierr.Invalid("externalIds", "must hold at most 5 ids")
	}
	for i, id := range ids {
		if err := checkLen(fmt.Sprintf("externalIds[%d]", i), id, 1, 100); err != nil {
			return err
		}
	}
	return nil
}

// Defaults of Config's bounds on what integrations store.
const (
	DefaultIntegrationMaxScriptBytes = 2 << 20
	DefaultConfigurationMaxDepth     = 32
	DefaultConfigurationMaxKeys      = 1000
)

// checkShape bounds a JSON value before anything walks it whole: at most
// maxDepth levels of objects and arrays, and at most maxKeys object keys
// and array items in all. It stops at the first level or item over.
func checkShape(field string, v any, maxDepth, maxKeys int) error {
	keys := 0
	var walk func(v any, depth int) error
	walk = func(v any, depth int) error {
		m, isMap := v.(map[string]any)
		a, isArray := v.([]any)
		if !isMap && !isArray {
			return nil
		}
		keys += len(m) + len(a)
		switch {
		case depth > maxDepth:
			return apierr.Invalid(field, "must be nested at most %d levels deep (--installation-config-max-depth)", maxDepth)
		case keys > maxKeys:
			return apierr.Invalid(field, "must hold at most %d keys and array items (--installation-config-max-keys)", maxKeys)
		}
		for _, x := range m {
			if err := walk(x, depth+1); err != nil {
				return err
			}
		}
		for _, x := range a {
			if err := walk(x, depth+1); err != nil {
				return err
			}
		}
		return nil
	}
	return walk(v, 1)
}

// checkConfiguration validates conf against the integration's
// configuration schema of level (account, space or site) and says whether
// every required property is set. Without a property schema (none, or a
// custom {componentId} UI) any object within the configured depth and key
// count is accepted.
func (r *Resolver) checkConfiguration(confs json.RawMessage, level string, conf map[string]any) (json.RawMessage, bool, error) {
	if err := checkShape("configuration", conf, cmp.Or(r.Config.ConfigurationMaxDepth, DefaultConfigurationMaxDepth),
		cmp.Or(r.Config.ConfigurationMaxKeys, DefaultConfigurationMaxKeys)); err != nil {
		return nil, false, err
	}
	raw, _ := json.Marshal(conf) // normalizes numbers from either transport
	var values map[string]any
	json.Unmarshal(raw, &values)
	if values == nil {
		values = map[string]any{}
	}
	var all map[string]map[string]any
	json.Unmarshal(confs, &all)
	schema := all[level]
	if schema == nil || schema["componentId"] != nil {
		raw, _ = json.Marshal(values) // {} rather than null when nothing is configured
		return raw, true, nil
	}
	s, err := parseConfigSchema("configurations."+level, schema)
	if err != nil {
		return nil, false, err
	}
	for k, v := range values {
		f := "configuration." + k
		p, ok := s.Properties[k]
		if !ok {
			return nil, false, apierr.Invalid(f, "is not a property of the integration's %s configuration", level)
		}
		if v == nil {
			delete(values, k)
			continue
		}
		switch p.Type {
		case "string":
			str, ok := v.(string)
			if !ok {
				return nil, false, apierr.Invalid(f, "must be a string")
			}
			if p.Enum != nil && !slices.Contains(p.Enum, str) {
				return nil, false, apierr.Invalid(f, "must be one of %v", p.Enum)
			}
		case "number":
			if _, ok := v.(float64); !ok {
				return nil, false, apierr.Invalid(f, "must be a number")
			}
		case "boolean":
			if _, ok := v.(bool); !ok {
				return nil, false, apierr.Invalid(f, "must be a boolean")
			}
		case "button":
			return nil, false, apierr.Invalid(f, "is a button: it holds no value")
		}
	}
	complete := true
	for _, k := range s.Required {
		if _, ok := values[k]; !ok {
			complete = false
		}
	}
	raw, _ = json.Marshal(values)
	return raw, complete, nil
}

// statusFor is an installation's status: active once its configuration is
// complete, pending until then.
func statusFor(complete bool) string {
	if complete {
		return "active"
	}
	return "pending"
}

// Space and site installations. Whoever acts on one must pass the
// installation's rule and then the target's check (targetAccess):
//   - the target must be a live space (a site) of the installation's
//     organization: unknown ids, targets of other organizations and spaces
//     in the trash are all 404 "space" ("site");
//   - members of the installation's organization act by their role on the
//     target: admin installs, reads, updates and uninstalls. On a space that
//     is the effective role on the space (so organization admins always
//     may, and so may admins of that one space); on a site it is the
//     organization role, as for every site change that needs ADMIN
//     (siteScope: sites have no roles of their own). A member who can see
//     the target with a lower role gets 403, one who cannot see it (a space
//     hidden from them; sites for guests) 404;
//   - admins of the integration's owner (read, update) and the
//     installation's own tokens (read, update) need only the target to
//     exist there: they manage the integration, not the organization's
//     content.

// targetAccess loads an installation under rule and checks the target of
// kind named targetID for the caller.
func (r *Resolver) targetAccess(ctx context.Context, name, installationID, kind, targetID string, rule installationRule) (storage.Integration, storage.Installation, error) {
	rule.members = true // the role on the target decides
	c, it, in, err := r.installationFor(ctx, name, installationID, rule)
	if err != nil {
		return it, in, err
	}
	// installationFor admitted tokens and owner admins before members.
	trusted := isInstallationToken(c) || (rule.ownerAdmin && ownerAdmin(c, it))
	if kind == "site" {
		return it, in, r.siteTargetAccess(ctx, in, targetID, rule.action, trusted)
	}
	sp, err := r.Store.Space(ctx, targetID)
	if err != nil || sp.OrganizationID != in.OrganizationID || sp.DeletedAt != nil {
		if err != nil && !errors.Is(err, storage.ErrNotFound) {
			return it, in, err
		}
		return it, in, apierr.NotFound("space")
	}
	if trusted {
		return it, in, nil
	}
	chain := sp.ParentID
	if chain == nil {
		chain = new(string) // a top-level space needs no collection
	}
	a, err := r.accessOf(ctx, c, sp.OrganizationID, c.UserID, chain)
	if err != nil {
		return it, in, err
	}
	role, err := a.checkedSpaceRole(sp)
	if err != nil {
		return it, in, err
	}
	switch {
	case role == 0:
		return it, in, apierr.NotFound("space")
	case role < roleRank["admin"]:
		return it, in, apierr.Forbidden("%s needs the admin role on the space", rule.action)
	}
	return it, in, nil
}

// siteTargetAccess checks a site installation's site: a site of the
// installation's organization, administrated by the caller unless trusted.
func (r *Resolver) siteTargetAccess(ctx context.Context, in storage.Installation, siteID, action string, trusted bool) error {
	if _, err := r.Store.Site(ctx, in.OrganizationID, siteID); err != nil {
		return notFoundAs(err, "site")
	}
	if trusted {
		return nil
	}
	s, err := r.inOrg(ctx, in.OrganizationID)
	if err != nil {
		return err
	}
	if !atLeast(s.Role(), "read") {
		return apierr.NotFound("site") // guests do not see sites
	}
	return s.require("admin", action)
}

func (r *Resolver) installOnTarget(ctx context.Context, name, installationID, kind, targetID string) (storage.TargetInstallation, error) {
	if _, err := callerOf(ctx); err != nil {
		return storage.TargetInstallation{}, err
	}
	field := map[string]string{"space": "space", "site": "siteId"}[kind] // the bodies' names
	if err := checkLen(field, targetID, 1, 100); err != nil {
		return storage.TargetInstallation{}, err
	}
	// installOnTarget admits neither owner admins nor installation tokens.
	it, in, err := r.targetAccess(ctx, name, installationID, kind, targetID, installOnTarget)
	if err != nil {
		return storage.TargetInstallation{}, err
	}
	if !targetAllows(it.Target, kind) {
		return storage.TargetInstallation{}, apierr.Invalid(kind, "integration %q cannot be installed on %ss (target %s)", it.Name, kind, it.Target)
	}
	conf, complete, err := r.checkConfiguration(it.Configurations, kind, nil)
	if err != nil {
		return storage.TargetInstallation{}, err
	}
	ctx = recordChange(ctx, in.OrganizationID, "integration.installed", kind, targetID, map[string]any{"integration": it.Name, "installation": in.ID})
	t, err := r.Store.CreateTargetInstallation(ctx, in, kind, targetID, storage.TargetChange{Status: statusFor(complete), Configuration: conf, Events: r.targetEvents(it)})
	if errors.Is(err, storage.ErrAlreadyInstalled) {
		return t, apierr.Conflict("integration %q is already installed on this %s", it.Name, kind)
	}
	if err == nil {
		r.notifyDeliveries()
	}
	return t, err
}

func (r *Resolver) targetFor(ctx context.Context, name, installationID, kind, targetID string) (storage.TargetInstallation, error) {
	_, in, err := r.targetAccess(ctx, name, installationID, kind, targetID, readInstallation)
	if err != nil {
		return storage.TargetInstallation{}, err
	}
	t, err := r.Store.TargetInstallation(ctx, in.ID, kind, targetID)
	return t, notFoundAs(err, kind+" installation")
}

func (r *Resolver) updateTarget(ctx context.Context, name, installationID, kind, targetID string, input model.UpdateTargetInstallationInput) (storage.TargetInstallation, error) {
	it, in, err := r.targetAccess(ctx, name, installationID, kind, targetID, updateInstallation)
	if err != nil {
		return storage.TargetInstallation{}, err
	}
	prev, err := r.Store.TargetInstallation(ctx, in.ID, kind, targetID)
	if err != nil {
		return prev, notFoundAs(err, kind+" installation")
	}
	c := storage.TargetChange{Status: prev.Status, Events: r.targetEvents(it)}
	if input.ExternalIds != nil {
		if err := checkExternalIDs(input.ExternalIds); err != nil {
			return prev, err
		}
		c.ExternalIDs = &input.ExternalIds
	}
	if input.Configuration != nil {
		conf, complete, err := r.checkConfiguration(it.Configurations, kind, input.Configuration)
		if err != nil {
			return prev, err
		}
		c.Configuration, c.Status = conf, statusFor(complete)
	}
	f := map[string]any{"integration": it.Name, "installation": in.ID}
	if input.Configuration != nil {
		f["configuration"] = storage.Redacted // may hold the integration's own secrets
	}
	ctx = recordChange(ctx, in.OrganizationID, "integration.updated", kind, targetID, f)
	t, err := r.Store.UpdateTargetInstallation(ctx, in.ID, kind, targetID, c)
	if err != nil {
		return t, notFoundAs(err, kind+" installation")
	}
	r.notifyDeliveries()
	return t, nil
}

func (r *Resolver) uninstallTarget(ctx context.Context, name, installationID, kind, targetID string) (*model.DeleteResult, error) {
	it, in, err := r.targetAccess(ctx, name, installationID, kind, targetID, installOnTarget)
	if err != nil {
		return deleteRefusal(err)
	}
	ctx = recordChange(ctx, in.OrganizationID, "integration.uninstalled", kind, targetID, map[string]any{"integration": it.Name, "installation": in.ID})
	deleted, err := r.Store.DeleteTargetInstallation(ctx, in.ID, kind, targetID, func(prev storage.TargetInstallation) []storage.NewEvent {
		return []storage.NewEvent{r.targetDeletedEvent(it, prev)}
	})
	if err != nil {
		return nil, err
	}
	r.notifyDeliveries()
	return &model.DeleteResult{Deleted: deleted}, nil
}

// TargetRemovedEvent is the event of a space installation that went with
// its space (storage.DB.OnTargetRemoved).
func (r *Resolver) TargetRemovedEvent(it storage.Integration, t storage.TargetInstallation) storage.NewEvent {
	return r.targetDeletedEvent(it, t)
}

// listTargets lists space or site installations: of one installation, or
// of the whole integration within the caller's installation scope. It
// answers the caller too (for extended lists).
func (r *Resolver) listTargets(ctx context.Context, name, installationID, kind string, page *string, limit *int, externalID *string) (auth.Caller, storage.Page[storage.TargetInstallation], error) {
	var none storage.Page[storage.TargetInstallation]
	pq, err := pageQuery(page, limit)
	if err != nil {
		return auth.Caller{}, none, err
	}
	f := storage.TargetFilter{Kind: kind}
	var c auth.Caller
	var it storage.Integration
	if installationID != "" {
		var in storage.Installation
		if c, it, in, err = r.installationFor(ctx, name, installationID, readInstallation); err != nil {
			return c, none, err
		}
		f.InstallationID, f.Installations.AllOrgs = in.ID, true
	} else {
		if c, it, err = r.visibleIntegration(ctx, name); err != nil {
			return c, none, err
		}
		if f.Installations, err = r.installationScope(ctx, c, it); err != nil {
			return c, none, err
		}
	}
	if externalID != nil {
		f.Installations.ExternalID = *externalID
	}
	p, err := r.Store.ListTargetInstallations(ctx, it.ID, f, pq)
	return c, p, err
}

// spaceInstallationList converts a page of space installations; extended
// puts each space the caller can read (as GET /spaces/{id} would answer
// it, with the caller's permissions) in spaceObject. The page's spaces are
// read in one query, and the caller's access once per organization on the
// page that the caller belongs to; spaces of other organizations (an owner
// admin's view of installations elsewhere) stay ids.
func (r *Resolver) spaceInstallationList(ctx context.Context, c auth.Caller, p storage.Page[storage.TargetInstallation], extended *bool) (*model.IntegrationSpaceInstallationList, error) {
	l := model.IntegrationSpaceInstallationList(listOf(p, r.spaceInstallationModel))
	if extended == nil || !*extended {
		return &l, nil
	}
	// Spaces are read with the reader's rights: a token needs its scope
	// even when the page happens to be empty.
	if err := r.requireScope(ctx, "reading spaces", scopeSpaceRead, scopeSpaceWrite); err != nil {
		return nil, err
	}
	ids := make([]string, len(p.Items))
	for i, t := range p.Items {
		ids[i] = t.TargetID
	}
	spaces, err := r.Store.SpacesByIDs(ctx, ids)
	if err != nil {
		return nil, err
	}
	member := []string{c.OrganizationID} // an installation token's
	if !isInstallationToken(c) {
		if member, err = r.callerOrgs(ctx, c, false); err != nil {
			return nil, err
		}
	}
	access := map[string]*contentAccess{}
	for _, e := range l.Items {
		sp, ok := spaces[e.Space]
		if !ok || sp.DeletedAt != nil || !slices.Contains(member, sp.OrganizationID) {
			continue
		}
		a, ok := access[sp.OrganizationID]
		if !ok {
			if a, err = r.accessOf(ctx, c, sp.OrganizationID, c.UserID, nil); err != nil {
				return nil, err
			}
			access[sp.OrganizationID] = a
			if err := a.primeSpaces(ids...); err != nil {
				return nil, err
			}
		}
		if role := a.spaceRole(sp); role > 0 {
			e.SpaceObject = r.spaceModel(sp, role)
		}
	}
	return &l, nil
}

// siteInstallationList converts a page of site installations; extended
// puts each site the caller can read (as GET /orgs/{org}/sites/{id} would
// answer it) in siteObject. The page's sites are read in one query, and the
// caller's membership once per organization on the page; sites of
// organizations where the caller may not read sites (an owner admin's view
// of installations elsewhere) stay ids.
func (r *Resolver) siteInstallationList(ctx context.Context, p storage.Page[storage.TargetInstallation], extended *bool) (*model.IntegrationSiteInstallationList, error) {
	l := model.IntegrationSiteInstallationList(listOf(p, r.siteInstallationModel))
	if extended == nil || !*extended {
		return &l, nil
	}
	ids := make([]string, len(p.Items))
	for i, t := range p.Items {
		ids[i] = t.TargetID
	}
	sites, err := r.Store.SitesByIDs(ctx, ids)
	if err != nil {
		return nil, err
	}
	readers := map[string]*orgScope{} // nil: the caller may not read sites there
	for _, e := range l.Items {
		site, ok := sites[e.Site]
		if !ok {
			continue
		}
		s, seen := readers[site.OrganizationID]
		if !seen {
			sc, err := r.inOrgAtLeast(ctx, site.OrganizationID, "read", "reading sites")
			if _, refused := apierr.As(err); err != nil && !refused {
				return nil, err
			}
			if err == nil {
				s = &sc
			}
			readers[site.OrganizationID] = s
		}
		if s != nil {
			e.SiteObject = r.siteModel(s.Org, site)
		}
	}
	return &l, nil
}

// deleteRefusal turns a 404 of a delete into "nothing was deleted" (204):
// something the caller may not see counts as not existing.
func deleteRefusal(err error) (*model.DeleteResult, error) {
	if e, ok := apierr.As(err); ok && e.Status == 404 {
		return &model.DeleteResult{}, nil
	}
	return nil, err
}
