package site

import (
	"encoding/json"
	"net/http"
	"strings"

	"docsapi/apierr"
	"docsapi/graph"
)

// searchHit is a matching page with its matching sections, at their
// reader URLs.
type searchHit struct {
	Title    string      `json:"title"`
	Href     string      `json:"href"`
	Where    string      `json:"where,omitempty"`
	Sections []searchHit `json:"sections,omitempty"`
	Body     string      `json:"body,omitempty"`
}

// searchLimit is the pages asked of each site space.
const searchLimit = 10

// search answers <site>/_search?q=: the site spaces the visitor sees,
// each searched by the API's searchSpace (its ranking), as a results page
// or, for the page's script, JSON (one entry per page and section).
func (h *Handler) search(w http.ResponseWriter, r *http.Request, d *siteData) {
	q := strings.TrimSpace(r.URL.Query().Get("q"))
	if len(q) > maxQuery {
		q = q[:maxQuery]
	}
	var hits []searchHit
	if q != "" {
		spaces, err := h.spaces(d, false)
		if err != nil {
			h.errorPage(w, r, target{kind: kindSearch}, err)
			return
		}
		limit := searchLimit
		for _, s := range spaces {
			res, err := h.Res.Query().SearchSpace(d.rc.ctx, s.space, q, nil, &limit)
			if e, ok := apierr.As(err); ok && e.Status == http.StatusNotFound {
				continue
			}
			if err != nil {
				h.errorPage(w, r, target{kind: kindSearch}, err)
				return
			}
			for _, it := range res.Items {
				hit := searchHit{Title: it.Title, Href: s.base + escapePath(it.Path), Where: s.title}
				for _, sec := range it.Sections {
					if sec.ID == "" {
						continue
					}
					hit.Sections = append(hit.Sections, searchHit{Title: sec.Title, Href: hit.Href + "#" + sec.ID, Body: sec.Body})
				}
				hits = append(hits, hit)
			}
		}
	}
	w.Header().Set("Cache-Control", "private, no-store")
	w.Header().Set("Vary", "Accept, Cookie")
	if strings.Contains(r.Header.Get("Accept"), "application/json") {
		flat := []searchHit{}
		for _, hit := range hits {
			flat = append(flat, searchHit{Title: hit.Title, Href: hit.Href, Where: hit.Where})
			for _, s := range hit.Sections {
				flat = append(flat, searchHit{Title: hit.Title + " › " + s.Title, Href: s.Href, Where: hit.Where})
			}
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(flat)
		return
	}
	v := h.baseView(d)
	v.Title, v.Query, v.NoIndex, v.Results = "Search", q, true, hits
	switch {
	case q == "":
		v.Body = "<p>Type words to look for in the search box.</p>"
	case len(hits) == 0:
		v.Body = "<p>No page matches your search.</p>"
	}
	body, err := execute(v)
	if err != nil {
		h.errorPage(w, r, target{kind: kindSearch}, err)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Write(body)
}

// passwordForm answers the form of a password-protected share link.
func (h *Handler) passwordForm(w http.ResponseWriter, r *http.Request, t target, share, msg string, status int) {
	base := siteRootGuess(r.URL.Path)
	v := &view{Title: "Password needed", SiteTitle: "docsapi", Home: base, Assets: base + assetsDir + "/", CSS: cssName, JS: jsName, NoIndex: true,
		Body: "<p>This content is protected by a password. Enter the password you were given.</p>",
		Form: &passwordForm{Action: r.URL.Path, Share: share, Error: msg}}
	body, err := execute(v)
	if err != nil {
		h.errorPage(w, r, t, err)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	w.Write(body)
}

// unlock takes the password form: the share link's password goes to the
// resolution as the API's header would carry it, and the apiToken it mints
// (which names the unlocked key) becomes the visitor's cookie.
func (h *Handler) unlock(w http.ResponseWriter, r *http.Request, t target) {
	r.Body = http.MaxBytesReader(w, r.Body, 16<<10)
	if err := r.ParseForm(); err != nil {
		h.errorPage(w, r, t, apierr.Invalid("form", "unreadable"))
		return
	}
	share, password := r.PostForm.Get("share"), r.PostForm.Get("password")
	if share == "" || len(share) > maxParam || len(password) > maxPassword {
		h.passwordForm(w, r, t, share, "Enter the password.", http.StatusUnauthorized)
		return
	}
	r = r.WithContext(graph.WithShareLinkPassword(r.Context(), password))
	rc, err := h.resolve(r, t.path, visitorQuery{share: share})
	if err != nil {
		if e, ok := apierr.As(err); ok && e.Status == http.StatusTooManyRequests {
			h.passwordForm(w, r, t, share, "Too many attempts: wait a minute, then try again.", http.StatusTooManyRequests)
			return
		}
		h.refusal(w, r, t, visitorQuery{share: share}, err)
		return
	}
	base := deref(rc.lookup.SiteBasePath)
	h.setCookie(w, r, base, shareCookie, share, h.now().Add(30*24*60*60*1e9))
	if rc.lookup.APIToken != nil {
		h.setCookie(w, r, base, visitCookie, *rc.lookup.APIToken, h.now().Add(h.tokenTTL()))
	}
	http.Redirect(w, r, r.URL.Path, http.StatusSeeOther)
}
