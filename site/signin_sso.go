package site

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"net/http"
	"net/url"
	"strings"
	"time"

	"docsapi/apierr"
	"docsapi/auth"
)

// SAML sign-in to the app view, where the space's organization has an
// identity provider (graph/saml_app.go):
//
//	GET  /app/signin/sso/{provider}?next=  keeps a random binding and next
//	                                       in a cookie, 302 to the provider
//	POST /sso/saml/{provider}/acs          the provider's answer (rest/saml.go),
//	                                       handed to CompleteSAMLSignIn: the
//	                                       session waits in a cookie, 303 to
//	GET  /app/signin/sso                   which gives it to the browser only
//	                                       when it holds the binding the
//	                                       signed RelayState names
//
// The last step is what makes a posted assertion useless in another browser
// (login CSRF): the binding cookie is SameSite=Lax, sent on the same-site
// GET but set only by this browser's own start.

const (
	// ssoStateCookie holds the binding and next of a started sign-in.
	ssoStateCookie = "docsapi_sso_state"
	// ssoSessionCookie holds the issued session until the binding is checked.
	ssoSessionCookie = "docsapi_sso_session"
	// ssoStateTTL matches the identity provider's time to answer.
	ssoStateTTL = 10 * time.Minute
	// ssoSessionTTL is how long an issued session waits for the redirect.
	ssoSessionTTL = 2 * time.Minute
)

// ssoLogin is a "Sign in with SSO" link of the sign-in page.
type ssoLogin struct{ Href, Label string }

func (h *Handler) ssoPath() string { return h.appPrefix() + "signin/sso" }

// ssoLogins are the sign-in page's SSO links for next: the providers of the
// organization of the space next names.
func (h *Handler) ssoLogins(r *http.Request, next string) []ssoLogin {
	rest, ok := strings.CutPrefix(next, h.appPrefix()+"spaces/")
	if !ok {
		return nil
	}
	space, _, _ := strings.Cut(rest, "/")
	if space == "" || len(space) > maxParam {
		return nil
	}
	var out []ssoLogin
	for _, l := range h.Res.AppSAMLLogins(r.Context(), space) {
		out = append(out, ssoLogin{Href: h.ssoPath() + "/" + url.PathEscape(l.ID) + "?next=" + url.QueryEscape(next), Label: l.Label})
	}
	return out
}

// startSSO sends the browser to the identity provider.
func (h *Handler) startSSO(w http.ResponseWriter, r *http.Request, providerID string) {
	next := h.localNext(r.URL.Query().Get("next"))
	b := make([]byte, 16)
	rand.Read(b)
	binding := hex.EncodeToString(b)
	to, err := h.Res.StartAppSAMLLogin(r.Context(), providerID, binding)
	if err != nil {
		h.ssoRefused(w, r, next, err)
		return
	}
	http.SetCookie(w, &http.Cookie{Name: ssoStateCookie, Value: binding + "." + base64.RawURLEncoding.EncodeToString([]byte(next)), Path: h.ssoPath(),
		HttpOnly: true, SameSite: http.SameSiteLaxMode, Secure: h.requestURL(r, "/").Scheme == "https", MaxAge: int(ssoStateTTL / time.Second)})
	w.Header().Set("Cache-Control", "no-store")
	http.Redirect(w, r, to, http.StatusFound)
}

// CompleteSAMLSignIn takes the identity provider's answer to startSSO
// (posted to the provider's ACS, rest/saml.go): a verified assertion with a
// RelayState this service signed makes a session, kept for the browser in a
// short-lived cookie until finishSSO checks the binding.
func (h *Handler) CompleteSAMLSignIn(w http.ResponseWriter, r *http.Request, providerID, samlResponse, relayState string) {
	h.secure(w) // a refusal is the app view's sign-in page, with its stylesheet, not the /sso pages' policy
	s, binding, err := h.Res.CompleteAppSAMLLogin(r.Context(), providerID, samlResponse, relayState)
	if err != nil {
		h.ssoRefused(w, r, "", err)
		return
	}
	exp, err := time.Parse(time.RFC3339Nano, s.ExpiresAt)
	if err != nil {
		h.ssoRefused(w, r, "", err)
		return
	}
	http.SetCookie(w, &http.Cookie{Name: ssoSessionCookie, Value: binding + "." + s.Token + "." + exp.UTC().Format("20060102T150405Z"), Path: h.ssoPath(),
		HttpOnly: true, SameSite: http.SameSiteLaxMode, Secure: h.requestURL(r, "/").Scheme == "https", MaxAge: int(ssoSessionTTL / time.Second)})
	w.Header().Set("Cache-Control", "no-store")
	http.Redirect(w, r, h.ssoPath(), http.StatusSeeOther)
}

