package graph

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"regexp"

	"docsapi/apierr"
	"docsapi/auth"
	"docsapi/graph/model"
	"docsapi/storage"
)

// integrationNamePattern is the rule for integration names (and block domains).
var integrationNamePattern = regexp.MustCompile(`^[a-zA-Z0-9-_.]+$`)

func checkIntegrationName(field, name string) error {
	return firstErr(checkLen(field, name, 1, 100), checkPattern(field, name, integrationNamePattern))
}

// isInstallationToken tells whether the caller is an installation token.
func isInstallationToken(c auth.Caller) bool { return c.Kind == auth.KindInstallation }

// userCaller returns the caller, refusing installation tokens for actions
// that only people may take (publishing, installing, development mode).
func userCaller(ctx context.Context, action string) (auth.Caller, error) {
	c, err := callerOf(ctx)
	if err == nil && isInstallationToken(c) {
		err = apierr.Forbidden("%s is not allowed with an installation token", action)
	}
	return c, err
}

// memberOfOwner tells whether the caller belongs to the integration's
// owning organization (honouring organization-scoped tokens).
func memberOfOwner(c auth.Caller, it storage.Integration) bool {
	return it.Membership != nil && (c.OrganizationID == "" || c.OrganizationID == it.OrganizationID)
}

// ownerAdmin: the caller administrates the integration's owning
// organization (installation tokens never do: they act as READ members).
func ownerAdmin(c auth.Caller, it storage.Integration) bool {
	return memberOfOwner(c, it) && !isInstallationToken(c) && atLeast(it.Membership.Role, "admin")
}

// visibleIntegration loads an integration the caller may see: public and
// unlisted ones for everyone, private ones for members of the owner only
// (404 for everyone else, as for a name that does not exist).
func (r *Resolver) visibleIntegration(ctx context.Context, name string) (auth.Caller, storage.Integration, error) {
	c, err := callerOf(ctx)
	if err != nil {
		return c, storage.Integration{}, err
	}
	if checkIntegrationName("integrationName", name) != nil {
		return c, storage.Integration{}, apierr.NotFound("integration")
	}
	it, err := r.Store.IntegrationByName(ctx, name, c.UserID)
	if err != nil {
		return c, it, notFoundAs(err, "integration")
	}
	if it.Visibility == "private" && !memberOfOwner(c, it) {
		return c, it, apierr.NotFound("integration")
	}
	return c, it, nil
}

// ownedIntegration loads an integration the caller administrates.
func (r *Resolver) ownedIntegration(ctx context.Context, name, action string) (auth.Caller, storage.Integration, error) {
	c, it, err := r.visibleIntegration(ctx, name)
	if err != nil {
		return c, it, err
	}
	if !ownerAdmin(c, it) {
		return c, it, apierr.Forbidden("%s needs the admin role in the organization that owns the integration", action)
	}
	return c, it, nil
}

// visibleOrgs are the organizations whose private and unlisted
// integrations the caller sees, and adminOrgs those they may install on.
func (r *Resolver) callerOrgs(ctx context.Context, c auth.Caller, admin bool) ([]string, error) {
	var ids []string
	var err error
	if admin {
		ids, err = r.Store.AdminOrganizations(ctx, c.UserID)
	} else {
		ids, err = r.Store.MemberOrganizations(ctx, c.UserID)
	}
	if err != nil || c.OrganizationID == "" {
		return ids, err
	}
	for _, id := range ids {
		if id == c.OrganizationID {
			return []string{id}, nil
		}
	}
	return nil, nil
}

