// Package importer converts outside content into pages and files: one
// Markdown file, a zip of Markdown files and images, one HTML page, or a
// website crawled from a start URL. It fetches through a Fetcher (the
// guarded outbound client) and knows nothing of storage.
package importer

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"mime"
	"net/url"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"

	"docsapi/markdown"
)

// Page is an imported page; Children nest under it. Kind is "" for a
// document, "group" for a SUMMARY group, "link" for a SUMMARY entry to
// another page's anchor (Target, Anchor) or to a URL.
type Page struct {
	Title    string
	Slug     string
	Markdown string
	Children []*Page

	Kind        string
	Description string
	Icon        string
	Hidden      bool
	Layout      map[string]any
	Target      *Page  // link pages: the page linked to
	Anchor      string // link pages: the anchor of Target linked to
	URL         string // link pages to outside content
	// Path is the file the page was read from (relative to the
	// repository's root) in repository imports; "" otherwise.
	Path string

	targetPath string // link pages: the file Target is read from
}

// File is an imported file (an image).
type File struct {
	Name        string
	ContentType string
	Data        []byte
}

// Result is what one import produced: the page tree, the files, and how
// many resources were looked at (Total) and turned into pages or files.
type Result struct {
	Pages    []*Page
	Files    []*File
	Reusable []*Reusable
	Total    int
	Imported int
}

// Reusable is a reusable content read from GitBook's .gitbook/includes/:
// pages include it with {% include ".gitbook/includes/<Name>.md" %} until
// AssignReusableIDs names it, then with {% include "reusable/<ID>" %}.
// Whoever stores a Result calls AssignReusableIDs first.
type Reusable struct {
	ID       string
	Name     string // the file's name without .md
	Title    string
	Markdown string
}

// includePath is an include's target (from the repository's root) until
// the reusable content has an id.
func includePath(name string) string { return ".gitbook/includes/" + name + ".md" }

// AssignReusableIDs names each reusable content (newID: the store's ids)
// and points the pages' includes of it at that id.
func (r *Result) AssignReusableIDs(newID func() string) {
	if len(r.Reusable) == 0 {
		return
	}
	repl := map[string]string{}
	for _, rc := range r.Reusable {
		rc.ID = newID()
		repl[`include "`+includePath(rc.Name)+`"`] = `include "` + markdown.IncludeReusablePrefix + rc.ID + `"`
	}
	var walk func([]*Page)
	walk = func(ps []*Page) {
		for _, p := range ps {
			p.Markdown = replaceAll(p.Markdown, repl)
			walk(p.Children)
		}
	}
	walk(r.Pages)
}

// Resource is a fetched URL.
type Resource struct {
	URL         string // after redirects
	ContentType string
	Body        []byte
}

// Fetcher gets a URL on a user's behalf; implementations refuse addresses
// the deployment does not allow and bound size, time and redirects.
type Fetcher interface {
	Fetch(ctx context.Context, rawURL string) (*Resource, error)
}

// Sources are the import sources this service converts.
var Sources = []string{"markdown", "zip", "html", "website"}

// ErrUnsupported is returned for a source outside Sources.
var ErrUnsupported = errors.New("unsupported import source")

// Limits bound a website crawl and the images an import fetches. Zero
// fields take the deployment's limits (a Fetcher with an ImportLimits
// method, as Guarded has), then DefaultLimits.
type Limits struct {
	MaxPages  int           // pages converted
	MaxImages int           // images imported
	Timeout   time.Duration // the whole crawl
	// A zip archive or a repository: its files (folders of a zip
	// included) and the bytes they hold unpacked.
	MaxFiles int
	MaxBytes int64
}

// DefaultLimits apply where neither the caller nor the deployment sets
// one. A documentation repository of 600 assets and 130 MiB fits them.
var DefaultLimits = Limits{MaxPages: 50, MaxImages: 200, Timeout: 60 * time.Second, MaxFiles: 5000, MaxBytes: 512 << 20}

// or fills the zero fields of l from d.
func (l Limits) or(d Limits) Limits {
	if l.MaxPages <= 0 {
		l.MaxPages = d.MaxPages
	}
	if l.MaxImages <= 0 {
		l.MaxImages = d.MaxImages
	}
	if l.Timeout <= 0 {
		l.Timeout = d.Timeout
	}
	if l.MaxFiles <= 0 {
		l.MaxFiles = d.MaxFiles
	}
	if l.MaxBytes <= 0 {
		l.MaxBytes = d.MaxBytes
	}
	return l
}

// limitsOf completes lim with the deployment's limits carried by f.
func limitsOf(f Fetcher, lim Limits) Limits {
	if d, ok := f.(interface{ ImportLimits() Limits }); ok {
		lim = lim.or(d.ImportLimits())
	}
	return lim.or(DefaultLimits)
}

