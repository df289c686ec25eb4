package site

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"net/http"
	"net/url"
	"strings"
	"time"

	"docsapi/apierr"
	"docsapi/auth"
	"docsapi/graph"
	"docsapi/graph/model"
)

// Members read content at its urls.app (<public URL>/app/spaces/<space>
// [/change-requests/<id>][/<page path>]) in the reader's layout, as
// themselves: the resolvers decide what they may read, as for the API. A
// browser signs in once with a personal API token (the sign-in form posts
// it; it never travels in a URL) and keeps it in an HttpOnly cookie limited
// to /app/: revoking the token ends the session. The form is CSRF-safe
// with a double-submitted random value whose cookie is SameSite=Strict.

// csrfCookie carries the sign-in form's CSRF value.
const csrfCookie = "docsapi_csrf"

// memberSession is how long a browser stays signed in (the token may end
// sooner: it is checked on every request).
const memberSession = 7 * 24 * time.Hour

// signInForm is the member sign-in form.
type signInForm struct {
	Action, CSRF, Next, Error string
	SSO                       []ssoLogin
}

// appPrefix is the path of urls.app on this service.
func (h *Handler) appPrefix() string {
	pub, err := url.Parse(h.Res.Config.PublicURL)
	if err != nil {
		return "/app/"
	}
	return strings.TrimRight(pub.Path, "/") + "/app/"
}

// isApp tells whether r is a urls.app request on the service's own host.
func (h *Handler) isApp(r *http.Request) bool {
	pub, err := url.Parse(h.Res.Config.PublicURL)
	return err == nil && strings.EqualFold(hostOnly(r.Host), pub.Hostname()) && strings.HasPrefix(r.URL.Path, h.appPrefix())
}

// localNext is where to go after signing in: a path under /app/ only (no
// open redirect).
func (h *Handler) localNext(next string) string {
	if !strings.HasPrefix(next, h.appPrefix()) || strings.Contains(next, "//") || strings.ContainsAny(next, "\\\r\n") {
		return h.appPrefix() + "signin"
	}
	return next
}

func (h *Handler) signInForm(w http.ResponseWriter, r *http.Request, next, msg string, status int) {
	b := make([]byte, 16)
	rand.Read(b)
	csrf := hex.EncodeToString(b)
	prefix := h.appPrefix()
	http.SetCookie(w, &http.Cookie{Name: csrfCookie, Value: csrf, Path: prefix + "signin", HttpOnly: true, SameSite: http.SameSiteStrictMode,
		Secure: h.requestURL(r, "/").Scheme == "https", MaxAge: 3600})
	v := &view{Title: "Sign in", SiteTitle: "docsapi", Home: prefix + "signin", Assets: prefix + assetsDir + "/", CSS: cssName, JS: jsName, NoIndex: true,
		Body:   "<p>Sign in with a personal API token of your account to read your organization's content. The token stays in this browser until you sign out or revoke it.</p>",
		SignIn: &signInForm{Action: prefix + "signin", CSRF: csrf, Next: h.localNext(next), Error: msg, SSO: h.ssoLogins(r, h.localNext(next))}}
	body, err := execute(v)
	if err != nil {
		h.errorPage(w, r, target{kind: kindPage}, err)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	w.Write(body)
}

// signIn takes the form: a valid token becomes the session cookie.
func (h *Handler) signIn(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, 16<<10)
	if err := r.ParseForm(); err != nil {
		h.signInForm(w, r, "", "The form could not be read.", http.StatusBadRequest)
		return
	}
	next := r.PostForm.Get("next")
	c, err := r.Cookie(csrfCookie)
	if err != nil || subtle.ConstantTimeCompare([]byte(c.Value), []byte(r.PostForm.Get("csrf"))) != 1 {
		h.signInForm(w, r, next, "The form expired: try again.", http.StatusForbidden)
		return
	}
	token := strings.TrimSpace(r.PostForm.Get("token"))
	caller, err := h.memberFrom(r, token)
	if err != nil {
		h.signInForm(w, r, next, "That token is not valid.", http.StatusUnauthorized)
		return
	}
	_ = caller
	http.SetCookie(w, &http.Cookie{Name: memberCookie, Value: token, Path: h.appPrefix(), HttpOnly: true, SameSite: http.SameSiteLaxMode,
		Secure: h.requestURL(r, "/").Scheme == "https", Expires: h.now().Add(memberSession)})
	http.Redirect(w, r, h.localNext(next), http.StatusSeeOther)
}

