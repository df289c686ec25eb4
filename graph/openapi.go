package graph

import (
	"context"
	"errors"
	"net/url"
	"regexp"

	"docsapi/apierr"
	"docsapi/auth"
	"docsapi/graph/model"
	"docsapi/openapi"
	"docsapi/storage"
)

// QueueOpenAPI names the background queue of spec processing (Resolver.Wake).
const QueueOpenAPI = "openapi"

// openAPISlugPattern is the rule for spec slugs (1 to 100 characters).
var openAPISlugPattern = regexp.MustCompile(`^[a-z0-9]+(?:-[a-z0-9]+)*$`)

// Who may do what with specs: members with READ read them (guests see no
// organization-level specs); CREATE, the role behind the organization's
// createOpenAPISpec permission, creates, updates and deletes them.
const (
	openAPIReadRole  model.Role = "read"
	openAPIWriteRole model.Role = "create"
)

// openAPIAccess checks the caller's role (min), or an installation token's
// scope: openapi:write for writes, openapi:read or openapi:write for reads.
func (r *Resolver) openAPIAccess(ctx context.Context, orgID string, min model.Role, action string) (orgScope, error) {
	if min == openAPIReadRole {
		return r.inOrgFor(ctx, orgID, min, action, scopeOpenAPIRead, scopeOpenAPIWrite)
	}
	return r.inOrgFor(ctx, orgID, min, action, scopeOpenAPIWrite)
}

func checkOpenAPISlug(slug string) error {
	return firstErr(checkLen("slug", slug, 1, 100), checkPattern("slug", slug, openAPISlugPattern))
}

// openAPISource validates a source: exactly one of url and text.
func openAPISource(in *model.OpenAPISpecSourceInput) (storage.OpenAPISource, error) {
	switch {
	case in == nil:
		return storage.OpenAPISource{}, apierr.Invalid("source", "is required")
	case (in.URL == nil) == (in.Text == nil):
		return storage.OpenAPISource{}, apierr.Invalid("source", "must have exactly one of url and text")
	case in.URL != nil:
		if err := checkURL("source.url", *in.URL, 2048); err != nil {
			return storage.OpenAPISource{}, err
		}
		return storage.OpenAPISource{URL: *in.URL}, nil
	}
	if *in.Text == "" {
		return storage.OpenAPISource{}, apierr.Invalid("source.text", "must not be empty")
	}
	return storage.OpenAPISource{Text: *in.Text}, nil
}

func (r *Resolver) openAPISpecModel(s storage.OpenAPISpec, role *string) *model.OpenAPISpec {
	base := r.Config.PublicURL
	vis := model.OpenAPISpecVisibility(s.Visibility)
	m := &model.OpenAPISpec{
		Object: "openapi-spec", ID: s.ID, CreatedAt: model.Time(s.CreatedAt), UpdatedAt: model.Time(s.UpdatedAt),
		Slug: s.Slug, SourceURL: s.SourceURL, ProcessingState: model.OpenAPISpecProcessingState(s.State),
		Visibility: &vis, LastVersion: s.LastVersion, LastProcessedAt: model.TimePtr(s.LastProcessedAt),
		LastProcessErrorMessage: s.LastErrorMessage,
		Permissions: model.OpenAPISpecPermissions{View: true, Edit: atLeast(role, openAPIWriteRole),
			Delete: atLeast(role, openAPIWriteRole)},
		Urls: model.OpenAPISpecURLs{
			Location: base + r.openAPISpecPath(s.OrganizationID, s.Slug),
			App:      base + "/o/" + s.OrganizationID + "/openapi/" + url.PathEscape(s.Slug),
		},
	}
	if s.LastErrorCode != nil {
		code := model.OpenAPISpecProcessingErrorCode(*s.LastErrorCode)
		m.LastProcessErrorCode = &code
	}
	return m
}

func (r *Resolver) openAPISpecPath(orgID, slug string) string {
	return "/v1/orgs/" + orgID + "/openapi/" + url.PathEscape(slug)
}

func (r *Resolver) openAPIVersionModel(s storage.OpenAPISpec, v storage.OpenAPIVersion) *model.OpenAPISpecVersion {
	loc := r.Config.PublicURL + r.openAPISpecPath(s.OrganizationID, s.Slug) + "/versions/" + v.ID
	return &model.OpenAPISpecVersion{
		Object: "openapi-spec-version", ID: v.ID, CreatedAt: model.Time(v.CreatedAt),
		URL: loc + "/raw", Urls: model.OpenAPISpecVersionURLs{Location: loc},
		Info:    model.OpenAPISpecVersionInfo{Title: v.Title, Version: v.Version},
		Openapi: v.OpenAPI, ContentHash: v.ContentHash,
	}
}

// openAPISpecFor loads a spec the caller may read.
func (r *Resolver) openAPISpecFor(ctx context.Context, orgID, slug string, min model.Role, action string) (orgScope, storage.OpenAPISpec, error) {
	if c, _ := auth.CallerFrom(ctx); c.Site != nil && min == openAPIReadRole {
		return r.siteTokenSpec(ctx, c, orgID, slug)
	}
	sc, err := r.openAPIAccess(ctx, orgID, min, action)
	if err != nil {
		return sc, storage.OpenAPISpec{}, err
	}
	s, err := r.Store.OpenAPISpec(ctx, orgID, slug)
	return sc, s, notFoundAs(err, "OpenAPI spec")
}

// openAPIVersionOf resolves a version id of a readable spec; nil means the
// latest version.
func (r *Resolver) openAPIVersionOf(ctx context.Context, orgID, slug string, versionID *string) (storage.OpenAPISpec, string, error) {
	_, s, err := r.openAPISpecFor(ctx, orgID, slug, openAPIReadRole, "reading OpenAPI specs")
	if err != nil {
		return s, "", err
	}
	if versionID != nil {
		return s, *versionID, nil
	}
	if s.LastVersion == nil {
		return s, "", apierr.NotFound("OpenAPI spec version")
	}
	return s, *s.LastVersion, nil
}

// openAPIDocument reads a version's document.
func (r *Resolver) openAPIDocument(ctx context.Context, orgID, slug string, versionID *string) (storage.OpenAPISpec, storage.OpenAPIVersion, []byte, error) {
	s, id, err := r.openAPIVersionOf(ctx, orgID, slug, versionID)
	if err != nil {
		return s, storage.OpenAPIVersion{}, nil, err
	}
	v, doc, err := r.Store.OpenAPIVersionDocument(ctx, s.ID, id)
	return s, v, doc, notFoundAs(err, "OpenAPI spec version")
}

// openAPIContent is a version's content: its document as JSON under the
// file name of its format.
func (r *Resolver) openAPIContent(s storage.OpenAPISpec, v storage.OpenAPIVersion, doc []byte) (*model.OpenAPISpecContent, error) {
	parsed, err := openapi.DecodeJSON(doc, v.Format)
	if err != nil {
		return nil, errors.Join(errors.New("decoding a stored OpenAPI document"), err)
	}
	return &model.OpenAPISpecContent{
		Filesystem: map[string]any{"openapi." + v.Format: parsed},
		URL:        r.openAPIVersionModel(s, v).URL,
	}, nil
}

func openAPIContentType(format string) string {
	if format == "json" {
		return "application/json"
	}
	return "application/yaml"
}

// wake tells a background worker that work is queued (no-op without one).
func (r *Resolver) wake(queue string) {
	if r.Wake != nil {
		r.Wake(queue)
	}
}
