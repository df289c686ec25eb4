package site

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"time"

	"docsapi/graph"
	"docsapi/storage"
)

// Rendered answers are kept by (host, path, visitor class) and served only
// to a request whose storage counters are the ones they were rendered
// under (storage.VersionOf, as rest/answers.go does): any committed write
// (a merge moves a space to a new revision, a site or share link changes)
// makes them stale at once, in every process sharing the database. Within
// one counter reading a URL names one revision and page, so this is the
// rendering per (revision, page, visitor class). An answer also ends with
// the earliest expiry it holds (signed file links, the visitor's token).

type cacheKey struct {
	host, path, class string
	kind              kind
}

type cachedPage struct {
	version      storage.Version
	until        time.Time
	status       int
	contentType  string
	cacheControl string
	etag         string
	body, gz     []byte
}

type pageCache struct {
	mu sync.RWMutex
	m  map[cacheKey]*cachedPage
}

// maxCached bounds the cache; full, it empties (like the storage caches).
const maxCached = 5_000

func (c *pageCache) get(k cacheKey, v storage.Version, now time.Time) *cachedPage {
	c.mu.RLock()
	p := c.m[k]
	c.mu.RUnlock()
	if p == nil || p.version != v || !now.Before(p.until) {
		return nil
	}
	return p
}

func (c *pageCache) put(k cacheKey, p *cachedPage) {
	c.mu.Lock()
	if c.m == nil || len(c.m) >= maxCached {
		c.m = map[cacheKey]*cachedPage{}
	}
	c.m[k] = p
	c.mu.Unlock()
}

// A visitor class is what decides what a visitor sees, as the resolution
// verified it: "" for the public (no share key, no claims), else a hash of
// the site, the share key the grant carries and the visitor token's
// claims. Cookies are not the class: any number of cookie values (another
// apiToken minted for the same key, or garbage) map to one class, so they
// can neither fill the cache with copies nor go around it.

// classOf is the visitor class of a resolution.
func classOf(l graph.VisitorLookup) string {
	if l.Reader == nil || l.Reader.Site == nil {
		return ""
	}
	g := l.Reader.Site
	if g.ShareKey == nil && len(g.Claims) == 0 {
		return ""
	}
	claims, err := json.Marshal(g.Claims) // map keys sorted: canonical
	if err != nil {
		return "" // never: the claims came from JSON
	}
	h := sha256.New()
	h.Write([]byte(g.SiteID + "\x00"))
	if g.ShareKey != nil {
		h.Write([]byte(*g.ShareKey))
	}
	h.Write([]byte{0})
	h.Write(claims)
	return hex.EncodeToString(h.Sum(nil)[:12])
}

// credentials is a hash of the cookies that may carry a visitor's access
// ("" when the request has none: the public's class, known at once).
func credentials(r *http.Request) string {
	var parts []string
	for _, name := range []string{shareCookie, visitCookie} {
		if c, err := r.Cookie(name); err == nil && c.Value != "" {
			parts = append(parts, name+"="+c.Value)
		}
	}
	if len(parts) == 0 {
		return ""
	}
	sum := sha256.Sum256([]byte(strings.Join(parts, "\x00")))
	return hex.EncodeToString(sum[:16])
}

// classEntry remembers the class that a request's credentials resolved to,
// while the storage counters stand still (a share link revoked, a site's
// visibility changed: resolved again) and at most a minute (a token's
// expiry).
type classEntry struct {
	class   string
	version storage.Version
	until   time.Time
}

// classMemo maps credentials to classes. Only a resolution that granted
// something (a share key or claims) is remembered; full, it empties.
type classMemo struct {
	mu sync.Mutex
	m  map[string]classEntry
}

const maxClasses = 10_000

func (c *classMemo) get(cred string, v storage.Version, now time.Time) (string, bool) {
	c.mu.Lock()
	e, ok := c.m[cred]
	c.mu.Unlock()
	if !ok || e.version != v || !now.Before(e.until) {
		return "", false
	}
	return e.class, true
}