// memberFrom is the caller of a personal API token (site tokens and other
// kinds refused: this is a person's session).
func (h *Handler) memberFrom(r *http.Request, token string) (auth.Caller, error) {
	if !strings.HasPrefix(token, auth.TokenPrefix) || len(token) > maxParam {
		return auth.Caller{}, apierr.Unauthorized("not a personal API token")
	}
	c, err := h.Res.Auth.Authenticate(r.Context(), "Bearer "+token)
	if err != nil {
		return c, err
	}
	if c.Kind == auth.KindSite || c.Kind == auth.KindInstallation {
		return c, apierr.Unauthorized("not a personal API token")
	}
	return c, nil
}

// app answers a urls.app request.
func (h *Handler) app(w http.ResponseWriter, r *http.Request) {
	rest := strings.TrimPrefix(r.URL.Path, h.appPrefix())
	switch {
	case rest == "signin" && r.Method == http.MethodPost:
		h.signIn(w, r)
		return
	case rest == "signin/sso" && r.Method == http.MethodGet:
		h.finishSSO(w, r)
		return
	case strings.HasPrefix(rest, "signin/sso/") && r.Method == http.MethodGet && !strings.Contains(rest[len("signin/sso/"):], "/"):
		h.startSSO(w, r, rest[len("signin/sso/"):])
		return
	case rest == "signin":
		h.signInForm(w, r, r.URL.Query().Get("next"), "", http.StatusOK)
		return
	case strings.HasPrefix(rest, assetsDir+"/") || strings.Contains(rest, "/"+assetsDir+"/"):
		// Pages of the app view link their assets under their own base
		// (/app/spaces/<id>/_assets/), as a published site's do.
		serveAsset(w, r, rest[strings.LastIndex(rest, assetsDir+"/")+len(assetsDir)+1:])
		return
	case r.Method != http.MethodGet && r.Method != http.MethodHead:
		h.NotFound.ServeHTTP(w, r)
		return
	}
	segs := strings.Split(strings.Trim(rest, "/"), "/")
	if len(segs) < 2 || segs[0] != "spaces" || segs[1] == "" || len(r.URL.Path) > maxPath {
		h.NotFound.ServeHTTP(w, r)
		return
	}
	c, err := r.Cookie(memberCookie)
	if err != nil {
		http.Redirect(w, r, h.appPrefix()+"signin?next="+url.QueryEscape(r.URL.Path), http.StatusSeeOther)
		return
	}
	caller, err := h.memberFrom(r, c.Value)
	if err != nil {
		// Revoked or expired: the session ends with the token.
		http.SetCookie(w, &http.Cookie{Name: memberCookie, Value: "", Path: h.appPrefix(), MaxAge: -1, HttpOnly: true})
		http.Redirect(w, r, h.appPrefix()+"signin?next="+url.QueryEscape(r.URL.Path), http.StatusSeeOther)
		return
	}
	space := segs[1]
	base := h.appPrefix() + "spaces/" + url.PathEscape(space) + "/"
	pagePath := segs[2:]
	var cr *string
	if len(pagePath) >= 2 && pagePath[0] == "change-requests" {
		cr = &pagePath[1]
		base += "change-requests/" + url.PathEscape(*cr) + "/"
		pagePath = pagePath[2:]
	}
	ctx := auth.WithCaller(r.Context(), caller)
	p := strings.Join(pagePath, "/")
	l := graph.VisitorLookup{PublishedSiteContentLookup: &model.PublishedSiteContentLookup{Space: &space, Pathname: &p, BasePath: &base, SiteBasePath: &base}}
	rc := resolved{lookup: l, ctx: ctx, private: true}
	rev, err := h.Res.Query().SpaceContent(ctx, space, nil, cr, boolPtr(true), nil)
	if err != nil {
		h.errorPage(w, r, target{kind: kindPage}, err)
		return
	}
	sp, err := h.Res.Query().Space(ctx, space, nil)
	if err != nil {
		h.errorPage(w, r, target{kind: kindPage}, err)
		return
	}
	rc.lookup.Organization = &sp.Organization // the organization's OpenAPI specs (blocks.go)
	d := &siteData{rc: rc, content: newContent(rev, base), until: h.now(), title: sp.Title, changeRequest: cr}
	page, err := h.renderPage(d)
	if err != nil {
		h.errorPage(w, r, target{kind: kindPage}, err)
		return
	}
	page.cacheControl = "private, no-store"
	writeAnswer(w, r, page)
}
