package rest

import (
	"html/template"
	"net/http"
	"strings"

	"github.com/go-chi/chi/v5"

	"docsapi/apierr"
	"docsapi/graph/model"
	"docsapi/sso"
)

func init() { register(mountSAML) }

func mountSAML(a *API, r chi.Router) {
	r.Get("/orgs/{organizationId}/saml", a.ok(func(r *http.Request) (any, error) {
		page, limit, err := paging(r)
		if err != nil {
			return nil, err
		}
		return a.Q.SamlProviders(r.Context(), path(r, "organizationId"), page, limit)
	}))
	r.Post("/orgs/{organizationId}/saml", a.created(func(r *http.Request) (any, error) {
		var in model.CreateSAMLProviderInput
		if err := decode(r, &in, bodyRequired); err != nil {
			return nil, err
		}
		return a.M.CreateSAMLProvider(r.Context(), path(r, "organizationId"), in)
	}))
	r.Get("/orgs/{organizationId}/saml/{samlProviderId}", a.ok(func(r *http.Request) (any, error) {
		return a.Q.SamlProvider(r.Context(), path(r, "organizationId"), path(r, "samlProviderId"))
	}))
	r.Patch("/orgs/{organizationId}/saml/{samlProviderId}", a.ok(func(r *http.Request) (any, error) {
		var in model.UpdateSAMLProviderInput
		if err := decode(r, &in, bodyRequired); err != nil {
			return nil, err
		}
		return a.M.UpdateSAMLProvider(r.Context(), path(r, "organizationId"), path(r, "samlProviderId"), in)
	}))
	r.Delete("/orgs/{organizationId}/saml/{samlProviderId}", a.deleted(func(r *http.Request) (*model.DeleteResult, error) {
		return a.M.DeleteSAMLProvider(r.Context(), path(r, "organizationId"), path(r, "samlProviderId"))
	}))
	r.Get("/orgs/{organizationId}/sso", a.ok(func(r *http.Request) (any, error) {
		return a.Q.SsoProviderLogins(r.Context(), path(r, "organizationId"))
	}))
}

// MountSSO adds the browser side of SAML logins, served outside /v1 and
// without a token (r is mounted at /sso):
//
//	GET  /saml/{id}/metadata  service provider metadata (XML) for the identity provider
//	GET  /saml/{id}/start     302 to the identity provider with a signed AuthnRequest
//	POST /saml/{id}/acs       the identity provider's answer (HTTP-POST binding)
//
// The ACS answer carries the session token: an HTML page showing it once for
// a browser (Accept: text/html), else JSON (model.SAMLSession). An answer
// to a sign-in started from the member app view (/app/signin) goes back to
// the app view instead (AppSignIn).
func (a *API) MountSSO(r chi.Router) {
	r.Use(ssoHeaders)
	r.Get("/saml/{samlProviderId}/metadata", func(w http.ResponseWriter, r *http.Request) {
		md, err := a.Resolver.SAMLMetadata(r.Context(), path(r, "samlProviderId"))
		if err != nil {
			a.ssoError(w, r, err)
			return
		}
		w.Header().Set("Content-Type", "application/samlmetadata+xml")
		w.Write(md)
	})
	r.Get("/saml/{samlProviderId}/start", func(w http.ResponseWriter, r *http.Request) {
		to, err := a.Resolver.StartSAMLLogin(r.Context(), path(r, "samlProviderId"))
		if err != nil {
			a.ssoError(w, r, err)
			return
		}
		w.Header().Set("Cache-Control", "no-store")
		http.Redirect(w, r, to, http.StatusFound)
	})
	r.Post("/saml/{samlProviderId}/acs", func(w http.ResponseWriter, r *http.Request) {
		if err := r.ParseForm(); err != nil {
			a.ssoError(w, r, apierr.New(http.StatusBadRequest, "the body must be an HTML form (application/x-www-form-urlencoded)"))
			return
		}
		if relay := r.PostForm.Get("RelayState"); a.AppSignIn != nil && strings.HasPrefix(relay, sso.RelayPrefix) {
			a.AppSignIn(w, r, path(r, "samlProviderId"), r.PostForm.Get("SAMLResponse"), relay)
			return
		}
		s, err := a.Resolver.CompleteSAMLLogin(r.Context(), path(r, "samlProviderId"), r.PostForm.Get("SAMLResponse"))
		if err != nil {
			a.ssoError(w, r, err)
			return
		}
		w.Header().Set("Cache-Control", "no-store")
		if !wantsHTML(r) {
			WriteJSON(w, http.StatusOK, s)
			return
		}
		writePage(w, http.StatusOK, sessionPage, s)
	})
}

// wantsHTML: browsers ask for text/html; API clients and scripts get JSON.
func wantsHTML(r *http.Request) bool {
	accept := r.Header.Get("Accept")
	return strings.Contains(accept, "text/html") && !strings.Contains(accept, "application/json")
}

func (a *API) ssoError(w http.ResponseWriter, r *http.Request, err error) {
	e, ok := apierr.As(err)
	if !ok || !wantsHTML(r) {
		WriteError(w, r, a.Log, err)
		return
	}
	writePage(w, e.Status, errorPage, e)
}

// ssoPolicy is the Content-Security-Policy of every /sso answer (the
// pages showing a session token or a refusal, the redirect's tiny HTML
// body): no scripts, frames, forms, plugins or base URL; inline styles only;
// never framed by another site (clickjacking the token page).
const ssoPolicy = "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'"

// ssoHeaders puts the SSO pages' policy on every /sso answer.
func ssoHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", ssoPolicy)
		h.Set("X-Frame-Options", "DENY") // frame-ancestors for browsers without CSP 2
		h.Set("Referrer-Policy", "no-referrer")
		next.ServeHTTP(w, r)
	})
}

func writePage(w http.ResponseWriter, status int, t *template.Template, data any) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	t.Execute(w, data)
}

const pageStyle = `<style>body{font-family:system-ui,sans-serif;max-width:40rem;margin:3rem auto;padding:0 1rem}
code{display:block;padding:.75rem;background:#f3f3f3;word-break:break-all}</style>`

var sessionPage = template.Must(template.New("session").Parse(`<!doctype html>
<html><head><meta charset="utf-8"><title>Signed in</title>` + pageStyle + `</head><body>
<h1>Signed in as {{.User.Email}}</h1>
<p>Your API token for organization <b>{{.Organization}}</b>, valid until {{.ExpiresAt}}. It is shown only
once: copy it now and send it as <tt>Authorization: Bearer &lt;token&gt;</tt>.</p>
<code id="token">{{.Token}}</code>
</body></html>`))

var errorPage = template.Must(template.New("error").Parse(`<!doctype html>
<html><head><meta charset="utf-8"><title>Sign-in failed</title>` + pageStyle + `</head><body>
<h1>Sign-in failed</h1><p>{{.Message}}</p>
</body></html>`))
