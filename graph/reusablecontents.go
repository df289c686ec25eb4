package graph

import (
	"context"
	"crypto/sha256"
	"encoding/base32"
	"encoding/json"
	"strings"

	"docsapi/apierr"
)

// Reusable contents: blocks of content a revision carries ({id, title} and
// a Markdown body, stored with the revision's reusable contents and carried
// to every next revision). The body is read as a document: `document` names
// it by the hash of its Markdown, so a changed body is a new document, as
// documents are immutable.

// reusableBodyKey is where a reusable content keeps its Markdown body in the
// revision's stored list; answers name the body by its document id instead.
const reusableBodyKey = "markdown"

// reusableContentModel is a stored reusable content as 0.130.0
// RevisionReusableContent answers it: id, title and, with a body, document.
func reusableContentModel(rc map[string]any) map[string]any {
	out := make(map[string]any, len(rc))
	for k, v := range rc {
		if k != reusableBodyKey {
			out[k] = v
		}
	}
	if body := reusableBody(rc); body != "" {
		out["document"] = documentID(body)
	}
	return out
}

// reusableContentModels answers a revision's reusable contents.
func reusableContentModels(list []map[string]any) []map[string]any {
	out := make([]map[string]any, 0, len(list))
	for _, rc := range list {
		out = append(out, reusableContentModel(rc))
	}
	return out
}

func reusableBody(rc map[string]any) string {
	s, _ := rc[reusableBodyKey].(string)
	return s
}

// documentID names a body by its content: 20 lower-case base32 characters
// of its SHA-256, like every docsapi id.
func documentID(body string) string {
	sum := sha256.Sum256([]byte(body))
	return strings.ToLower(base32.StdEncoding.EncodeToString(sum[:]))[:20]
}

// reusableContent reads one reusable content of a space's revision (the
// active one, revisionID, or a change request's head).
func (r *Resolver) reusableContent(ctx context.Context, spaceID, id string, revisionID, changeRequestID *string) (map[string]any, error) {
	_, rev, err := r.readableRevision(ctx, spaceID, revisionID, changeRequestID)
	if err != nil {
		return nil, err
	}
	for _, rc := range rev.ReusableContents {
		if rc["id"] == id {
			return reusableContentModel(rc), nil
		}
	}
	return nil, apierr.NotFound("reusable content")
}

// spaceDocument renders the document documentID of a space: the body of a
// reusable content of its active revision, as a JSON document. schema
// (current or next) is validated; docsapi has one document schema.
func (r *Resolver) spaceDocument(ctx context.Context, spaceID, id string, schema *string) (map[string]any, error) {
	if schema != nil && *schema != "current" && *schema != "next" {
		return nil, apierr.Invalid("schema", "must be one of current, next (got %q)", *schema)
	}
	cs, err := r.contentSpace(ctx, spaceID, false)
	if err != nil {
		return nil, err
	}
	rev, err := r.revisionOf(ctx, cs, nil)
	if err != nil {
		return nil, err
	}
	for _, rc := range rev.ReusableContents {
		if body := reusableBody(rc); body != "" && documentID(body) == id {
			files, err := r.Store.RevisionFiles(ctx, rev.ID)
			if err != nil {
				return nil, err
			}
			links, err := r.bodyLinkTargets(ctx, rev.ID, "", body, files)
			if err != nil {
				return nil, err
			}
			var doc map[string]any
			if err := json.Unmarshal(readerDocument(body, files, links), &doc); err != nil {
				return nil, err
			}
			return doc, nil
		}
	}
	return nil, apierr.NotFound("document")
}
