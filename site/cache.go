package site

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"strings"
	"sync"
	"time"

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

// requestClass is the visitor class of a request, known before any
// resolution: a hash of the cookies that decide what the visitor sees (""
// for the public). Visitors who entered with the same key share it.
func requestClass(r *http.Request) string {
	var parts []string
	for _, name := range []string{shareCookie, visitCookie} {
		if c, err := r.Cookie(name); err == nil {
			parts = append(parts, name+"="+c.Value)
		}
	}
	if len(parts) == 0 {
		return ""
	}
	sum := sha256.Sum256([]byte(strings.Join(parts, "\x00")))
	return hex.EncodeToString(sum[:12])
}

func keyOf(r *http.Request, t target) (cacheKey, bool) {
	if r.URL.RawQuery != "" || t.kind == kindSearch {
		return cacheKey{}, false
	}
	return cacheKey{host: strings.ToLower(r.Host), path: r.URL.Path, class: requestClass(r), kind: t.kind}, true
}

// serveCached answers r from the cache when it can.
func (h *Handler) serveCached(w http.ResponseWriter, r *http.Request, t target) bool {
	k, ok := keyOf(r, t)
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
func (h *Handler) store(r *http.Request, t target, started storage.Version, counted bool, p *cachedPage) {
	k, ok := keyOf(r, t)
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
