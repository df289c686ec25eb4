package rest

import (
	"net/http"

	"github.com/go-chi/chi/v5"

	"docsapi/graph/model"
)

// Uploads: generateStorageUploadURL signs a URL on docsapi itself; the file
// is PUT there with no token (the URL's signature authorizes it), outside
// /v1 like file downloads. See graph/uploads.go.

func init() {
	register(func(a *API, r chi.Router) {
		r.Post("/orgs/{organizationId}/storage/upload", a.created(func(r *http.Request) (any, error) {
			var in model.StorageUploadInput
			if err := decode(r, &in, bodyRequired); err != nil {
				return nil, err
			}
			return a.M.GenerateStorageUploadURL(r.Context(), path(r, "organizationId"), in)
		}))
	})
	registerPublic(func(a *API, r chi.Router) {
		r.Put("/uploads/{key}", a.ok(func(r *http.Request) (any, error) {
			return a.Resolver.ReceiveUpload(r.Context(), path(r, "key"), r.URL.Query().Get("token"), r.Body)
		}))
	})
	describe(Operation{Method: "POST", Pattern: "/orgs/{organizationId}/storage/upload", ID: "generateStorageUploadURL", Tag: "storage",
		Summary: "A signed URL on docsapi to PUT a file to within an hour (any member; kind customization_font, or import for importContent's url).",
		Body:    model.StorageUploadInput{}, Status: 201, Response: model.StorageUploadURL{}})
}
