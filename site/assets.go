package site

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"embed"
	"encoding/base64"
	"encoding/hex"
	"html/template"
	"net/http"
	"strings"

	"docsapi/docrender"
)

//go:embed assets/site.css assets/site.js templates/page.html
var files embed.FS

// asset is an embedded file served under a name carrying its hash, so that
// it may be cached for ever: a new build names new files.
type asset struct {
	name        string
	contentType string
	body, gz    []byte
}

// assetsDir is the path segment, under a site's root, of its assets.
const assetsDir = "_assets"

var (
	assets   = map[string]*asset{}
	cssName  string
	jsName   string
	pageTmpl = template.Must(template.ParseFS(files, "templates/page.html"))
)

// themeScript sets the reader's chosen theme before the page paints (no
// flash of the other theme): inline, allowed by its hash in the CSP.
const themeScript = `try{var t=localStorage.getItem("theme");if(t==="light"||t==="dark")document.documentElement.dataset.theme=t}catch(e){}`

// contentSecurityPolicy of every page: scripts only from the site's own
// files and the theme script; styles of its own (and the inline accent
// colour); images of the service (the revision's files) and https (a
// site's logo); no framing by other sites, no plugins, forms to itself.
func contentSecurityPolicy(publicOrigin string) string {
	sum := sha256.Sum256([]byte(themeScript))
	img := "'self' data: https:"
	if publicOrigin != "" {
		img += " " + publicOrigin
	}
	font := "'self'" // custom fonts, served under the service's public URL
	if publicOrigin != "" {
		font += " " + publicOrigin
	}
	return "default-src 'self'; script-src 'self' 'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'; style-src 'self' 'unsafe-inline'; img-src " + img + "; font-src " + font +
		"; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'self'"
}

func init() {
	css, _ := files.ReadFile("assets/site.css")
	css = append(css, []byte(docrender.CodeCSS())...)
	js, _ := files.ReadFile("assets/site.js")
	cssName = addAsset("site", ".css", "text/css; charset=utf-8", css)
	jsName = addAsset("site", ".js", "text/javascript; charset=utf-8", js)
}

func addAsset(base, ext, contentType string, body []byte) string {
	sum := sha256.Sum256(body)
	name := base + "." + hex.EncodeToString(sum[:6]) + ext
	assets[name] = &asset{name: name, contentType: contentType, body: body, gz: gzipped(body)}
	return name
}

func gzipped(b []byte) []byte {
	var buf bytes.Buffer
	z, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	z.Write(b)
	z.Close()
	return buf.Bytes()
}

// serveAsset answers an embedded asset; its name holds its hash, so it is
// immutable.
func serveAsset(w http.ResponseWriter, r *http.Request, name string) {
	a := assets[name]
	if a == nil {
		http.NotFound(w, r)
		return
	}
	h := w.Header()
	h.Set("Content-Type", a.contentType)
	h.Set("Cache-Control", "public, max-age=31536000, immutable")
	h.Set("Vary", "Accept-Encoding")
	writeBody(w, r, a.body, a.gz)
}

// writeBody writes body, gzipped when the client takes it.
func writeBody(w http.ResponseWriter, r *http.Request, body, gz []byte) {
	if gz != nil && strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
		w.Header().Set("Content-Encoding", "gzip")
		body = gz
	}
	if r.Method == http.MethodHead {
		return
	}
	w.Write(body)
}
