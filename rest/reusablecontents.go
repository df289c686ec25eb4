package rest

import (
	"net/http"

	"github.com/go-chi/chi/v5"
)

func init() { register(mountReusableContents) }

// Reusable contents of a revision (the active one, a change request's head,
// or a given revision) and the documents holding their bodies.
func mountReusableContents(a *API, r chi.Router) {
	reusable := func(r *http.Request) (any, error) {
		metadata, computed, err := contentReadArgs(r)
		if err != nil {
			return nil, err
		}
		return a.Q.ReusableContent(r.Context(), path(r, "spaceId"), path(r, "reusableContentId"), optional(path(r, "revisionId")), changeRequest(r), metadata, computed)
	}
	r.Get("/spaces/{spaceId}/content/reusable-contents/{reusableContentId}", a.ok(reusable))
	r.Get(crPrefix+"/content/reusable-contents/{reusableContentId}", a.ok(reusable))
	r.Get("/spaces/{spaceId}/revisions/{revisionId}/reusable-contents/{reusableContentId}", a.ok(reusable))
	r.Get("/spaces/{spaceId}/documents/{documentId}", a.ok(func(r *http.Request) (any, error) {
		return a.Q.SpaceDocument(r.Context(), path(r, "spaceId"), path(r, "documentId"), optional(r.URL.Query().Get("schema")))
	}))
}
