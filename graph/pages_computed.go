package graph

import (
	"context"
	"fmt"

	"docsapi/coalesce"

	"docsapi/apierr"
	"docsapi/graph/model"
	"docsapi/openapi"
	"docsapi/storage"
)

// Computed pages: a page of type computed holds a computed content source
// instead of a body. The one source docsapi computes is builtin:openapi,
// which names an OpenAPI spec of the space's organization by slug; reading
// the page (computed=true, the default) renders the spec's latest version.

const computedOpenAPI = "builtin:openapi"

// checkComputed validates a computed content source and returns it in its
// stored form {type, dependencies: {spec: {ref: {kind, spec}}}, props: {models}}.
func checkComputed(c map[string]any) (map[string]any, error) {
	if c == nil {
		return nil, apierr.Invalid("computed", "is required for computed pages")
	}
	if t, _ := c["type"].(string); t != computedOpenAPI {
		return nil, apierr.Invalid("computed.type", "must be %s (the only computed source docsapi supports)", computedOpenAPI)
	}
	deps, _ := c["dependencies"].(map[string]any)
	spec, _ := deps["spec"].(map[string]any)
	ref, _ := spec["ref"].(map[string]any)
	if ref == nil {
		return nil, apierr.Invalid("computed.dependencies.spec.ref", "is required: {kind: openapi, spec: <slug>}")
	}
	if k, _ := ref["kind"].(string); k != "openapi" {
		return nil, apierr.Invalid("computed.dependencies.spec.ref.kind", "must be openapi")
	}
	slug, _ := ref["spec"].(string)
	if err := firstErr(checkLen("computed.dependencies.spec.ref.spec", slug, 1, 100),
		checkPattern("computed.dependencies.spec.ref.spec", slug, openAPISlugPattern)); err != nil {
		return nil, err
	}
	models := false
	if p, ok := c["props"]; ok && p != nil {
		props, ok := p.(map[string]any)
		if !ok {
			return nil, apierr.Invalid("computed.props", "must be an object")
		}
		if m, ok := props["models"]; ok {
			if models, ok = m.(bool); !ok {
				return nil, apierr.Invalid("computed.props.models", "must be a boolean")
			}
		}
	}
	return map[string]any{
		"type":         computedOpenAPI,
		"dependencies": map[string]any{"spec": map[string]any{"ref": map[string]any{"kind": "openapi", "spec": slug}}},
		"props":        map[string]any{"models": models},
	}, nil
}

// computedSpec reads the spec slug and the models flag of a stored source.
func computedSpec(c map[string]any) (slug string, models bool) {
	deps, _ := c["dependencies"].(map[string]any)
	spec, _ := deps["spec"].(map[string]any)
	ref, _ := spec["ref"].(map[string]any)
	slug, _ = ref["spec"].(string)
	props, _ := c["props"].(map[string]any)
	models, _ = props["models"].(bool)
	return slug, models
}

// withComputedBody gives a computed page its body, unless the read asked
// for computed=false.
func (r *Resolver) withComputedBody(ctx context.Context, orgID, revID string, m *model.RevisionPage, p storage.ContentPage, format *model.PageFormat, files []storage.File, computed *bool) error {
	if p.Type != "computed" || (computed != nil && !*computed) {
		return nil
	}
	md, err := r.computedMarkdown(ctx, orgID, p.Meta.Computed)
	if err != nil {
		return err
	}
	if format != nil && *format == "document" {
		// From markdown's cache, like a document page's: the rendered
		// Markdown is itself cached per spec version, so a read after the
		// first builds nothing. Its relative links (from the spec's
		// descriptions) read from the page's path, as a document page's
		// would; looking up the pages they name is one statement, and
		// only when there are some.
		links, err := r.bodyLinkTargets(ctx, revID, p.Path, md, files)
		if err != nil {
			return err
		}
		m.Document = readerDocument(md, files, links)
		return nil
	}
	m.Markdown = &md
	return nil
}

// computedMarkdown renders the spec's latest version. A missing spec, a
// spec without a version or an unreadable document renders a notice
// saying so (the page stays readable).
func (r *Resolver) computedMarkdown(ctx context.Context, orgID string, source map[string]any) (string, error) {
	slug, models := computedSpec(source)
	spec, err := r.Store.OpenAPISpec(ctx, orgID, slug)
	if err == storage.ErrNotFound {
		return notice("The OpenAPI specification `%s` does not exist in this organization. Create it, or point this page at another specification.", slug), nil
	}
	if err != nil {
		return "", err
	}
	if spec.LastVersion == nil {
		msg := fmt.Sprintf("The OpenAPI specification `%s` has no processed version yet (processing state: %s).", slug, spec.State)
		if spec.LastErrorCode != nil {
			msg += fmt.Sprintf(" Its last processing failed with %s.", *spec.LastErrorCode)
		}
		return notice("%s", msg), nil
	}
	// One render per (version, models), however many read it at once; it
	// stops when they all left.
	key := fmt.Sprintf("%s|%s|%t", spec.ID, *spec.LastVersion, models)
	return r.renders().computed.Do(ctx, key, func(ctx context.Context) (string, error) {
		_, doc, err := r.Store.OpenAPIVersionDocument(ctx, spec.ID, *spec.LastVersion)
		if err == storage.ErrNotFound { // deleted meanwhile
			return notice("The OpenAPI specification `%s` was just deleted.", slug), nil
		}
		if err != nil {
			return "", err
		}
		md, err := openapi.RenderMarkdown(ctx, doc, models, maxMarkdown)
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		if err != nil {
			return notice("The OpenAPI specification `%s` could not be rendered: %v", slug, err), nil
		}
		return md, nil
	})
}

// notice is a page body made of one warning hint.
func notice(format string, args ...any) string {
	return "> [!WARNING]\n> " + fmt.Sprintf(format, args...) + "\n"
}

// DefaultRenderCacheBytes is the default of Config.RenderCacheBytes.
const DefaultRenderCacheBytes = 64 << 20

// renderers coalesce and cache what readers ask to have rendered: PDFs of
// revisions and computed pages of spec versions. Both never change once
// rendered, and rendering a large one takes seconds and hundreds of MB.
type renderers struct {
	pdfs     coalesce.Group[[]byte]
	computed coalesce.Group[string]
}

func (r *Resolver) renders() *renderers {
	r.rendersOnce.Do(func() {
		size := r.Config.RenderCacheBytes
		if size == 0 {
			size = DefaultRenderCacheBytes
		}
		r.rendered.pdfs = coalesce.Group[[]byte]{MaxBytes: size, Size: func(b []byte) int { return len(b) }}
		r.rendered.computed = coalesce.Group[string]{MaxBytes: size, Size: func(s string) int { return len(s) }}
	})
	return &r.rendered
}
