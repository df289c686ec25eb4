package graph

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"strings"

	"docsapi/apierr"
	"docsapi/graph/model"
	"docsapi/markdown"
	"docsapi/storage"
)

// Computing content without a page (getComputedDocument, getComputedRevision):
// the same builtin:openapi source computed pages hold. A document source's
// props say which document (doc: models, operations or info); docsapi
// renders the whole spec, with its models for doc models.

// computeSource checks a computed content source given to compute: the
// stored form of checkComputed, props.doc read as props.models.
func computeSource(in model.ComputeContentInput, document bool) (map[string]any, error) {
	if in.Seed == nil || *in.Seed == "" {
		return nil, apierr.Invalid("seed", "is required")
	}
	if in.Source == nil {
		return nil, apierr.Invalid("source", "is required")
	}
	src := map[string]any{}
	for k, v := range in.Source {
		src[k] = v
	}
	if props, ok := src["props"].(map[string]any); ok && document {
		doc, _ := props["doc"].(string)
		if doc != "models" && doc != "operations" && doc != "info" {
			return nil, apierr.Invalid("source.props.doc", "must be models, operations or info")
		}
		src["props"] = map[string]any{"models": doc == "models"}
	}
	out, err := checkComputed(src)
	if e, ok := apierr.As(err); ok && strings.HasPrefix(e.Message, "computed") {
		// The source is the body's source field, not a page's computed.
		e.Message = "source" + strings.TrimPrefix(e.Message, "computed")
	}
	return out, err
}

func (r *Resolver) computedDocument(ctx context.Context, spaceID string, in model.ComputeContentInput) (any, error) {
	cs, err := r.contentSpace(ctx, spaceID, false)
	if err != nil {
		return nil, err
	}
	src, err := computeSource(in, true)
	if err != nil {
		return nil, err
	}
	md, err := r.computedMarkdown(ctx, cs.Head.OrganizationID, src)
	if err != nil {
		return nil, err
	}
	return markdown.ToDocument(md, nil), nil
}

func (r *Resolver) computedRevision(ctx context.Context, spaceID string, in model.ComputeContentInput) (*model.ComputedRevision, error) {
	cs, err := r.contentSpace(ctx, spaceID, false)
	if err != nil {
		return nil, err
	}
	src, err := computeSource(in, false)
	if err != nil {
		return nil, err
	}
	md, err := r.computedMarkdown(ctx, cs.Head.OrganizationID, src)
	if err != nil {
		return nil, err
	}
	slug, _ := computedSpec(src)
	// The seed makes the page's id stable across computations.
	sum := sha256.Sum256([]byte(*in.Seed + "\x00" + slug))
	page := r.pageModel(spaceID, storage.ContentPage{ID: hex.EncodeToString(sum[:10]), Type: "document", Title: slug, Slug: slug, Path: slug})
	page.Markdown = &md
	return &model.ComputedRevision{Pages: []*model.RevisionPage{page}, Files: []map[string]any{}, ReusableContents: []map[string]any{}}, nil
}
