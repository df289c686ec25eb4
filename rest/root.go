package rest

import (
	"net/http"

	"strings"

	"github.com/go-chi/chi/v5"

	"docsapi/docs"
)

// The server's root and its documentation need no token: a newcomer who
// opens the address in a browser (or with curl) learns what answers there
// and where to go next, before holding a token.
func init() {
	registerPublic(func(a *API, r chi.Router) {
		r.Get("/", a.serveRoot)
		r.Get("/docs", func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, "/docs/", http.StatusMovedPermanently)
		})
		r.Get("/docs/*", serveDocs)
	})
}

// rootAnswer is GET /: getApiInformation's fields and where to go next.
type rootAnswer struct {
	Version string            `json:"version"`
	Build   string            `json:"build"`
	Links   map[string]string `json:"links"`
}

func (a *API) serveRoot(w http.ResponseWriter, r *http.Request) {
	info, err := a.Q.APIInformation(r.Context())
	if err != nil {
		WriteError(w, r, a.Log, err)
		return
	}
	WriteJSON(w, http.StatusOK, rootAnswer{Version: info.Version, Build: info.Build, Links: map[string]string{
		"api":         "/v1/",
		"openapi":     "/v1/openapi.json",
		"graphql":     "/graphql",
		"playground":  "/graphql",
		"docs":        "/docs/",
		"healthcheck": "/healthz",
	}})
}

// serveDocs answers the embedded documentation pages as Markdown text;
// /docs/ lists them.
func serveDocs(w http.ResponseWriter, r *http.Request) {
	name := strings.TrimPrefix(r.URL.Path, "/docs/")
	if name == "" {
		entries, err := docs.Pages.ReadDir(".")
		if err != nil {
			WriteError(w, r, nil, err)
			return
		}
		var b strings.Builder
		b.WriteString("# docsapi documentation\n\n")
		for _, e := range entries {
			b.WriteString("- [" + strings.TrimSuffix(e.Name(), ".md") + "](" + e.Name() + ")\n")
		}
		writeMarkdown(w, b.String())
		return
	}
	if strings.Contains(name, "/") || !strings.HasSuffix(name, ".md") {
		NotFound(w, r)
		return
	}
	page, err := docs.Pages.ReadFile(name)
	if err != nil {
		NotFound(w, r)
		return
	}
	writeMarkdown(w, string(page))
}

func writeMarkdown(w http.ResponseWriter, text string) {
	w.Header().Set("Content-Type", "text/markdown; charset=utf-8")
	w.Header().Set("Cache-Control", "public, max-age=300")
	w.WriteHeader(http.StatusOK)
	w.Write([]byte(text))
}
