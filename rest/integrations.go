package rest

import (
	"net/http"
	"strconv"

	"github.com/go-chi/chi/v5"

	"docsapi/graph/model"
)

func init() {
	register(mountIntegrations)
	registerPublic(mountIntegrationAssets)
}

func mountIntegrations(a *API, r chi.Router) {
	r.Get("/integrations", a.ok(func(r *http.Request) (any, error) {
		page, limit, err := paging(r)
		if err != nil {
			return nil, err
		}
		blocks, err := qBool(r, "blocks")
		if err != nil {
			return nil, err
		}
		sources, err := qBool(r, "contentSources")
		if err != nil {
			return nil, err
		}
		return a.Q.Integrations(r.Context(), page, limit, qStr(r, "search"), qEnum[model.IntegrationCategory](r, "category"),
			qStr(r, "blockDomain"), blocks, sources, qStr(r, "owner"), qEnum[model.IntegrationScope](r, "scope"), qEnum[model.IntegrationTarget](r, "target"))
	}))
	r.Get("/integrations/{integrationName}", a.ok(func(r *http.Request) (any, error) {
		return a.Q.Integration(r.Context(), path(r, "integrationName"))
	}))
	r.Post("/integrations/{integrationName}", a.ok(func(r *http.Request) (any, error) {
		var in model.PublishIntegrationInput
		if err := decode(r, &in, bodyRequired); err != nil {
			return nil, err
		}
		return a.M.PublishIntegration(r.Context(), path(r, "integrationName"), in)
	}))
	r.Delete("/integrations/{integrationName}", a.deleted(func(r *http.Request) (*model.DeleteResult, error) {
		return a.M.UnpublishIntegration(r.Context(), path(r, "integrationName"))
	}))
	r.Get("/integrations/{integrationName}/events", a.ok(func(r *http.Request) (any, error) {
		page, limit, err := paging(r)
		if err != nil {
			return nil, err
		}
		return a.Q.IntegrationEvents(r.Context(), path(r, "integrationName"), page, limit)
	}))
	r.Get("/integrations/{integrationName}/events/{eventId}", a.ok(func(r *http.Request) (any, error) {
		return a.Q.IntegrationEvent(r.Context(), path(r, "integrationName"), path(r, "eventId"))
	}))
	r.Put("/integrations/{integrationName}/dev", a.noContent(func(r *http.Request) error {
		var in model.SetIntegrationDevelopmentModeInput
		if err := decode(r, &in, bodyRequired); err != nil {
			return err
		}
		_, err := a.M.SetIntegrationDevelopmentMode(r.Context(), path(r, "integrationName"), in)
		return err
	}))
	// Turning development mode off answers 205 whether or not it was on.
	r.Delete("/integrations/{integrationName}/dev", a.deleted(func(r *http.Request) (*model.DeleteResult, error) {
		_, err := a.M.DisableIntegrationDevelopmentMode(r.Context(), path(r, "integrationName"))
		return &model.DeleteResult{Deleted: true}, err
	}))
	r.Get("/integrations/{integrationName}/render", func(w http.ResponseWriter, r *http.Request) {
		req := ""
		if s := qStr(r, "request"); s != nil {
			req = *s
		}
		res, err := a.Q.RenderIntegrationUI(r.Context(), path(r, "integrationName"), req)
		a.writeRender(w, r, res, err)
	})
}

// writeRender answers a render (GET and POST): the output, with the
// runtime's Cache-Control and the integration's Content-Security-Policy.
func (a *API) writeRender(w http.ResponseWriter, r *http.Request, res *model.RenderResult, err error) {
	if err != nil {
		WriteError(w, r, a.Log, err)
		return
	}
	if res.CacheControl != nil {
		w.Header().Set("Cache-Control", *res.CacheControl)
	}
	if res.ContentSecurityPolicy != nil {
		w.Header().Set("Content-Security-Policy", *res.ContentSecurityPolicy)
	}
	WriteJSON(w, http.StatusOK, res.Output)
}

// mountIntegrationAssets serves published icons and preview images.
func mountIntegrationAssets(a *API, r chi.Router) {
	r.Get("/integration-assets/{integrationName}/{fileId}", func(w http.ResponseWriter, r *http.Request) {
		f, err := a.Resolver.IntegrationAsset(r.Context(), path(r, "integrationName"), path(r, "fileId"))
		if err != nil {
			WriteError(w, r, a.Log, err)
			return
		}
		w.Header().Set("Content-Type", f.ContentType)
		w.Header().Set("Content-Length", strconv.Itoa(len(f.Data)))
		w.Header().Set("X-Content-Type-Options", "nosniff")
		// A new publication stores new files under new ids.
		w.Header().Set("Cache-Control", "public, max-age=31536000, immutable")
		w.WriteHeader(http.StatusOK)
		w.Write(f.Data)
	})
}
