// Package site is the reader site: docsapi's third transport beside the
// REST API and GraphQL. It serves every published site to people, as HTML
// rendered on the server, at the site's published URL (the service's
// /sites/<organization>/<basename>, or the site's hostname when a reverse
// proxy sends its Host). Every decision about what a visitor may read is
// the resolvers': a URL is resolved by graph.Resolver.ResolveForVisitor
// (the reader API's resolution) and read as the caller of the apiToken it
// mints; this package only lays the answers out.
package site

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"docsapi/apierr"
	"docsapi/auth"
	"docsapi/graph"
	"docsapi/graph/model"
)

// Cookies of a site's visitors, scoped to the site's path.
const (
	// shareCookie keeps the share key a visitor opened the site with.
	shareCookie = "docsapi_share"
	// visitCookie keeps the apiToken of a visitor whose access needed more
	// than a key: a share link's password or a visitor token. It names the
	// site, the key and the claims, and ends with the token.
	visitCookie = "docsapi_visit"
	// memberCookie keeps a signed-in member's session (signin.go).
	memberCookie = "docsapi_member"
)

// Bounds of what a request may ask for (fuzzed in parse_fuzz_test.go).
const (
	maxPath     = 2048
	maxQuery    = 512 // search queries: the resolvers' own limit
	maxParam    = 4096
	maxPassword = 72
)

// Handler serves the reader site.
type Handler struct {
	Res *graph.Resolver
	Log *slog.Logger
	// NotFound answers requests on the service's own host that name no
	// site (the API's JSON 404).
	NotFound http.Handler
	cache    pageCache
	contents contents
	classes  classMemo
	outputs  blockOutputs // integration blocks' outputs (integrations.go)
	csp      string
}

// New returns the reader site over res.
func New(res *graph.Resolver, log *slog.Logger, notFound http.Handler) *Handler {
	if log == nil {
		log = slog.Default()
	}
	if notFound == nil {
		notFound = http.NotFoundHandler()
	}
	h := &Handler{Res: res, Log: log, NotFound: notFound}
	if u, err := url.Parse(res.Config.PublicURL); err == nil && u.Host != "" {
		h.csp = contentSecurityPolicy(u.Scheme + "://" + u.Host)
	} else {
		h.csp = contentSecurityPolicy("")
	}
	return h
}

// secure sets the headers of every reader-site answer.
func (h *Handler) secure(w http.ResponseWriter) {
	w.Header().Set("Content-Security-Policy", h.csp)
	w.Header().Set("Referrer-Policy", "strict-origin-when-cross-origin")
}

func (h *Handler) now() time.Time {
	if h.Res.Now != nil {
		return h.Res.Now()
	}
	return time.Now()
}

// ServeHTTP answers a reader's request.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if h.isApp(r) {
		h.secure(w)
		h.app(w, r)
		return
	}
	t, ok := parseTarget(r.URL.Path)
	if !ok || !h.mayBeSite(r) {
		h.NotFound.ServeHTTP(w, r)
		return
	}
	h.secure(w)
	switch {
	case t.kind == kindAsset:
		serveAsset(w, r, t.asset)
		return
	case r.Method == http.MethodPost && t.kind == kindPage:
		h.unlock(w, r, t)
		return
	case r.Method != http.MethodGet && r.Method != http.MethodHead:
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	if class, known := h.knownClass(r); known && h.serveCached(w, r, t, class) {
		return
	}
	q := r.URL.Query()
	v, err := parseVisitorQuery(q)
	if err != nil {
		h.errorPage(w, r, t, apierr.Invalid("query", "%s", err.Error()))
		return
	}
	rc, err := h.resolve(r, t.path, v)
	if err != nil {
		h.refusal(w, r, t, v, err)
		return
	}
	if rc.lookup.Redirect != nil {
		http.Redirect(w, r, *rc.lookup.Redirect, http.StatusMovedPermanently)
		return
	}
	if v.share != "" || v.jwt != "" {
		// The key or token came once in the URL: kept in a cookie, and the
		// reader goes on at the URL without it (never a token left in a URL).
		h.keep(w, r, rc, v)
		http.Redirect(w, r, cleanURL(r.URL), http.StatusSeeOther)
		return
	}
	// The class the resolution verified: answers are kept and found by it,
	// whatever cookies carried the access.
	rc.class = classOf(rc.lookup)
	h.learnClass(r, rc.class)
	if h.serveCached(w, r, t, rc.class) {
		return
	}
	h.serveTarget(w, r, t, rc)
}

// mayBeSite tells whether r may name a site: on the service's own host
// only paths under /sites/ (an organization's subdomain or a site's
// hostname: any path).
func (h *Handler) mayBeSite(r *http.Request) bool {
	pub, err := url.Parse(h.Res.Config.PublicURL)
	if err != nil || pub.Host == "" || !strings.EqualFold(hostOnly(r.Host), pub.Hostname()) {
		return true
	}
	return strings.HasPrefix(r.URL.Path, strings.TrimRight(pub.Path, "/")+"/sites/")
}

func hostOnly(hostport string) string {
	if i := strings.LastIndexByte(hostport, ':'); i >= 0 && !strings.Contains(hostport[i:], "]") {
		return hostport[:i]
	}
	return hostport
}

// visitorQuery is what a reader's URL may carry for the resolution: a
// share key and a visitor token, each once (then kept in a cookie).
type visitorQuery struct {
	share, jwt string
}

var errParam = errors.New("a parameter is too long")