// integrationModel converts an integration; canInstall says whether the
// caller administrates some organization the integration may go to.
func (r *Resolver) integrationModel(c auth.Caller, it storage.Integration, canInstall bool) *model.Integration {
	base := r.Config.PublicURL
	assets := base + "/integration-assets/" + it.Name + "/"
	m := &model.Integration{
		Object: "integration", Name: it.Name, Version: it.Version, Title: it.Title, Description: it.Description,
		Summary: it.Summary, PreviewImages: make([]string, 0, len(it.PreviewFiles)), Target: model.IntegrationTarget(it.Target),
		Visibility: model.IntegrationVisibility(it.Visibility), Scopes: make([]model.IntegrationScope, 0, len(it.Scopes)),
		Categories: make([]model.IntegrationCategory, 0, len(it.Categories)), Configurations: map[string]any{},
		Blocks: []*model.IntegrationBlock{}, ContentSources: []*model.IntegrationContentSource{}, ExternalLinks: []*model.IntegrationExternalLink{},
		Urls: model.IntegrationURLs{
			Location: base + "/v1/integrations/" + it.Name, App: base + "/integrations/" + it.Name, Assets: assets,
			// docsapi runs no integration scripts, so there is no public
			// runtime endpoint; this is the integration's API location.
			PublicEndpoint: base + "/v1/integrations/" + it.Name,
		},
		Permissions: model.IntegrationPermissions{Admin: ownerAdmin(c, it), Install: canInstall && !isInstallationToken(c)},
	}
	var caller *storage.Membership // nil: not a member of the owner
	if memberOfOwner(c, it) {
		caller = &storage.Membership{Role: it.Membership.Role}
		if isInstallationToken(c) {
			caller.Role = &installationRole
		}
	}
	m.Owner = r.orgModel(it.Owner, caller)
	for _, f := range it.PreviewFiles {
		m.PreviewImages = append(m.PreviewImages, assets+f)
	}
	if it.IconFile != nil {
		icon := assets + *it.IconFile
		m.Urls.Icon = &icon
	}
	for _, s := range it.Scopes {
		m.Scopes = append(m.Scopes, model.IntegrationScope(s))
	}
	for _, s := range it.Categories {
		m.Categories = append(m.Categories, model.IntegrationCategory(s))
	}
	json.Unmarshal(it.Blocks, &m.Blocks)
	json.Unmarshal(it.ContentSources, &m.ContentSources)
	json.Unmarshal(it.ExternalLinks, &m.ExternalLinks)
	json.Unmarshal(it.Configurations, &m.Configurations)
	if it.CSP != nil {
		json.Unmarshal(it.CSP, &m.ContentSecurityPolicy)
	}
	return m
}

// canInstall: the caller administrates an organization the integration may
// be installed on (private integrations: only the owner).
func canInstall(it storage.Integration, adminOrgs []string) bool {
	for _, o := range adminOrgs {
		if it.Visibility != "private" || o == it.OrganizationID {
			return true
		}
	}
	return false
}

// newSigningSecret is a fresh HMAC key for deliveries.
func newSigningSecret() string {
	b := make([]byte, 32)
	rand.Read(b)
	return "whsec_" + base64.RawURLEncoding.EncodeToString(b)
}

// publish validates a publication and stores it.
func (r *Resolver) publish(ctx context.Context, name string, in model.PublishIntegrationInput) (*model.Integration, error) {
	c, err := userCaller(ctx, "publishing an integration")
	if err != nil {
		return nil, err
	}
	if err := checkIntegrationName("integrationName", name); err != nil {
		return nil, err
	}
	if in.Organization == nil || *in.Organization == "" {
		return nil, apierr.Invalid("organization", "is required (id or subdomain of the publishing organization)")
	}
	orgID, err := r.Store.OrganizationByRef(ctx, *in.Organization)
	if err != nil {
		return nil, notFoundAs(err, "organization")
	}
	if _, err := r.inOrgAtLeast(ctx, orgID, "admin", "publishing an integration"); err != nil {
		return nil, err
	}
	if max := cmp.Or(r.Config.IntegrationMaxScriptBytes, DefaultIntegrationMaxScriptBytes); in.Script != nil && len(*in.Script) > max {
		return nil, apierr.Invalid("script", "must be at most %d bytes (--integration-max-script-bytes)", max)
	}
	p, err := publication(name, orgID, in)
	if err != nil {
		return nil, err
	}
	if existing, err := r.Store.IntegrationByName(ctx, name, c.UserID); err == nil && existing.OrganizationID != orgID {
		return nil, r.ownedElsewhere(c, existing)
	}
	if err := r.Store.PublishIntegration(ctx, p, newSigningSecret()); err != nil {
		if errors.Is(err, storage.ErrOwnedElsewhere) {
			return nil, apierr.Conflict("integration name %q is taken", name)
		}
		return nil, err
	}
	it, err := r.Store.IntegrationByName(ctx, name, c.UserID)
	if err != nil {
		return nil, err
	}
	return r.integrationModel(c, it, true), nil
}

// ownedElsewhere refuses publishing a name another organization owns: 403
// when the caller can see that integration, else 409 (names are global).
func (r *Resolver) ownedElsewhere(c auth.Caller, it storage.Integration) error {
	if it.Visibility != "private" || memberOfOwner(c, it) {
		return apierr.Forbidden("integration %q belongs to another organization: only its admins publish it", it.Name)
	}
	return apierr.Conflict("integration name %q is taken", it.Name)
}

func developmentModel(it storage.Integration) *model.IntegrationDevelopment {
	return &model.IntegrationDevelopment{Enabled: it.DevTunnelURL != nil, TunnelURL: it.DevTunnelURL, All: it.DevAll, SigningSecret: it.SigningSecret}
}

// IntegrationAsset reads an integration's icon or preview image. Assets are
// served without a token (they are shown in pages and marketplaces); their
// ids are unguessable and change with every publication.
func (r *Resolver) IntegrationAsset(ctx context.Context, name, fileID string) (storage.ImageFile, error) {
	f, err := r.Store.IntegrationImage(ctx, name, fileID)
	return f, notFoundAs(err, "asset")
}