// finishSSO gives the waiting session to the browser that started the
// sign-in, as the member cookie the token form sets, and goes to next.
func (h *Handler) finishSSO(w http.ResponseWriter, r *http.Request) {
	for _, name := range []string{ssoStateCookie, ssoSessionCookie} {
		http.SetCookie(w, &http.Cookie{Name: name, Value: "", Path: h.ssoPath(), MaxAge: -1, HttpOnly: true, SameSite: http.SameSiteLaxMode})
	}
	state, err1 := r.Cookie(ssoStateCookie)
	sess, err2 := r.Cookie(ssoSessionCookie)
	var parts []string
	if err2 == nil && len(sess.Value) <= 2*maxParam {
		parts = strings.Split(sess.Value, ".")
	}
	if err1 != nil || err2 != nil || len(state.Value) > 2*maxParam || len(sess.Value) > 2*maxParam {
		h.revokeRefusedSession(r, parts)
		h.signInForm(w, r, "", "The single sign-on did not start in this browser, or took too long: try again.", http.StatusForbidden)
		return
	}
	binding, rawNext, _ := strings.Cut(state.Value, ".")
	nextBytes, _ := base64.RawURLEncoding.DecodeString(rawNext)
	next := h.localNext(string(nextBytes))
	if len(parts) != 3 || len(binding) != 32 || subtle.ConstantTimeCompare([]byte(parts[0]), []byte(binding)) != 1 {
		h.revokeRefusedSession(r, parts)
		h.signInForm(w, r, next, "The single sign-on did not start in this browser: try again.", http.StatusForbidden)
		return
	}
	token := parts[1]
	exp, err := time.Parse("20060102T150405Z", parts[2])
	if _, errTok := h.memberFrom(r, token); err != nil || errTok != nil {
		h.revokeRefusedSession(r, parts)
		h.signInForm(w, r, next, "The single sign-on session is not valid.", http.StatusUnauthorized)
		return
	}
	http.SetCookie(w, &http.Cookie{Name: memberCookie, Value: token, Path: h.appPrefix(), HttpOnly: true, SameSite: http.SameSiteLaxMode,
		Secure: h.requestURL(r, "/").Scheme == "https", Expires: exp})
	w.Header().Set("Cache-Control", "no-store")
	http.Redirect(w, r, next, http.StatusSeeOther)
}

// revokeRefusedSession revokes the session a refused finish carried (the
// session cookie's binding.token.expiry parts): a session issued for an
// assertion posted from another browser (login CSRF) must not outlive the
// refusal. Only SAML sessions are revoked: the cookie names a token
// CompleteSAMLSignIn issued, never a personal API token.
func (h *Handler) revokeRefusedSession(r *http.Request, parts []string) {
	if len(parts) != 3 {
		return
	}
	c, err := h.memberFrom(r, parts[1])
	if err != nil || c.Kind != "session" {
		return
	}
	if _, err := h.Res.Mutation().RevokeCurrentToken(auth.WithCaller(r.Context(), c)); err != nil {
		h.Log.Error("app sign-in through SAML: revoking a refused session", "error", err)
	}
}

// ssoRefused shows the sign-in page with the refusal's reason and status.
func (h *Handler) ssoRefused(w http.ResponseWriter, r *http.Request, next string, err error) {
	if e, ok := apierr.As(err); ok && e.Status < 500 {
		h.signInForm(w, r, next, "Single sign-on refused: "+e.Message, e.Status)
		return
	}
	h.Log.Error("app sign-in through SAML", "error", err)
	h.signInForm(w, r, next, "Single sign-on failed; try again later.", http.StatusInternalServerError)
}
