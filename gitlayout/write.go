// Package gitlayout writes a revision's content in GitBook's repository
// layout: the reverse of importer.Repository. It is pure (no storage, no
// I/O): the caller hands it the pages, with their bodies, and the files.
package gitlayout

import (
	"bytes"
	"fmt"
	"net/url"
	"path"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/goccy/go-yaml"

	"docsapi/markdown"
)

// RepositoryInput is a revision's content: its page tree in order and its
// files.
type RepositoryInput struct {
	Pages    []*Page
	Files    []File
	Reusable []Reusable
}

// Reusable is a reusable content of the revision, written to
// .gitbook/includes/<slug of its title>.md; pages include it with
// {% include "reusable/<ID>" %}.
type Reusable struct {
	ID       string
	Title    string
	Markdown string
}

// IncludesDir holds the reusable contents.
const IncludesDir = ".gitbook/includes/"

// Page is one page of the tree. Kind is document, group or link; Slug is
// the page's slug as stored (unique among its siblings), Markdown its
// body (GitBook blocks in GitBook's syntax, page links as relative page
// paths, file references as file names, as imports store them). Target is
// a link page's content reference.
type Page struct {
	ID          string
	Kind        string
	Title       string
	Slug        string
	Markdown    string
	Description string
	Icon        string
	Hidden      bool
	Layout      map[string]any
	Target      map[string]any
	Children    []*Page
	// Source is the file an import read the page from, SourceTreePath its
	// tree path (slugs from the top) then; see WriteRepository.
	Source         string
	SourceTreePath string
}

// File is one file of the revision.
type File struct {
	ID   string
	Name string
	Data []byte
}

// LayoutFile is the .gitbook.yaml written (the default structure, said
// out loud so that GitBook and importer.Repository read the same).
const LayoutFile = "root: ./\n\nstructure:\n  readme: README.md\n  summary: SUMMARY.md\n"

// AssetsDir holds the files.
const AssetsDir = ".gitbook/assets/"

// MaxDepth bounds the page nesting written (the stored tree is bounded
// by the API; this guards the recursion against any input).
const MaxDepth = 64

// WriteRepository lays the content out as GitBook does: README.md (the
// first top-level page), SUMMARY.md (groups as ## headings, nesting as
// indentation, anchors and URLs for link pages), one file per page under
// folders named by the page paths (a page with children is its folder's
// README.md), front matter for description, icon, hidden and layout,
// files under .gitbook/assets/, and the links of each body rewritten from
// page paths and file names to relative paths between the files. The
// output depends only on the input.
//
// A page read from a repository (Source set) is written back at that file
// while its tree path is still SourceTreePath (neither moved nor renamed
// since), the file is a .md path outside .gitbook/ other than SUMMARY.md,
// and no page before it in tree order took it; README.md stays the first
// page's. Other pages get the derived file above.
func WriteRepository(in RepositoryInput) (map[string][]byte, error) {
	w := &writer{out: map[string][]byte{".gitbook.yaml": []byte(LayoutFile)}, fileOf: map[string]string{},
		byPath: map[string]*Page{}, pagePath: map[*Page]string{}, byID: map[string]*Page{}, files: map[string]bool{}}
	for _, f := range in.Files {
		if f.Name == "" || strings.ContainsAny(f.Name, "/\\") || f.Name == "." || f.Name == ".." {
			return nil, fmt.Errorf("file %s: bad name %q", f.ID, f.Name)
		}
		w.out[AssetsDir+f.Name] = f.Data
		w.files[f.Name] = true
	}
	if err := w.place(in.Pages, "", "", 0); err != nil {
		return nil, err
	}
	if err := w.reusable(in.Reusable); err != nil {
		return nil, err
	}
	var summary strings.Builder
	summary.WriteString("# Table of contents\n\n")
	inGroup := false
	for _, p := range in.Pages {
		if p.Kind == "group" {
			summary.WriteString("\n## " + escapeTitle(p.Title) + "\n\n")
			w.entries(&summary, p.Children, 0)
			inGroup = true
			continue
		}
		if inGroup {
			// GitBook reads every entry after a group as the group's:
			// a page after one is written into an untitled group.
			summary.WriteString("\n## \u200b\n\n")
			inGroup = false
		}
		w.entries(&summary, []*Page{p}, 0)
	}
	w.out["SUMMARY.md"] = []byte(summary.String())
	// Bodies, once every page's file is known.
	for p, file := range w.pageFiles() {
		body, err := w.body(p, file)
		if err != nil {
			return nil, err
		}
		w.out[file] = body
	}
	return w.out, nil
}

