package graph

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"docsapi/apierr"
	"docsapi/auth"
	"docsapi/delivery"
	"docsapi/graph/model"
	"docsapi/storage"
)

// searchOf checks an optional `search` filter (at most 100 characters) and
// gives it as a string ("" when absent).
func searchOf(search *string) (string, error) {
	if search == nil {
		return "", nil
	}
	if err := checkLen("search", *search, 0, 100); err != nil {
		return "", err
	}
	return *search, nil
}

// integrationFilterOf checks the integration list filters (GET
// /integrations and GET /orgs/{id}/integrations take the same ones).
func integrationFilterOf(c auth.Caller, search *string, category *model.IntegrationCategory, blockDomain *string, blocks, contentSources *bool,
	owner *string, scope *model.IntegrationScope, target *model.IntegrationTarget) (storage.IntegrationFilter, error) {
	f := storage.IntegrationFilter{UserID: c.UserID, Blocks: blocks, ContentSources: contentSources}
	var err error
	if f.Search, err = searchOf(search); err != nil {
		return f, err
	}
	if category != nil {
		if err := checkEnum("category", *category, model.IntegrationCategories.List()); err != nil {
			return f, err
		}
		f.Category = string(*category)
	}
	if scope != nil {
		if err := checkEnum("scope", *scope, model.IntegrationScopes.List()); err != nil {
			return f, err
		}
		f.Scope = string(*scope)
	}
	if target != nil {
		if err := checkEnum("target", *target, model.IntegrationTargets.List()); err != nil {
			return f, err
		}
		f.Target = string(*target)
	}
	if blockDomain != nil {
		if err := checkIntegrationName("blockDomain", *blockDomain); err != nil {
			return f, err
		}
		f.BlockDomain = *blockDomain
	}
	if owner != nil {
		if err := checkLen("owner", *owner, 1, 100); err != nil {
			return f, err
		}
		f.Owner = *owner
	}
	return f, nil
}

// organizationIntegrations lists what an organization may use: public
// integrations and its own, whatever their visibility. Only its members
// ask (404 otherwise), so its private integrations are theirs to see.
func (r *Resolver) organizationIntegrations(ctx context.Context, orgID string, page *string, limit *int, f storage.IntegrationFilter) (*model.IntegrationList, error) {
	s, err := r.inOrg(ctx, orgID)
	if err != nil {
		return nil, err
	}
	pq, err := pageQuery(page, limit)
	if err != nil {
		return nil, err
	}
	f.VisibleOrgs = []string{s.Org.ID}
	p, err := r.Store.ListIntegrations(ctx, f, pq)
	if err != nil {
		return nil, err
	}
	adminOrgs, err := r.callerOrgs(ctx, s.Caller, true)
	if err != nil {
		return nil, err
	}
	l := model.IntegrationList(listOf(p, func(it storage.Integration) *model.Integration {
		return r.integrationModel(s.Caller, it, canInstall(it, adminOrgs))
	}))
	return &l, nil
}

// organizationIntegrationStatus is the status of the integration's
// installation in the organization, for its members: 404 when the
// integration is unknown, invisible to the caller or not installed there.
func (r *Resolver) organizationIntegrationStatus(ctx context.Context, orgID, name string) (*model.OrganizationIntegrationStatus, error) {
	s, err := r.inOrg(ctx, orgID)
	if err != nil {
		return nil, err
	}
	_, it, err := r.visibleIntegration(ctx, name)
	if err != nil {
		return nil, err
	}
	p, err := r.Store.ListInstallations(ctx, it.ID, storage.InstallationFilter{Orgs: []string{s.Org.ID}}, storage.PageQuery{Limit: 1})
	if err != nil {
		return nil, err
	}
	if len(p.Items) == 0 {
		return nil, apierr.NotFound(fmt.Sprintf("installation of integration %q in the organization", it.Name))
	}
	return &model.OrganizationIntegrationStatus{Status: model.InstallationStatus(p.Items[0].Status)}, nil
}

