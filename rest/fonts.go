package rest

import (
	"net/http"
	"strconv"

	"github.com/go-chi/chi/v5"

	"docsapi/graph/model"
)

// Custom fonts of an organization (graph/fonts.go); their files are served
// without a token at /fonts/{fontId}/{fileId}.{format}, the URL of the
// faces' sources. updateCustomFont answers 201, the only success 0.130.0
// declares for it.

func init() {
	register(mountFonts)
	registerPublic(func(a *API, r chi.Router) { r.Get("/fonts/{fontId}/{file}", a.fontFile) })
}

func mountFonts(a *API, r chi.Router) {
	r.Get("/orgs/{organizationId}/fonts", a.ok(func(r *http.Request) (any, error) {
		page, limit, err := paging(r)
		if err != nil {
			return nil, err
		}
		return a.Q.CustomFonts(r.Context(), path(r, "organizationId"), page, limit)
	}))
	r.Put("/orgs/{organizationId}/fonts", a.created(func(r *http.Request) (any, error) {
		var in model.CreateCustomFontInput
		if err := decode(r, &in, bodyRequired); err != nil {
			return nil, err
		}
		return a.M.CreateCustomFont(r.Context(), path(r, "organizationId"), in)
	}))
	getFont := func(r *http.Request) (any, error) {
		return a.Q.CustomFont(r.Context(), path(r, "organizationId"), path(r, "fontId"))
	}
	r.Get("/orgs/{organizationId}/fonts/{fontId}", a.resource(getFont))
	r.Post("/orgs/{organizationId}/fonts/{fontId}", a.ifMatch(getFont, a.created(func(r *http.Request) (any, error) {
		var in model.UpdateCustomFontInput
		if err := decode(r, &in, bodyRequired); err != nil {
			return nil, err
		}
		return a.M.UpdateCustomFont(r.Context(), path(r, "organizationId"), path(r, "fontId"), in)
	})))
	r.Delete("/orgs/{organizationId}/fonts/{fontId}", a.ifMatch(getFont, a.deleted(func(r *http.Request) (*model.DeleteResult, error) {
		return a.M.DeleteCustomFont(r.Context(), path(r, "organizationId"), path(r, "fontId"))
	})))
}

var fontContentTypes = map[string]string{"woff2": "font/woff2", "woff": "font/woff"}

// fontFile serves a font file: public (a site's readers load it, from any
// origin), and immutable (a replaced file gets a new URL).
func (a *API) fontFile(w http.ResponseWriter, r *http.Request) {
	f, err := a.Resolver.CustomFontFile(r.Context(), path(r, "fontId"), path(r, "file"))
	if err != nil {
		WriteError(w, r, a.Log, err)
		return
	}
	w.Header().Set("Content-Type", fontContentTypes[f.Format])
	w.Header().Set("Content-Length", strconv.Itoa(len(f.Bytes)))
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("Access-Control-Allow-Origin", "*")
	w.Header().Set("Cache-Control", "public, max-age=31536000, immutable")
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		w.Write(f.Bytes)
	}
}