func (c *classMemo) put(cred string, e classEntry) {
	c.mu.Lock()
	if c.m == nil || len(c.m) >= maxClasses {
		c.m = map[string]classEntry{}
	}
	c.m[cred] = e
	c.mu.Unlock()
}

// knownClass is r's visitor class when it is known before resolving: the
// public's without credentials, else the class its credentials resolved to.
func (h *Handler) knownClass(r *http.Request) (string, bool) {
	cred := credentials(r)
	if cred == "" {
		return "", true
	}
	v, counted := storage.VersionOf(r.Context())
	if !counted {
		return "", false
	}
	return h.classes.get(cred, v, h.now())
}

// learnClass remembers the class r's credentials resolved to (a grant's
// only: credentials that granted nothing are resolved each time, their
// answers served from the public's cache).
func (h *Handler) learnClass(r *http.Request, class string) {
	cred := credentials(r)
	if cred == "" || class == "" {
		return
	}
	v, counted := storage.VersionOf(r.Context())
	if !counted {
		return
	}
	h.classes.put(cred, classEntry{class: class, version: v, until: h.now().Add(time.Minute)})
}

func keyOf(r *http.Request, t target, class string) (cacheKey, bool) {
	if r.URL.RawQuery != "" || t.kind == kindSearch {
		return cacheKey{}, false
	}
	return cacheKey{host: strings.ToLower(r.Host), path: r.URL.Path, class: class, kind: t.kind}, true
}

// serveCached answers r from the cache when it can, for the visitor class.
func (h *Handler) serveCached(w http.ResponseWriter, r *http.Request, t target, class string) bool {
	k, ok := keyOf(r, t, class)
	if !ok {
		return false
	}
	v, counted := storage.VersionOf(r.Context())
	if !counted {
		return false
	}
	p := h.cache.get(k, v, h.now())
	if p == nil {
		return false
	}
	writeAnswer(w, r, p)
	return true
}

// store keeps an answer rendered for r when the request still has the
// counters it started with (it wrote nothing meanwhile).
func (h *Handler) store(r *http.Request, t target, class string, started storage.Version, counted bool, p *cachedPage) {
	k, ok := keyOf(r, t, class)
	if !ok || !counted {
		return
	}
	if now, still := storage.VersionOf(r.Context()); !still || now != started {
		return
	}
	p.version = started
	h.cache.put(k, p)
}

// writeAnswer writes a rendered answer with its validators.
func writeAnswer(w http.ResponseWriter, r *http.Request, p *cachedPage) {
	hd := w.Header()
	hd.Set("Content-Type", p.contentType)
	hd.Set("Cache-Control", p.cacheControl)
	hd.Set("Vary", "Accept-Encoding, Cookie")
	hd.Set("ETag", p.etag)
	if p.status == http.StatusOK && strings.Contains(r.Header.Get("If-None-Match"), p.etag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	if p.gz != nil && strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
		hd.Set("Content-Encoding", "gzip")
		w.WriteHeader(p.status)
		if r.Method != http.MethodHead {
			w.Write(p.gz)
		}
		return
	}
	w.WriteHeader(p.status)
	if r.Method != http.MethodHead {
		w.Write(p.body)
	}
}

// answerOf makes a rendered body an answer: its ETag, its gzipped form
// (rendered once, served many times) and its cache policy: public sites
// may be kept by shared caches (revalidated each time, as a merge changes
// them), what a key or token opened only by the visitor's browser.
func answerOf(status int, contentType string, body []byte, private bool, until time.Time) *cachedPage {
	sum := sha256.Sum256(body)
	cc := "public, max-age=0, must-revalidate"
	if private {
		cc = "private, no-cache"
	}
	if status != http.StatusOK {
		cc = "no-store"
	}
	p := &cachedPage{status: status, contentType: contentType, cacheControl: cc, etag: `"` + hex.EncodeToString(sum[:12]) + `"`, body: body, until: until}
	if len(body) > 512 {
		p.gz = gzipped(body)
	}
	return p
}
