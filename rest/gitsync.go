package rest

import (
	"net/http"

	"github.com/go-chi/chi/v5"

	"docsapi/graph/model"
)

func init() { register(mountGitSync) }

// Git Sync: import and export queue a background operation and answer 204
// (0.130.0); the space's git/info shows the operation's stage and outcome.
func mountGitSync(a *API, r chi.Router) {
	space := func(r *http.Request) string { return path(r, "spaceId") }
	r.Post("/spaces/{spaceId}/git/import", a.noContent(func(r *http.Request) error {
		var in model.ImportGitRepositoryInput
		if err := decode(r, &in, bodyRequired); err != nil {
			return err
		}
		_, err := a.M.ImportGitRepository(r.Context(), space(r), in)
		return err
	}))
	r.Post("/spaces/{spaceId}/git/export", a.noContent(func(r *http.Request) error {
		var in model.ExportToGitRepositoryInput
		if err := decode(r, &in, bodyRequired); err != nil {
			return err
		}
		_, err := a.M.ExportToGitRepository(r.Context(), space(r), in)
		return err
	}))
	r.Get("/spaces/{spaceId}/git/info", a.ok(func(r *http.Request) (any, error) {
		return a.Q.SpaceGitInfo(r.Context(), space(r))
	}))
	r.Delete("/spaces/{spaceId}/git/legacy-installation", a.deleted(func(r *http.Request) (*model.DeleteResult, error) {
		removed, err := a.M.DeleteLegacyGitInstallation(r.Context(), space(r))
		return &model.DeleteResult{Deleted: removed}, err
	}))
}