// organizationIntegrationsStatus pages through the organization's
// installations as {status, integration}: what is installed and whether it
// is configured, without the installations' configurations (which only
// admins read), so every member may ask.
func (r *Resolver) organizationIntegrationsStatus(ctx context.Context, orgID string, page *string, limit *int, search *string) (*model.IntegrationStatusList, error) {
	s, err := r.inOrg(ctx, orgID)
	if err != nil {
		return nil, err
	}
	pq, err := pageQuery(page, limit)
	if err != nil {
		return nil, err
	}
	q, err := searchOf(search)
	if err != nil {
		return nil, err
	}
	p, err := r.Store.ListOrganizationInstallations(ctx, s.Org.ID, s.Caller.UserID, q, pq)
	if err != nil {
		return nil, err
	}
	adminOrgs, err := r.callerOrgs(ctx, s.Caller, true)
	if err != nil {
		return nil, err
	}
	l := model.IntegrationStatusList(listOf(p, func(oi storage.OrgInstallation) *model.IntegrationStatus {
		return &model.IntegrationStatus{Status: model.InstallationStatus(oi.Installation.Status),
			Integration: r.integrationModel(s.Caller, oi.Integration, canInstall(oi.Integration, adminOrgs))}
	}))
	return &l, nil
}

// enabledOn lists the integrations reaching a space or site the caller has
// already been admitted to (the space or site of orgID named targetID).
func (r *Resolver) enabledOn(ctx context.Context, c auth.Caller, orgID, kind, targetID string, search *string) ([]storage.EnabledIntegration, error) {
	q, err := searchOf(search)
	if err != nil {
		return nil, err
	}
	return r.Store.EnabledIntegrations(ctx, orgID, kind, targetID, c.UserID, q)
}

// enabledList is enabled integrations as an integration list (one page:
// 0.130.0 gives these lists no page parameters).
func (r *Resolver) enabledList(ctx context.Context, c auth.Caller, enabled []storage.EnabledIntegration) (*model.IntegrationList, error) {
	adminOrgs, err := r.callerOrgs(ctx, c, true)
	if err != nil {
		return nil, err
	}
	l := &model.IntegrationList{Count: len(enabled), Items: make([]*model.Integration, 0, len(enabled))}
	for _, e := range enabled {
		l.Items = append(l.Items, r.integrationModel(c, e.Integration, canInstall(e.Integration, adminOrgs)))
	}
	return l, nil
}

// readableSpace admits a caller who can read the space (404 otherwise).
func (r *Resolver) readableSpace(ctx context.Context, spaceID string) (storage.Space, auth.Caller, error) {
	sp, s, err := r.spaceScope(ctx, spaceID, chainOnly, false)
	return sp, s.Caller, err
}

// readableSite admits a member who may read the site.
func (r *Resolver) readableSite(ctx context.Context, orgID, siteID string) (auth.Caller, error) {
	s, _, err := r.siteScope(ctx, orgID, siteID, "read", "reading the site's integrations")
	return s.Caller, err
}

func (r *Resolver) spaceIntegrations(ctx context.Context, spaceID string, search *string) (*model.IntegrationList, error) {
	sp, c, err := r.readableSpace(ctx, spaceID)
	if err != nil {
		return nil, err
	}
	enabled, err := r.enabledOn(ctx, c, sp.OrganizationID, "space", sp.ID, search)
	if err != nil {
		return nil, err
	}
	return r.enabledList(ctx, c, enabled)
}

func (r *Resolver) siteIntegrations(ctx context.Context, orgID, siteID string, search *string) (*model.IntegrationList, error) {
	c, err := r.readableSite(ctx, orgID, siteID)
	if err != nil {
		return nil, err
	}
	enabled, err := r.enabledOn(ctx, c, orgID, "site", siteID, search)
	if err != nil {
		return nil, err
	}
	return r.enabledList(ctx, c, enabled)
}

// spaceIntegrationBlocks: the blocks of each integration enabled in the
// space that has some, by integration name.
func (r *Resolver) spaceIntegrationBlocks(ctx context.Context, spaceID string) ([]*model.SpaceIntegrationBlocks, error) {
	sp, c, err := r.readableSpace(ctx, spaceID)
	if err != nil {
		return nil, err
	}
	enabled, err := r.enabledOn(ctx, c, sp.OrganizationID, "space", sp.ID, nil)
	if err != nil {
		return nil, err
	}
	out := []*model.SpaceIntegrationBlocks{}
	for _, e := range enabled {
		var blocks []*model.IntegrationBlock
		json.Unmarshal(e.Integration.Blocks, &blocks)
		if len(blocks) > 0 {
			out = append(out, &model.SpaceIntegrationBlocks{Name: e.Integration.Name, Blocks: blocks})
		}
	}
	return out, nil
}

