package graph

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"time"

	lzstring "github.com/daku10/go-lz-string"

	"docsapi/apierr"
	"docsapi/auth"
	"docsapi/delivery"
	"docsapi/graph/model"
	"docsapi/storage"
)

// Events. Every change of an installation records one event in the same
// transaction as the change:
//   installation_setup          installed, or updated (previous {status, configuration})
//   installation_deleted        uninstalled from the organization: docsapi's one
//                               type beyond the reference's list, named after
//                               space_/site_installation_deleted, which carry
//                               the same previous {status, configuration}
//   space_installation_setup    installed on or updated for a space (spaceId)
//   space_installation_deleted  uninstalled from a space (also for each space
//                               when its organization installation goes)
//   site_installation_setup / site_installation_deleted  the same for sites
//   ui_render                   a render (GET .../render)
// The payload is {eventId, type, installationId, status, previous, ...} and
// is exactly what the tunnel receives.
//
// Forwarding: while development mode is on, an event is queued for the
// tunnel when it comes from the owning organization, or from any
// organization with all=true; its status is pending until delivered
// (success) or given up (failed). Other events are recorded with status
// success and a trace line saying why nothing was delivered.

// newEvent builds an event of integration it coming from organization orgID.
func (r *Resolver) newEvent(it storage.Integration, orgID, installationID, typ string, fields map[string]any) storage.NewEvent {
	id := storage.NewID()
	payload := map[string]any{"eventId": id, "type": typ}
	if installationID != "" {
		payload["installationId"] = installationID
	}
	for k, v := range fields {
		payload[k] = v
	}
	raw, _ := json.Marshal(payload)
	e := storage.NewEvent{ID: id, IntegrationID: it.ID, InstallationID: installationID, OrganizationID: orgID, Type: typ, Payload: raw}
	switch {
	case it.DevTunnelURL == nil:
		e.Status = "success"
		e.Logs = []storage.LogLine{{Level: "info", Message: "recorded; development mode is off, so there is no runtime to deliver to (docsapi runs no integration scripts)"}}
	case !it.DevAll && orgID != it.OrganizationID:
		e.Status = "success"
		e.Logs = []storage.LogLine{{Level: "info", Message: "recorded; not forwarded to the development tunnel: the event comes from another organization and development mode forwards only the owning organization's events (all=false)"}}
	default:
		e.Status, e.Deliver = "pending", true
		e.Logs = []storage.LogLine{{Level: "debug", Message: "queued for delivery to the development tunnel " + *it.DevTunnelURL}}
	}
	return e
}

// previousState is the payload's previous {status, configuration}; an
// installation never configured had the empty configuration (0.130.0 wants
// an object there, not null).
func previousState(status string, conf json.RawMessage) map[string]any {
	if t := bytes.TrimSpace(conf); len(t) == 0 || bytes.Equal(t, []byte("null")) {
		conf = json.RawMessage("{}")
	}
	return map[string]any{"status": status, "configuration": conf}
}

// installationEvents builds installation_setup events for CreateInstallation
// and UpdateInstallation.
func (r *Resolver) installationEvents(it storage.Integration) func(prev *storage.Installation, next storage.Installation) []storage.NewEvent {
	return func(prev *storage.Installation, next storage.Installation) []storage.NewEvent {
		fields := map[string]any{"status": next.Status}
		if prev != nil {
			fields["previous"] = previousState(prev.Status, prev.Configuration)
		}
		return []storage.NewEvent{r.newEvent(it, next.OrganizationID, next.ID, "installation_setup", fields)}
	}
}

// targetEvents builds space_/site_installation_setup events.
func (r *Resolver) targetEvents(it storage.Integration) func(prev *storage.TargetInstallation, next storage.TargetInstallation) []storage.NewEvent {
	return func(prev *storage.TargetInstallation, next storage.TargetInstallation) []storage.NewEvent {
		fields := map[string]any{"status": next.Status, next.Kind + "Id": next.TargetID}
		if prev != nil {
			fields["previous"] = previousState(prev.Status, prev.Configuration)
		}
		return []storage.NewEvent{r.newEvent(it, next.OrganizationID, next.InstallationID, next.Kind+"_installation_setup", fields)}
	}
}

func (r *Resolver) targetDeletedEvent(it storage.Integration, t storage.TargetInstallation) storage.NewEvent {
	return r.newEvent(it, t.OrganizationID, t.InstallationID, t.Kind+"_installation_deleted",
		map[string]any{t.Kind + "Id": t.TargetID, "previous": previousState(t.Status, t.Configuration)})
}