type writer struct {
	out      map[string][]byte
	fileOf   map[string]string // page id -> its file
	byPath   map[string]*Page  // page path -> page
	pagePath map[*Page]string
	byID     map[string]*Page
	files    map[string]bool
	order    []*Page // pages with a file, in tree order
	readme   bool
	includes map[string]string // reusable content id -> its file
}

// reusable writes each reusable content under .gitbook/includes/, named
// by its title's slug (made unique), with its title as front matter.
func (w *writer) reusable(list []Reusable) error {
	w.includes = map[string]string{}
	used := map[string]bool{}
	files := make([]string, 0, len(list))
	for _, rc := range list {
		name := markdown.Slugify(rc.Title)
		if name == "" {
			name = "reusable"
		}
		base := name
		for i := 2; used[name]; i++ {
			name = base + "-" + strconv.Itoa(i)
		}
		used[name] = true
		files = append(files, IncludesDir+name+".md")
		w.includes[rc.ID] = files[len(files)-1]
	}
	// Bodies once every include has its file: their links to pages and
	// files (page paths from the top, file names) written relative to
	// .gitbook/includes/, as GitBook writes them.
	for i, rc := range list {
		file := files[i]
		y, err := yaml.Marshal(map[string]string{"title": rc.Title})
		if err != nil {
			return fmt.Errorf("reusable content %s: %v", rc.ID, err)
		}
		body := "---\n" + string(y) + "---\n"
		if md := w.rewriteFrom("", file, rc.Markdown); strings.TrimSpace(md) != "" {
			body += "\n" + md
			if !strings.HasSuffix(body, "\n") {
				body += "\n"
			}
		}
		w.out[file] = []byte(body)
	}
	return nil
}

// place gives each page its path (slugs from the top, as the tree's paths
// are) and its file.
func (w *writer) place(pages []*Page, parentPath, dir string, depth int) error {
	if depth > MaxDepth {
		return fmt.Errorf("pages nest more than %d deep", MaxDepth)
	}
	for _, p := range pages {
		if p.ID != "" {
			w.byID[p.ID] = p
		}
		if p.Kind == "link" {
			continue
		}
		if p.Slug == "" || strings.ContainsAny(p.Slug, "/\\") || p.Slug == "." || p.Slug == ".." {
			return fmt.Errorf("page %s: bad slug %q", p.ID, p.Slug)
		}
		pp := join(parentPath, p.Slug)
		w.pagePath[p], w.byPath[pp] = pp, p
		folder := join(dir, p.Slug)
		if p.Kind == "group" {
			if err := w.place(p.Children, pp, folder, depth+1); err != nil {
				return err
			}
			continue
		}
		var file string
		switch {
		case !w.readme && parentPath == "" && len(p.Children) == 0:
			file, w.readme = "README.md", true
		case w.sourceFits(p, pp):
			file = p.Source
		case len(p.Children) > 0:
			file = folder + "/README.md"
		default:
			file = folder + ".md"
		}
		if !w.readme && parentPath == "" {
			w.readme = true // the first page has children: its folder's README is its file, and README.md is not written
		}
		if _, taken := w.out[file]; taken && file != p.Source {
			// A page kept at its source file holds the derived one: the
			// next free name (page-2.md, page-2/README.md, ...).
			base, suffix := strings.TrimSuffix(file, ".md"), ".md"
			if strings.HasSuffix(file, "/README.md") {
				base, suffix = strings.TrimSuffix(file, "/README.md"), "/README.md"
			}
			for i := 2; taken; i++ {
				if i > len(w.out)+2 {
					return fmt.Errorf("page %s: two pages write %s", p.ID, file)
				}
				file = base + "-" + strconv.Itoa(i) + suffix
				_, taken = w.out[file]
			}
		}
		w.out[file] = nil
		w.fileOf[p.ID] = file
		w.order = append(w.order, p)
		if err := w.place(p.Children, pp, folder, depth+1); err != nil {
			return err
		}
	}
	return nil
}

