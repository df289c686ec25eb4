package site

import "strings"

// What a request path asks of a site.
type kind int

const (
	kindPage     kind = iota // a page (or the site, section or variant root)
	kindMarkdown             // a page's Markdown: its URL + ".md"
	kindRobots               // <site>/robots.txt
	kindSitemap              // <site>/sitemap.xml
	kindLLMs                 // <site>/llms.txt
	kindLLMsFull             // <site>/llms-full.txt
	kindSearch               // <site>/_search?q=
	kindAsset                // <anything>/_assets/<hashed name>
)

// target is a parsed request path: what it asks for and the path whose
// resolution answers it (the page's, or the site root's for site files).
type target struct {
	kind  kind
	path  string
	asset string
}

// siteFiles are the files every site answers at its root.
var siteFiles = map[string]kind{
	"robots.txt": kindRobots, "sitemap.xml": kindSitemap, "llms.txt": kindLLMs,
	"llms-full.txt": kindLLMsFull, "_search": kindSearch,
}

// parseTarget reads a request path (already unescaped). ok is false for
// paths no site answers (too long, or with NUL or dot segments).
func parseTarget(p string) (target, bool) {
	if len(p) > maxPath || !strings.HasPrefix(p, "/") || strings.ContainsRune(p, 0) {
		return target{}, false
	}
	segs := strings.Split(p, "/")
	for _, s := range segs {
		if s == "." || s == ".." {
			return target{}, false
		}
	}
	last := segs[len(segs)-1]
	dir := p[:len(p)-len(last)]
	if len(segs) >= 2 && segs[len(segs)-2] == assetsDir {
		return target{kind: kindAsset, asset: last, path: dir}, true
	}
	if k, ok := siteFiles[last]; ok {
		return target{kind: k, path: dir}, true
	}
	if name, ok := strings.CutSuffix(last, ".md"); ok && name != "" {
		return target{kind: kindMarkdown, path: dir + name}, true
	}
	return target{kind: kindPage, path: p}, true
}