// notifyDeliveries wakes the delivery worker after events were queued.
func (r *Resolver) notifyDeliveries() {
	if r.Deliveries != nil {
		r.Deliveries.Notify()
	}
}

func eventModel(e storage.Event) *model.IntegrationEvent {
	m := &model.IntegrationEvent{ID: e.ID, IntegrationID: e.IntegrationID, CreatedAt: model.Time(e.CreatedAt),
		Payload: map[string]any{}, Status: model.IntegrationEventStatus(e.Status)}
	if e.InstallationID != "" {
		id := e.InstallationID
		m.InstallationID = &id
	}
	json.Unmarshal(e.Payload, &m.Payload)
	return m
}

// renderTimeout bounds a render: the caller waits for the runtime.
const renderTimeout = 10 * time.Second

// renderRequest is the decompressed render request.
type renderRequest struct {
	ComponentID *string        `json:"componentId"`
	Props       map[string]any `json:"props"`
	State       map[string]any `json:"state"`
	Context     map[string]any `json:"context"`
	Action      any            `json:"action"`
}

// maxRenderRequest bounds the compressed request before it is
// decompressed: LZ-string can expand n characters to about n²/6 (4,096
// become at most about 3 million, in about 150 ms), far more than any
// render request needs.
const maxRenderRequest = 4096

// parseRenderRequest decompresses and checks the request parameter.
func parseRenderRequest(compressed string) (renderRequest, error) {
	var req renderRequest
	bad := apierr.Invalid("request", "must be JSON compressed with LZ-string (compressToEncodedURIComponent)")
	switch {
	case compressed == "":
		return req, apierr.Invalid("request", "is required")
	case len(compressed) > maxRenderRequest:
		return req, apierr.Invalid("request", "is longer than %d characters", maxRenderRequest)
	}
	raw, err := lzstring.DecompressFromEncodedURIComponent(compressed)
	if err != nil || raw == "" {
		return req, bad
	}
	if err := json.Unmarshal([]byte(raw), &req); err != nil {
		return req, apierr.Invalid("request", "does not decompress to a JSON object {componentId, props, context}")
	}
	return req, checkRenderRequest(req)
}

// checkRenderRequest checks a decoded render request (GET: decompressed,
// POST: the body).
func checkRenderRequest(req renderRequest) error {
	switch {
	case req.ComponentID == nil || *req.ComponentID == "":
		return apierr.Invalid("request.componentId", "is required")
	case req.Props == nil:
		return apierr.Invalid("request.props", "is required (an object)")
	case req.Context == nil:
		return apierr.Invalid("request.context", "is required (an object)")
	}
	return checkRenderContext(req.Context)
}

// renderContexts are the ContentKit context types of 0.130.0 and the ids
// each requires: the ui_render event records the context, and event
// payloads must stay ContentKitContext objects.
var renderContexts = map[string][]string{
	"configuration_account":       {"organizationId"},
	"configuration_space":         {"spaceId"},
	"configuration_site":          {"siteId"},
	"configuration_contentsource": {"organizationId"},
	"document":                    {"spaceId"},
}

func checkRenderContext(ctx map[string]any) error {
	t, _ := ctx["type"].(string)
	ids, ok := renderContexts[t]
	if !ok {
		return apierr.Invalid("request.context.type", "must be configuration_account, configuration_space, configuration_site, configuration_contentsource or document")
	}
	if theme, _ := ctx["theme"].(string); theme != "dark" && theme != "light" {
		return apierr.Invalid("request.context.theme", "must be dark or light")
	}
	for _, id := range ids {
		if v, _ := ctx[id].(string); v == "" {
			return apierr.Invalid("request.context."+id, "is required for a %s context", t)
		}
	}
	if _, ok := ctx["editable"].(bool); t == "document" && !ok {
		return apierr.Invalid("request.context.editable", "is required (a boolean) for a document context")
	}
	return nil
}

