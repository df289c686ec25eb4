// Package playground serves docsapi's GraphQL playground: GraphiQL, React
// and the page around them, embedded in the binary so that the page works
// without internet access and references no other host. assets/vendor/ is
// built by `make playground` (build.mjs, from the exact versions in
// package.json) and committed, so `go build` alone still works.
package playground

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"embed"
	"encoding/base64"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strings"
	"sync"
)

//go:embed assets
var embedded embed.FS

// AssetsPath is where the page loads its files from.
const AssetsPath = "/graphql/assets/"

// Page serves the playground's HTML page.
func Page() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f, err := files.get("index.html")
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		setSecurityHeaders(w.Header())
		w.Header().Set("Cache-Control", "no-cache")
		f.serve(w, r)
	})
}

// Assets serves the page's scripts, styles and licences under AssetsPath.
func Assets() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := strings.TrimPrefix(r.URL.Path, AssetsPath)
		f, err := files.get(name)
		if err != nil || name == "index.html" {
			http.NotFound(w, r)
			return
		}
		setSecurityHeaders(w.Header())
		// Revalidated through the ETag: an upgrade of the binary changes them.
		w.Header().Set("Cache-Control", "no-cache")
		f.serve(w, r)
	})
}

// asset is one embedded file, with its gzip form made on first use.
type asset struct {
	body, gzipped []byte
	contentType   string
	etag          string
}

func (a *asset) serve(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Type", a.contentType)
	h.Set("ETag", a.etag)
	h.Add("Vary", "Accept-Encoding")
	if inm := r.Header.Get("If-None-Match"); inm != "" && strings.Contains(inm, a.etag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	body := a.body
	if a.gzipped != nil && strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
		h.Set("Content-Encoding", "gzip")
		body = a.gzipped
	}
	if r.Method == http.MethodHead {
		return
	}
	w.Write(body)
}

// assetCache reads and compresses each embedded file once.
type assetCache struct {
	mu sync.Mutex
	m  map[string]*asset
}

var files assetCache

func (c *assetCache) get(name string) (*asset, error) {
	if name == "" || strings.Contains(name, "..") {
		return nil, fs.ErrNotExist
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if a, ok := c.m[name]; ok {
		return a, nil
	}
	body, err := embedded.ReadFile(path.Join("assets", name))
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(body)
	a := &asset{body: body, etag: `"` + base64.RawURLEncoding.EncodeToString(sum[:12]) + `"`,
		contentType: mime.TypeByExtension(path.Ext(name))}
	if a.contentType == "" {
		a.contentType = "application/octet-stream"
	}
	if len(body) > 1024 {
		var buf bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
		zw.Write(body)
		zw.Close()
		a.gzipped = buf.Bytes()
	}
	if c.m == nil {
		c.m = map[string]*asset{}
	}
	c.m[name] = a
	return a, nil
}