// sourceFits says whether the page can be written at the file it was
// read from: its tree path unchanged, the file a clean relative .md path
// that is not the layout's (SUMMARY.md, README.md at the top, under
// .gitbook/), not yet taken, and not a folder of a file already written.
func (w *writer) sourceFits(p *Page, treePath string) bool {
	f := p.Source
	if f == "" || p.SourceTreePath != treePath || len(f) > 1024 {
		return false
	}
	if path.Clean(f) != f || strings.HasPrefix(f, "/") || strings.HasPrefix(f, "../") || f == ".." ||
		strings.Contains(f, "\\") || !strings.EqualFold(path.Ext(f), ".md") {
		return false
	}
	// Names a link destination writes as is, read back the same.
	if !utf8.ValidString(f) || strings.ContainsFunc(f, func(r rune) bool {
		return unicode.IsControl(r) || (unicode.IsSpace(r) && r != ' ') || strings.ContainsRune("#%?<>[]()\"`'\\{}|^", r) || r == utf8.RuneError
	}) {
		return false
	}
	if strings.EqualFold(f, "SUMMARY.md") || strings.EqualFold(f, "README.md") || strings.HasPrefix(f, ".gitbook/") || f == ".gitbook.yaml" {
		return false
	}
	if _, taken := w.out[f]; taken {
		return false
	}
	return true
}

func (w *writer) pageFiles() map[*Page]string {
	out := make(map[*Page]string, len(w.order))
	for _, p := range w.order {
		out[p] = w.fileOf[p.ID]
	}
	return out
}

func join(a, b string) string {
	if a == "" {
		return b
	}
	return a + "/" + b
}

// entries writes SUMMARY entries for pages at depth (two spaces a level).
func (w *writer) entries(b *strings.Builder, pages []*Page, depth int) {
	for _, p := range pages {
		dest := w.fileOf[p.ID]
		if p.Kind == "link" {
			dest = w.linkDest(p.Target)
		}
		b.WriteString(strings.Repeat("  ", depth) + "* [" + escapeTitle(p.Title) + "](" + escapeDest(dest) + ")\n")
		if p.Kind != "link" {
			w.entries(b, p.Children, depth+1)
		}
	}
}

func (w *writer) linkDest(target map[string]any) string {
	s := func(k string) string { v, _ := target[k].(string); return v }
	switch s("kind") {
	case "url":
		return s("url")
	case "anchor", "page":
		if file, ok := w.fileOf[s("page")]; ok {
			if a := s("anchor"); a != "" {
				return file + "#" + a
			}
			return file
		}
	}
	return ""
}

var titleSpecial = regexp.MustCompile(`([\\\[\]])`)

func escapeTitle(t string) string { return titleSpecial.ReplaceAllString(t, `\$1`) }

// escapeDest writes a link destination: spaces and parentheses escaped.
func escapeDest(d string) string {
	return strings.NewReplacer(" ", "%20", "(", "%28", ")", "%29").Replace(d)
}

// frontMatter is what a page's fields give; yaml writes it in this order.
type frontMatter struct {
	Description string         `yaml:"description,omitempty"`
	Icon        string         `yaml:"icon,omitempty"`
	Hidden      bool           `yaml:"hidden,omitempty"`
	Layout      map[string]any `yaml:"layout,omitempty"`
}

// body is the page's file: front matter, its title as the first heading,
// then its body with links made relative to file.
func (w *writer) body(p *Page, file string) ([]byte, error) {
	var b bytes.Buffer
	fm := frontMatter{Description: p.Description, Icon: p.Icon, Hidden: p.Hidden, Layout: gitLayout(p.Layout)}
	if fm.Description != "" || fm.Icon != "" || fm.Hidden || len(fm.Layout) > 0 {
		y, err := yaml.MarshalWithOptions(fm, yaml.UseLiteralStyleIfMultiline(true))
		if err != nil {
			return nil, fmt.Errorf("page %s: front matter: %v", p.ID, err)
		}
		b.WriteString("---\n")
		b.Write(y)
		b.WriteString("---\n\n")
	}
	b.WriteString("# " + p.Title + "\n")
	md := w.rewrite(p, file, p.Markdown)
	if strings.TrimSpace(md) != "" {
		b.WriteString("\n" + md)
		if !strings.HasSuffix(md, "\n") {
			b.WriteString("\n")
		}
	}
	return b.Bytes(), nil
}

// gitLayout is GitBook's front matter layout ({title: {visible: false}})
// of the API's ({title: false}); other settings (width) as they are.
func gitLayout(in map[string]any) map[string]any {
	if len(in) == 0 {
		return nil
	}
	out := make(map[string]any, len(in))
	for k, v := range in {
		if b, ok := v.(bool); ok {
			out[k] = map[string]any{"visible": b}
			continue
		}
		out[k] = v
	}
	return out
}