// renderOrigin resolves what a render's context names: its organization
// (organizationId), space (spaceId) or site (siteId). Each one named must be
// something the caller can see (the organization: a member; a space: one
// visible to them; a site: a member at read or above) and the integration
// must be installed there (on the organization; on the space or site, or
// on all of them); anything else is a 404, like an id that does not exist,
// so a render never goes out for an organization the caller cannot act in.
// A context naming none of them renders for the owning organization, which
// only its members reach (others get "no reachable runtime").
func (r *Resolver) renderOrigin(ctx context.Context, c auth.Caller, it storage.Integration, req renderRequest) (string, string, error) {
	ids := map[string]string{}
	for _, key := range []string{"organizationId", "spaceId", "siteId"} {
		v, ok := req.Context[key]
		if !ok || v == nil {
			continue
		}
		s, isString := v.(string)
		if !isString || s == "" || len(s) > 100 {
			return "", "", apierr.Invalid("request.context."+key, "must be a non-empty id string")
		}
		ids[key] = s
	}
	if len(ids) == 0 {
		if memberOfOwner(c, it) {
			return it.OrganizationID, "", nil
		}
		return "", "", nil
	}
	orgID := ids["organizationId"]
	same := func(what, owner string) error {
		if orgID != "" && orgID != owner {
			return apierr.NotFound(what) // a space or site of another organization than the context's
		}
		orgID = owner
		return nil
	}
	var kind, target string
	if id, ok := ids["spaceId"]; ok {
		sp, _, err := r.spaceScope(ctx, id, chainOnly, false)
		if err != nil {
			return "", "", err
		}
		if err := same("space", sp.OrganizationID); err != nil {
			return "", "", err
		}
		kind, target = "space", id
	}
	if id, ok := ids["siteId"]; ok {
		sites, err := r.Store.SitesByIDs(ctx, []string{id})
		if err != nil {
			return "", "", err
		}
		site, found := sites[id]
		if !found {
			return "", "", apierr.NotFound("site")
		}
		if _, err := r.inOrgForSites(ctx, site.OrganizationID, "read", "rendering for a site"); err != nil {
			return "", "", asNotFound(err, "site")
		}
		if err := same("site", site.OrganizationID); err != nil {
			return "", "", err
		}
		kind, target = "site", id // a site is the narrower target when both are named
	}
	if _, err := r.inOrg(ctx, orgID); err != nil {
		return "", "", err
	}
	in, err := r.renderInstallation(ctx, it, orgID, kind, target)
	if err != nil {
		return "", "", err
	}
	return orgID, in, nil
}

// renderInstallation is the installation a render goes through: the
// integration's installation in orgID, which must cover the space or site
// the context names (selection "all", or installed on it); 404 otherwise.
func (r *Resolver) renderInstallation(ctx context.Context, it storage.Integration, orgID, kind, target string) (string, error) {
	p, err := r.Store.ListInstallations(ctx, it.ID, storage.InstallationFilter{Orgs: []string{orgID}}, storage.PageQuery{Limit: 1})
	if err != nil {
		return "", err
	}
	if len(p.Items) == 0 {
		return "", apierr.NotFound(fmt.Sprintf("installation of integration %q in the organization", it.Name))
	}
	in := p.Items[0]
	selection := map[string]string{"space": in.SpaceSelection, "site": in.SiteSelection}[kind]
	if kind == "" || selection == "all" {
		return in.ID, nil
	}
	if _, err := r.Store.TargetInstallation(ctx, in.ID, kind, target); err != nil {
		return "", notFoundAs(err, fmt.Sprintf("installation of integration %q on the %s", it.Name, kind))
	}
	return in.ID, nil
}

// asNotFound turns a role refusal into a 404 naming what was asked for:
// guests may not learn that a site exists.
func asNotFound(err error, what string) error {
	if e, ok := apierr.As(err); ok && (e.Status == 403 || e.Status == 404) {
		return apierr.NotFound(what)
	}
	return err
}

// render sends a ui_render event to the development tunnel and returns the
// runtime's answer; the render is recorded as an event with its trace.
func (r *Resolver) render(ctx context.Context, name, compressed string) (*model.RenderResult, error) {
	return r.renderWith(ctx, name, func() (renderRequest, error) { return parseRenderRequest(compressed) })
}

// renderPosted is render for the POST form: the request is the body's
// JSON object, not compressed.
func (r *Resolver) renderPosted(ctx context.Context, name string, body map[string]any) (*model.RenderResult, error) {
	return r.renderWith(ctx, name, func() (renderRequest, error) {
		var req renderRequest
		b, _ := json.Marshal(body)
		if err := json.Unmarshal(b, &req); err != nil {
			return req, apierr.Invalid("request", "must be an object {componentId, props, context}")
		}
		return req, checkRenderRequest(req)
	})
}