// parseVisitorQuery reads share and jwt_token, bounded in size.
func parseVisitorQuery(q url.Values) (visitorQuery, error) {
	v := visitorQuery{share: q.Get("share"), jwt: q.Get("jwt_token")}
	if len(v.share) > maxParam || len(v.jwt) > maxParam {
		return visitorQuery{}, errParam
	}
	return v, nil
}

// cleanURL is u's path and query without the parameters that were kept in
// cookies.
func cleanURL(u *url.URL) string {
	q := u.Query()
	q.Del("share")
	q.Del("jwt_token")
	out := u.EscapedPath()
	if len(q) > 0 {
		out += "?" + q.Encode()
	}
	return out
}

// resolved is a URL resolved for a visitor, with the context its reads run
// in (the caller of the lookup's apiToken).
type resolved struct {
	lookup graph.VisitorLookup
	ctx    context.Context
	// private: the visitor's access came from a key or token (private
	// cache, kept briefly: see load).
	private bool
	// class is the visitor class the answers are cached under (cache.go).
	class string
}

// requestURL is the absolute URL a request names (path p): the scheme is
// the service's unless the request came over TLS or a proxy says https.
func (h *Handler) requestURL(r *http.Request, p string) *url.URL {
	scheme := "http"
	if r.TLS != nil || strings.EqualFold(r.Header.Get("X-Forwarded-Proto"), "https") {
		scheme = "https"
	}
	return &url.URL{Scheme: scheme, Host: r.Host, Path: p}
}

// resolve resolves path p for the visitor: their cookies (a site token,
// else a share key), or what the URL carries (v), or anonymous.
func (h *Handler) resolve(r *http.Request, p string, v visitorQuery) (resolved, error) {
	ctx := r.Context()
	u := h.requestURL(r, p)
	share := v.share
	var tokenCaller *auth.Caller
	if v.share == "" && v.jwt == "" {
		if c, err := r.Cookie(visitCookie); err == nil {
			if tc, err := h.Res.SiteTokenCaller(ctx, c.Value); err == nil {
				tokenCaller = &tc
			}
		}
		if c, err := r.Cookie(shareCookie); err == nil && len(c.Value) <= maxParam {
			share = c.Value
		}
	}
	if share != "" {
		u.RawQuery = "share=" + url.QueryEscape(share)
	}
	var visitor *model.SiteVisitorPayloadInput
	if v.jwt != "" {
		visitor = &model.SiteVisitorPayloadInput{JwtToken: &v.jwt}
	}
	if tokenCaller != nil {
		l, err := h.Res.ResolveForVisitor(auth.WithCaller(ctx, *tokenCaller), u, visitor)
		if err == nil {
			return h.resolvedFrom(ctx, l, true), nil
		}
		// A token of another site, or one whose key was revoked: read as
		// the visitor would without it.
	}
	l, err := h.Res.ResolveForVisitor(ctx, u, visitor)
	if err != nil {
		return resolved{}, err
	}
	return h.resolvedFrom(ctx, l, share != "" || visitor != nil), nil
}

func (h *Handler) resolvedFrom(ctx context.Context, l graph.VisitorLookup, private bool) resolved {
	rc := resolved{lookup: l, ctx: ctx, private: private}
	if l.Reader != nil {
		rc.ctx = auth.WithCaller(ctx, *l.Reader)
	}
	return rc
}

// keep sets the cookies that stand for what the URL carried: the share
// key, and the apiToken when a visitor token opened the site.
func (h *Handler) keep(w http.ResponseWriter, r *http.Request, rc resolved, v visitorQuery) {
	base := deref(rc.lookup.SiteBasePath)
	if v.share != "" {
		h.setCookie(w, r, base, shareCookie, v.share, h.now().Add(30*24*time.Hour))
	}
	if v.jwt != "" && rc.lookup.APIToken != nil {
		h.setCookie(w, r, base, visitCookie, *rc.lookup.APIToken, h.now().Add(h.tokenTTL()))
	}
}

func (h *Handler) tokenTTL() time.Duration {
	if h.Res.Config.SiteTokenTTL > 0 {
		return h.Res.Config.SiteTokenTTL
	}
	return graph.DefaultSiteTokenTTL
}

// setCookie sets an HttpOnly, SameSite=Lax cookie on the site's path
// (Secure when the reader came over https).
func (h *Handler) setCookie(w http.ResponseWriter, r *http.Request, path, name, value string, expires time.Time) {
	if path == "" {
		path = "/"
	}
	http.SetCookie(w, &http.Cookie{Name: name, Value: value, Path: path, Expires: expires, HttpOnly: true,
		SameSite: http.SameSiteLaxMode, Secure: h.requestURL(r, "/").Scheme == "https"})
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// refusal answers a resolution's error: the password form for a protected
// share link, else an error page.
func (h *Handler) refusal(w http.ResponseWriter, r *http.Request, t target, v visitorQuery, err error) {
	if e, ok := apierr.As(err); ok && strings.HasPrefix(e.Challenge, "Share-Link-Password") && t.kind == kindPage {
		share := v.share
		if share == "" {
			if c, err := r.Cookie(shareCookie); err == nil {
				share = c.Value
			}
		}
		msg := ""
		if r.Method == http.MethodPost {
			msg = "That password is not right."
		}
		h.passwordForm(w, r, t, share, msg, http.StatusUnauthorized)
		return
	}
	h.errorPage(w, r, t, err)
}