// Import fetches rawURL and converts it according to source.
func Import(ctx context.Context, f Fetcher, source, rawURL string, lim Limits) (*Result, error) {
	lim = limitsOf(f, lim)
	switch source {
	case "website":
		return Website(ctx, f, rawURL, lim)
	case "markdown", "zip", "html":
	default:
		return nil, ErrUnsupported
	}
	res, err := f.Fetch(ctx, rawURL)
	if err != nil {
		return nil, err
	}
	var out *Result
	switch source {
	case "markdown":
		if len(res.Body) > markdown.MaxBody { // before any copy of a body this large
			return nil, badContent("the Markdown file is %d bytes; a page holds at most %d", len(res.Body), markdown.MaxBody)
		}
		if err := checkBody("the Markdown file", string(res.Body)); err != nil {
			return nil, err
		}
		out = Markdown(res.Body, nameOf(res.URL))
	case "zip":
		out, err = ZipWith(ctx, res.Body, lim)
	default:
		out, err = HTML(ctx, f, res, lim)
	}
	if err != nil {
		return nil, err
	}
	// The client may have left or the deadline passed while converting:
	// nothing is written then.
	return out, ctx.Err()
}

// checkBody refuses a page body the API would refuse (over the size or
// markdown's bounds), before anything parses it; what names the body.
func checkBody(what, src string) error {
	if len(src) > markdown.MaxBody {
		return badContent("%s is %d bytes; a page holds at most %d", what, len(src), markdown.MaxBody)
	}
	if err := markdown.Check(src); err != nil {
		return badContent("%s %s", what, err)
	}
	return nil
}

// replaceAll makes the replacements (old to new) in one pass over src,
// the longest match first: a strings.ReplaceAll per link costs the whole
// text per link.
func replaceAll(src string, repl map[string]string) string {
	if len(repl) == 0 {
		return src
	}
	olds := make([]string, 0, len(repl))
	for old := range repl {
		olds = append(olds, old)
	}
	slices.SortFunc(olds, func(a, b string) int { return cmp.Or(len(b)-len(a), strings.Compare(a, b)) })
	pairs := make([]string, 0, 2*len(olds))
	for _, old := range olds {
		pairs = append(pairs, old, repl[old])
	}
	return strings.NewReplacer(pairs...).Replace(src)
}

// Markdown makes one page of a Markdown file; its first level-1 heading
// (else fallback) is the title.
func Markdown(body []byte, fallback string) *Result {
	p := markdownPage(string(body), fallback)
	return &Result{Pages: []*Page{p}, Total: 1, Imported: 1}
}

func markdownPage(src, fallback string) *Page {
	title := markdown.Title(src)
	if title == "" {
		title = fallback
	} else {
		src = markdown.StripTitle(src, title)
	}
	if title == "" {
		title = "Untitled"
	}
	return &Page{Title: title, Slug: slugOr(title, "page"), Markdown: src}
}

// nameOf is a title guessed from a URL's last path segment.
func nameOf(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil {
		return ""
	}
	base := strings.TrimSuffix(path.Base(u.Path), path.Ext(u.Path))
	if base == "/" || base == "." {
		return u.Host
	}
	return strings.ReplaceAll(strings.ReplaceAll(base, "-", " "), "_", " ")
}

func slugOr(s, fallback string) string {
	if v := markdown.Slugify(s); v != "" {
		return v
	}
	return fallback
}

// contentTypeOf guesses a file's content type from its name.
func contentTypeOf(name, given string) string {
	if given != "" && given != "application/octet-stream" {
		mt, _, err := mime.ParseMediaType(given)
		if err == nil {
			return mt
		}
	}
	if t := mime.TypeByExtension(strings.ToLower(path.Ext(name))); t != "" {
		mt, _, _ := mime.ParseMediaType(t)
		return mt
	}
	return "application/octet-stream"
}

func isImageName(name string) bool {
	switch strings.ToLower(path.Ext(name)) {
	case ".png", ".jpg", ".jpeg", ".gif", ".svg", ".webp":
		return true
	}
	return false
}

// names hands out unique file names.
type names map[string]bool

func (n names) unique(name string) string {
	name = path.Base(name)
	if name == "" || name == "." || name == "/" {
		name = "file"
	}
	ext := path.Ext(name)
	stem := strings.TrimSuffix(name, ext)
	out := name
	for i := 2; n[out]; i++ {
		out = stem + "-" + strconv.Itoa(i) + ext
	}
	n[out] = true
	return out
}

// dedupeSlugs makes sibling slugs unique the way the page tree does, so
// that paths computed here are the paths the pages get.
func dedupeSlugs(pages []*Page) {
	used := map[string]bool{}
	for _, p := range pages {
		if p.Kind == "link" {
			continue // link pages have no path
		}
		s := p.Slug
		for i := 2; used[s]; i++ {
			s = p.Slug + "-" + strconv.Itoa(i)
		}
		p.Slug = s
		used[s] = true
		dedupeSlugs(p.Children)
	}
}

// Error wraps what went wrong with the fetched content (not the fetch).
type Error struct{ Msg string }

func (e *Error) Error() string { return e.Msg }

func badContent(format string, args ...any) error { return &Error{Msg: fmt.Sprintf(format, args...)} }

// relLink is a link from the page at path from to the page at path to
// (page paths, slash-separated), relative to from's folder the way page
// links are resolved, so that it keeps working when the imported pages are
// placed under another page.
func relLink(from, to string) string {
	dir := strings.Split(path.Dir(from), "/")
	if path.Dir(from) == "." {
		dir = nil
	}
	target := strings.Split(to, "/")
	i := 0
	for i < len(dir) && i < len(target)-1 && dir[i] == target[i] {
		i++
	}
	parts := make([]string, 0, len(dir)-i+len(target)-i)
	for range dir[i:] {
		parts = append(parts, "..")
	}
	return strings.Join(append(parts, target[i:]...), "/")
}