// rewrite turns the body's page paths and file names into paths relative
// to the page's file (fragments kept; outside URLs untouched).
func (w *writer) rewrite(p *Page, file, md string) string {
	return w.rewriteFrom(w.pagePath[p], file, md)
}

// rewriteFrom is rewrite for a body whose page links are read from the
// page path from ("" for the top of the tree) and written to file.
func (w *writer) rewriteFrom(from, file, md string) string {
	dir := path.Dir(file)
	resolve := func(dest string) (string, bool) {
		if dest == "" || strings.Contains(dest, "://") || strings.HasPrefix(dest, "#") || strings.HasPrefix(dest, "mailto:") {
			return "", false
		}
		d, frag, _ := strings.Cut(dest, "#")
		un := d
		if u, err := url.PathUnescape(d); err == nil {
			un = u
		}
		if id, ok := strings.CutPrefix(d, markdown.IncludeReusablePrefix); ok {
			if file, ok := w.includes[id]; ok {
				return relative(dir, file), true
			}
			return "", false
		}
		if path.Clean(un) == "." {
			return "", false // the page itself, said without a name: left as written
		}
		var target string
		if w.files[path.Base(un)] {
			target = AssetsDir + path.Base(un) // as the links analysis reads it: a file by its name
		} else {
			tp := w.pageAt(from, un)
			if tp == nil {
				return "", false
			}
			target = w.fileOf[tp.ID]
		}
		rel := relative(dir, target)
		if frag != "" {
			rel += "#" + frag
		}
		return rel, true
	}
	repl := map[string]string{}
	for _, l := range markdown.Links(md) {
		if _, seen := repl["]("+l.Dest]; seen {
			continue
		}
		if r, ok := resolve(l.Dest); ok {
			repl["](<"+l.Dest+">"] = "](" + escapeDest(r)
			repl["]("+l.Dest] = "](" + escapeDest(r)
		}
	}
	for _, ref := range markdown.GitBookRefs(md) {
		if r, ok := resolve(ref.Dest); ok {
			repl[ref.Key+ref.Dest+`"`] = ref.Key + escapeDest(r) + `"`
		}
	}
	return replaceAll(md, repl)
}

// pageAt is the page (with a file) a relative link dest from the page at
// path from names, read as the links analysis reads it: relative to the
// page's folder, else to the page itself, or from the top with a leading
// slash; a .md suffix dropped, README and index naming their folder.
func (w *writer) pageAt(from, dest string) *Page {
	var candidates []string
	if strings.HasPrefix(dest, "/") {
		candidates = []string{dest}
	} else {
		candidates = []string{path.Join(path.Dir(from), dest), path.Join(from, dest)}
	}
	for _, c := range candidates {
		c = strings.Trim(path.Clean("/"+c), "/")
		if strings.EqualFold(path.Ext(c), ".md") {
			c = strings.TrimSuffix(c, path.Ext(c))
		}
		if b := strings.ToLower(path.Base(c)); b == "readme" || b == "index" {
			c = strings.TrimSuffix(strings.TrimSuffix(c, path.Base(c)), "/")
		}
		if tp := w.byPath[c]; tp != nil && w.fileOf[tp.ID] != "" {
			return tp
		}
	}
	return nil
}

// relative is the path to target (from the top) from the folder dir.
func relative(dir, target string) string {
	if dir == "." {
		dir = ""
	}
	var from []string
	if dir != "" {
		from = strings.Split(dir, "/")
	}
	to := strings.Split(target, "/")
	i := 0
	for i < len(from) && i < len(to)-1 && from[i] == to[i] {
		i++
	}
	parts := slices.Repeat([]string{".."}, len(from)-i)
	return strings.Join(append(parts, to[i:]...), "/")
}

// replaceAll makes the replacements in one pass, the longest first.
func replaceAll(src string, repl map[string]string) string {
	if len(repl) == 0 {
		return src
	}
	olds := make([]string, 0, len(repl))
	for o := range repl {
		olds = append(olds, o)
	}
	sort.Slice(olds, func(i, j int) bool {
		if len(olds[i]) != len(olds[j]) {
			return len(olds[i]) > len(olds[j])
		}
		return olds[i] < olds[j]
	})
	pairs := make([]string, 0, 2*len(olds))
	for _, o := range olds {
		pairs = append(pairs, o, repl[o])
	}
	return strings.NewReplacer(pairs...).Replace(src)
}