// integrationScripts are the scripts of the enabled integrations that
// inject one (scope <kind>:script:inject) through an active installation.
// Each is served from the target installation's location; cookies tells
// whether the integration has <kind>:script:cookies.
func (r *Resolver) integrationScripts(enabled []storage.EnabledIntegration, kind, targetID string) []*model.IntegrationScript {
	out := []*model.IntegrationScript{}
	for _, e := range enabled {
		it := e.Integration
		if e.Status != "active" || !slices.Contains(it.Scopes, kind+":script:inject") {
			continue
		}
		s := &model.IntegrationScript{
			Script:  fmt.Sprintf("%s/v1/integrations/%s/installations/%s/%ss/%s/script.js", r.Config.PublicURL, it.Name, e.InstallationID, kind, targetID),
			Cookies: slices.Contains(it.Scopes, kind+":script:cookies"),
		}
		if csp := delivery.CSPHeader(it.CSP); csp != "" {
			s.ContentSecurityPolicy = &csp
		}
		out = append(out, s)
	}
	return out
}

func (r *Resolver) spaceIntegrationScripts(ctx context.Context, spaceID string) ([]*model.IntegrationScript, error) {
	sp, c, err := r.readableSpace(ctx, spaceID)
	if err != nil {
		return nil, err
	}
	enabled, err := r.enabledOn(ctx, c, sp.OrganizationID, "space", sp.ID, nil)
	if err != nil {
		return nil, err
	}
	return r.integrationScripts(enabled, "space", sp.ID), nil
}

func (r *Resolver) siteIntegrationScripts(ctx context.Context, orgID, siteID string) ([]*model.IntegrationScript, error) {
	c, err := r.readableSite(ctx, orgID, siteID)
	if err != nil {
		return nil, err
	}
	enabled, err := r.enabledOn(ctx, c, orgID, "site", siteID, nil)
	if err != nil {
		return nil, err
	}
	return r.integrationScripts(enabled, "site", siteID), nil
}

// Bounds of a queued task: its JSON is read whole and stored as an event
// payload, so it is checked before anything walks or stores it.
const (
	MaxTaskBytes    = 64 << 10
	maxTaskDepth    = 32
	maxTaskKeys     = 1000
	maxTaskSchedule = 86400
)

// checkTask validates a task body: task an object within the bounds,
// schedule whole seconds in 0..86400. It answers the task's JSON.
func checkTask(in model.QueueIntegrationTaskInput) (json.RawMessage, time.Duration, error) {
	if in.Task == nil {
		return nil, 0, apierr.Invalid("task", "is required (an object)")
	}
	if err := checkShape("task", in.Task, maxTaskDepth, maxTaskKeys); err != nil {
		return nil, 0, err
	}
	raw, err := json.Marshal(in.Task)
	if err != nil {
		return nil, 0, apierr.Invalid("task", "must be a JSON object")
	}
	if len(raw) > MaxTaskBytes {
		return nil, 0, apierr.Invalid("task", "must be at most %d bytes of JSON", MaxTaskBytes)
	}
	var delay time.Duration
	if in.Schedule != nil {
		sec := *in.Schedule
		if sec != sec || sec < 0 || sec > maxTaskSchedule || sec != float64(int64(sec)) {
			return nil, 0, apierr.Invalid("schedule", "must be a whole number of seconds from 0 to %d", maxTaskSchedule)
		}
		delay = time.Duration(sec) * time.Second
	}
	return raw, delay, nil
}

// queueTask records a task event for the integration, delivered to its
// runtime after the schedule like every other event. The integration
// queues it with one of its installation tokens (the event then comes from
// that installation and its organization); admins of the owning
// organization may queue one too (from the owner, no installation).
// Installation tokens of other integrations get 404, like everyone who
// cannot see the integration; members who see it without administrating
// its owner get 403.
func (r *Resolver) queueTask(ctx context.Context, name string, in model.QueueIntegrationTaskInput) (bool, error) {
	c, it, err := r.visibleIntegration(ctx, name)
	if err != nil {
		return false, err
	}
	orgID, installationID := it.OrganizationID, ""
	if isInstallationToken(c) {
		own, _, err := r.Store.InstallationOfToken(ctx, c.TokenID)
		if err != nil || own.IntegrationID != it.ID {
			return false, apierr.NotFound("integration")
		}
		orgID, installationID = own.OrganizationID, own.ID
	} else if !ownerAdmin(c, it) {
		return false, apierr.Forbidden("queueing an integration task needs the integration's own token or the admin role in the organization that owns it")
	}
	task, delay, err := checkTask(in)
	if err != nil {
		return false, err
	}
	ev := r.newEvent(it, orgID, installationID, "task", map[string]any{"task": task})
	if ev.Deliver {
		ev.DeliverAt = r.Now().Add(delay)
	}
	if err := r.Store.RecordEvents(ctx, ev); err != nil {
		return false, err
	}
	r.notifyDeliveries()
	return true, nil
}