// renderWith renders the request parse gives, once the integration is known
// to be visible.
func (r *Resolver) renderWith(ctx context.Context, name string, parse func() (renderRequest, error)) (*model.RenderResult, error) {
	c, it, err := r.visibleIntegration(ctx, name)
	if err != nil {
		return nil, err
	}
	req, err := parse()
	if err != nil {
		return nil, err
	}
	orgID, installationID, err := r.renderOrigin(ctx, c, it, req)
	if err != nil {
		return nil, err
	}
	fields := map[string]any{"componentId": *req.ComponentID, "props": req.Props, "context": req.Context, "auth": map[string]any{"userId": c.UserID}}
	if req.State != nil {
		fields["state"] = req.State
	}
	if req.Action != nil {
		fields["action"] = req.Action
	}
	ev := r.newEvent(it, orgID, installationID, "ui_render", fields)
	ev.Deliver = false // renders are sent now, not queued: the caller waits for the answer
	if ev.Status != "pending" {
		ev.Status = "failed"
		ev.Logs = append(ev.Logs, storage.LogLine{Level: "error", Message: "render refused: no reachable runtime"})
		if err := r.Store.RecordEvents(ctx, ev); err != nil {
			return nil, err
		}
		why := "development mode is off"
		if it.DevTunnelURL != nil {
			why = "development mode forwards only the owning organization's requests (all=false)"
		}
		return nil, apierr.Conflict("integration %q has no reachable runtime: %s, and docsapi runs no integration scripts; turn development mode on with PUT /v1/integrations/%s/dev", it.Name, why, it.Name)
	}
	csp := delivery.CSPHeader(it.CSP)
	res, sendErr := r.sendRender(ctx, it, ev, renderTimeout, csp)
	out, failure := renderOutput(res, sendErr)
	line := fmt.Sprintf("render sent to %s: HTTP %d in %s", *it.DevTunnelURL, res.Status, res.Duration.Round(time.Millisecond))
	if sendErr != nil {
		line = fmt.Sprintf("render sent to %s failed: %v", *it.DevTunnelURL, sendErr)
	}
	ev.Status = "success"
	ev.Logs = append(ev.Logs, storage.LogLine{Level: "info", Message: line, At: r.Now()})
	if failure != "" {
		ev.Status = "failed"
		ev.Logs = append(ev.Logs, storage.LogLine{Level: "error", Message: failure, At: r.Now()})
	}
	if err := r.Store.RecordEvents(context.WithoutCancel(ctx), ev); err != nil {
		return nil, err
	}
	if failure != "" {
		return nil, apierr.New(502, "integration %q runtime: %s", it.Name, failure)
	}
	keepStateAndProps(out, req)
	result := &model.RenderResult{Output: out}
	if cc := res.Header.Get("Cache-Control"); cc != "" {
		result.CacheControl = &cc
	}
	if csp != "" {
		result.ContentSecurityPolicy = &csp
	}
	return result, nil
}

// sendRender sends a ui_render event to the integration's development
// tunnel now (not queued: the caller waits for the answer), signed as every
// delivery is.
func (r *Resolver) sendRender(ctx context.Context, it storage.Integration, ev storage.NewEvent, timeout time.Duration, csp string) (delivery.Response, error) {
	return delivery.Send(ctx, r.Deliveries.Doer, r.Now(), timeout, delivery.Request{
		URL: *it.DevTunnelURL, Secret: it.SigningSecret, Integration: it.Name, EventID: ev.ID, EventType: "ui_render", Attempt: 1, Body: ev.Payload, CSP: csp,
	})
}

// keepStateAndProps completes an element output the runtime answered
// without `state` or `props` (0.130.0 requires both): the component keeps
// the state and props it was rendered with.
func keepStateAndProps(out map[string]any, req renderRequest) {
	if out["type"] != "element" {
		return
	}
	if _, ok := out["state"].(map[string]any); !ok {
		state := req.State
		if state == nil {
			state = map[string]any{}
		}
		out["state"] = state
	}
	if _, ok := out["props"].(map[string]any); !ok {
		out["props"] = req.Props
	}
}

// renderOutput checks a runtime's answer is ContentKit render output
// ({type: element, element, ...} or {type: complete, ...}).
func renderOutput(res delivery.Response, err error) (map[string]any, string) {
	if err != nil {
		return nil, err.Error()
	}
	if res.Status < 200 || res.Status > 299 {
		return nil, fmt.Sprintf("answered HTTP %d", res.Status)
	}
	var out map[string]any
	if err := json.Unmarshal(res.Body, &out); err != nil {
		return nil, "answered something that is not a JSON object"
	}
	switch out["type"] {
	case "element":
		if _, ok := out["element"].(map[string]any); !ok {
			return nil, "answered an element output without an element object"
		}
	case "complete":
	default:
		return nil, `answered an output whose type is neither "element" nor "complete"`
	}
	return out, ""
}
