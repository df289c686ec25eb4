package importer

import (
	"context"
	"errors"
	"net/url"
	"path"
	"regexp"
	"sort"
	"strings"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/lexer"
	"github.com/goccy/go-yaml/token"

	"docsapi/markdown"
)

// Repository reads a tree of files in GitBook's repository layout (paths
// slash-separated, relative to the repository's top): `.gitbook.yaml`
// (root, structure.readme, structure.summary), the readme as the first
// page, SUMMARY.md as the page tree (## groups, nesting, entry titles,
// anchors), front matter into the pages' fields, the other Markdown files
// following their folders, files under .gitbook/assets (and images
// anywhere) as files, and relative links between them resolved to page
// paths and file names. Zip and Git imports both come through here.
func Repository(ctx context.Context, files map[string][]byte, lim Limits) (*Result, error) {
	lim = lim.or(DefaultLimits)
	maxZipEntries, maxZipTotal := lim.MaxFiles, lim.MaxBytes
	if len(files) > maxZipEntries {
		return nil, badContent("the repository has %d files; at most %d are imported", len(files), maxZipEntries)
	}
	var total int64
	for name, data := range files {
		if err := checkZipName(name); err != nil {
			return nil, err
		}
		if int64(len(data)) > maxZipEntry {
			return nil, badContent("%s is larger than %d bytes", name, maxZipEntry)
		}
		if total += int64(len(data)); total > maxZipTotal {
			return nil, badContent("the repository holds more than %d bytes", maxZipTotal)
		}
	}
	layout, err := readLayout(files[".gitbook.yaml"])
	if err != nil {
		return nil, err
	}
	res := &Result{}
	docs := map[string]string{} // path under root -> Markdown (front matter removed)
	fronts := map[string]frontMatter{}
	fileNames := map[string]string{} // path under root -> file name
	used := names{}
	var order, assets, includes []string
	for name := range files {
		p := strings.TrimPrefix(path.Clean("/"+name), "/")
		if layout.root != "" {
			if !strings.HasPrefix(p, layout.root) {
				continue
			}
			p = strings.TrimPrefix(p, layout.root)
		}
		if p == "" || strings.HasPrefix(p, "__MACOSX/") {
			continue
		}
		isAsset := strings.HasPrefix(p, ".gitbook/assets/")
		if strings.HasPrefix(p, ".gitbook/includes/") && strings.EqualFold(path.Ext(p), ".md") && !strings.Contains(strings.TrimPrefix(p, ".gitbook/includes/"), "/") {
			res.Total++
			includes = append(includes, p)
			continue
		}
		if !isAsset && (strings.HasPrefix(path.Base(p), ".") || strings.HasPrefix(p, ".gitbook/")) {
			continue // hidden files, and GitBook's own
		}
		res.Total++
		switch {
		case strings.EqualFold(path.Ext(p), ".md") && !isAsset:
			order = append(order, p)
		case isAsset || isImageName(p):
			assets = append(assets, p)
		}
	}
	// Map keys back to their names (root stripped) in a stable order.
	byPath := map[string][]byte{}
	for name, data := range files {
		if p, ok := strings.CutPrefix(strings.TrimPrefix(path.Clean("/"+name), "/"), layout.root); ok {
			byPath[p] = data
		}
	}
	sort.Strings(order)
	sort.Strings(assets)
	for _, p := range assets {
		name := used.unique(p)
		fileNames[p] = name
		res.Files = append(res.Files, &File{Name: name, ContentType: contentTypeOf(p, ""), Data: byPath[p]})
		res.Imported++
	}
	for _, p := range order {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		src := string(byPath[p])
		fm, body, err := splitFrontMatter(src)
		if err != nil {
			return nil, badContent("%s: %v", p, err)
		}
		if err := checkBody(p, body); err != nil {
			return nil, err
		}
		docs[p], fronts[p] = body, fm
	}
	// Reusable contents: .gitbook/includes/<name>.md, titled by their
	// front matter (else their name).
	sort.Strings(includes)
	includeOf := map[string]string{} // path under root -> name
	for _, p := range includes {
		fm, body, err := splitFrontMatter(string(byPath[p]))
		if err != nil {
			return nil, badContent("%s: %v", p, err)
		}
		if err := checkBody(p, body); err != nil {
			return nil, err
		}
		name := strings.TrimSuffix(path.Base(p), path.Ext(p))
		res.Reusable = append(res.Reusable, &Reusable{Name: name, Title: orDefault(strings.TrimSpace(fm.Title), name), Markdown: body})
		includeOf[p] = name
		res.Imported++
	}
	// The readme comes first, whatever its name.
	if layout.readme != "README.md" {
		if i := indexOf(order, layout.readme); i > 0 {
			order = append([]string{layout.readme}, append(order[:i:i], order[i+1:]...)...)
		}
	} else if i := indexOf(order, "README.md"); i > 0 {
		order = append([]string{"README.md"}, append(order[:i:i], order[i+1:]...)...)
	}
	pageOf := map[string]*Page{}
	var summary []*Page
	if s, ok := docs[layout.summary]; ok {
		delete(docs, layout.summary)
		summary = summaryTree(s, docs, pageOf)
		if p := pageOf[layout.readme]; p != nil {
			p.Slug = slugOr(p.Title, "home")
		}
	}
	res.Pages = append(summary, folderTree(order, docs, pageOf, layout.readme)...)
	for p, page := range pageOf {
		fronts[p].apply(page)
		page.Path = p // kept so that an export writes the page where it was read
	}
	dedupeSlugs(res.Pages)
	paths := map[*Page]string{}
	assignPaths(res.Pages, "", paths)
	// Link entries of SUMMARY (page.md#anchor) point at the page read.
	var links func([]*Page)
	links = func(ps []*Page) {
		for _, p := range ps {
			if p.Kind == "link" && p.targetPath != "" {
				p.Target = pageOf[p.targetPath]
				if p.Target == nil {
					p.Kind, p.Anchor = "", "" // the file is not in the repository: an empty page, as GitBook shows it
				}
			}
			links(p.Children)
		}
	}
	links(res.Pages)
	// Rewrite links between files of the repository to page paths and file names.
	keys := make([]string, 0, len(pageOf))
	for p := range pageOf {
		keys = append(keys, p)
	}
	sort.Strings(keys)
	for _, p := range keys {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		page := pageOf[p]
		page.Markdown = rewriteLinks(page.Markdown, func(dest string) (string, bool) {
			target := linkTarget(p, dest)
			if name, ok := fileNames[target]; ok {
				return url.PathEscape(name), true
			}
			if tp, ok := pageOf[target]; ok {
				return relLink(paths[page], paths[tp]), true
			}
			if name, ok := includeOf[target]; ok {
				return includePath(name), true
			}
			return "", false
		})
		res.Imported++
	}
	// Reusable contents link to pages and files the same way, read from
	// .gitbook/includes/: their links become page paths from the top of
	// the tree (a reusable content belongs to no page) and file names.
	for i, p := range includes {
		rc := res.Reusable[i]
		rc.Markdown = rewriteLinks(rc.Markdown, func(dest string) (string, bool) {
			target := linkTarget(p, dest)
			if name, ok := fileNames[target]; ok {
				return url.PathEscape(name), true
			}
			if tp, ok := pageOf[target]; ok {
				return relLink("", paths[tp]), true
			}
			return "", false
		})
	}
	return res, nil
}

func indexOf(list []string, s string) int {
	for i, v := range list {
		if v == s {
			return i
		}
	}
	return -1
}

// layout is what .gitbook.yaml says (defaults: the top folder, README.md
// and SUMMARY.md), paths relative to root.
type layout struct {
	root, readme, summary string
}

// maxLayoutFile bounds .gitbook.yaml and a page's front matter before
// the YAML parser sees them.
const maxLayoutFile = 16 << 10

func readLayout(src []byte) (layout, error) {
	l := layout{readme: "README.md", summary: "SUMMARY.md"}
	if len(src) == 0 {
		return l, nil
	}
	if len(src) > maxLayoutFile {
		return l, badContent(".gitbook.yaml is %d bytes; at most %d are read", len(src), maxLayoutFile)
	}
	var conf struct {
		Root      string `yaml:"root"`
		Structure struct {
			Readme  string `yaml:"readme"`
			Summary string `yaml:"summary"`
		} `yaml:"structure"`
	}
	if err := readYAML(src, &conf); err != nil {
		return l, badContent(".gitbook.yaml: %v", err)
	}
	clean := func(field, p string) (string, error) {
		p = strings.TrimPrefix(path.Clean("/"+p), "/")
		if err := checkZipName(p); err != nil {
			return "", badContent(".gitbook.yaml %s: %v", field, err)
		}
		return p, nil
	}
	var err error
	if conf.Root != "" {
		if l.root, err = clean("root", conf.Root); err != nil {
			return l, err
		}
		if l.root != "" {
			l.root += "/"
		}
	}
	if conf.Structure.Readme != "" {
		if l.readme, err = clean("structure.readme", conf.Structure.Readme); err != nil {
			return l, err
		}
	}
	if conf.Structure.Summary != "" {
		if l.summary, err = clean("structure.summary", conf.Structure.Summary); err != nil {
			return l, err
		}
	}
	return l, nil
}

// readYAML decodes a small YAML document (at most maxLayoutFile) into v.
// Aliases are refused before decoding: each expands to a copy of its
// anchor, so a few nested ones in 16 KiB make gigabytes.
func readYAML(src []byte, v any) error {
	for _, tk := range lexer.Tokenize(string(src)) {
		if tk.Type == token.AliasType {
			return errors.New("YAML aliases (*name) are not read")
		}
	}
	if err := yaml.Unmarshal(src, v); err != nil {
		return errors.New(firstLine(err.Error()))
	}
	return nil
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}

// frontMatter is the YAML header of a page GitBook reads.
type frontMatter struct {
	Title       string         `yaml:"title"` // reusable contents
	Description string         `yaml:"description"`
	Icon        string         `yaml:"icon"`
	Hidden      bool           `yaml:"hidden"`
	Layout      map[string]any `yaml:"layout"`
}

func (fm frontMatter) apply(p *Page) {
	p.Description, p.Icon, p.Hidden, p.Layout = strings.TrimSpace(fm.Description), fm.Icon, fm.Hidden, apiLayout(fm.Layout)
}

// apiLayout is the API's page layout ({title: false, width: "wide"}) of
// GitBook's front matter layout ({title: {visible: false}, width: wide}).
func apiLayout(in map[string]any) map[string]any {
	if len(in) == 0 {
		return nil
	}
	out := make(map[string]any, len(in))
	for k, v := range in {
		if m, ok := v.(map[string]any); ok {
			if vis, ok := m["visible"].(bool); ok {
				out[k] = vis
			}
			continue
		}
		out[k] = v
	}
	return out
}

// splitFrontMatter takes a leading "---" YAML block off src.
func splitFrontMatter(src string) (frontMatter, string, error) {
	var fm frontMatter
	rest, ok := strings.CutPrefix(src, "---\n")
	if !ok {
		if rest, ok = strings.CutPrefix(src, "---\r\n"); !ok {
			return fm, src, nil
		}
	}
	end := -1
	for i := 0; i < len(rest) && i <= maxLayoutFile; {
		line, _, _ := strings.Cut(rest[i:], "\n")
		if strings.TrimRight(line, "\r ") == "---" {
			end = i
			break
		}
		i += len(line) + 1
	}
	if end < 0 {
		if len(rest) > maxLayoutFile && !strings.Contains(rest[:maxLayoutFile], "\n---") {
			return fm, src, badContent("front matter is longer than %d bytes", maxLayoutFile)
		}
		return fm, src, nil // no closing line: not front matter
	}
	if err := readYAML([]byte(rest[:end]), &fm); err != nil {
		return fm, src, badContent("front matter: %v", err)
	}
	body := rest[end:]
	_, body, _ = strings.Cut(body, "\n")
	return fm, strings.TrimLeft(body, "\r\n"), nil
}

// A SUMMARY entry: indent, title, destination and an optional link title.
var summaryItem = regexp.MustCompile(`^(\s*)[*+-]\s+\[((?:[^\]\\]|\\.)*)\]\(\s*(<[^>]*>|[^)\s]*)(?:\s+(?:"[^"]*"|'[^']*'))?\s*\)`)

var summaryGroup = regexp.MustCompile(`^(##|###)\s+(.+?)\s*#*\s*$`)

// summaryTree builds pages in the order and nesting of SUMMARY.md; the
// pages it uses are removed from docs. A "## Group" heading opens a group
// page holding the entries up to the next one; an entry page.md#anchor is
// a link to that anchor of the page.
func summaryTree(src string, docs map[string]string, pageOf map[string]*Page) []*Page {
	type level struct {
		indent int
		list   *[]*Page
	}
	var top []*Page
	stack := []level{{-1, &top}}
	var last *Page
	var lastIndent int
	for _, line := range strings.Split(src, "\n") {
		if g := summaryGroup.FindStringSubmatch(strings.TrimRight(line, "\r")); g != nil && unescapeMarkdown(g[2]) != "" {
			grp := &Page{Kind: "group", Title: unescapeMarkdown(g[2]), Slug: slugOr(g[2], "group")}
			top = append(top, grp)
			stack = []level{{-1, &grp.Children}}
			last = nil
			continue
		}
		m := summaryItem.FindStringSubmatch(strings.ReplaceAll(line, "\t", "    "))
		if m == nil {
			continue
		}
		raw := strings.TrimSuffix(strings.TrimPrefix(m[3], "<"), ">")
		raw, anchor, _ := strings.Cut(raw, "#")
		if un, err := url.PathUnescape(raw); err == nil {
			raw = un
		}
		indent, title := len(m[1]), unescapeMarkdown(m[2])
		dest := ""
		if raw != "" {
			dest = strings.TrimPrefix(path.Clean("/"+raw), "/")
		}
		if title == "" {
			title = orDefault(strings.TrimSuffix(path.Base(dest), path.Ext(dest)), "Untitled")
		}
		if last != nil && indent > lastIndent {
			stack = append(stack, level{indent, &last.Children})
		}
		for len(stack) > 1 && indent < stack[len(stack)-1].indent {
			stack = stack[:len(stack)-1]
		}
		p := &Page{Title: title, Slug: slugOr(strings.TrimSuffix(path.Base(dest), path.Ext(dest)), slugOr(title, "page"))}
		switch {
		case strings.Contains(raw, "://"):
			p.Kind, p.URL, p.Slug = "link", m[3], slugOr(title, "link")
		case anchor != "":
			p.Kind, p.Anchor, p.targetPath, p.Slug = "link", anchor, dest, slugOr(title, "link")
		default:
			if isIndex(dest) {
				p.Slug = slugOr(path.Base(path.Dir(dest)), slugOr(title, "page"))
				if path.Dir(dest) == "." {
					p.Slug = slugOr(title, "page")
				}
			}
			if body, ok := docs[dest]; ok {
				p.Markdown = markdown.StripTitle(body, title)
				pageOf[dest] = p
				delete(docs, dest)
			}
		}
		list := stack[len(stack)-1].list
		*list = append(*list, p)
		last, lastIndent = p, indent
	}
	return top
}

var markdownEscape = regexp.MustCompile(`\\([!-/:-@\[-` + "`" + `{-~])`)

func unescapeMarkdown(s string) string {
	return markdownEscape.ReplaceAllString(strings.TrimSpace(s), "$1")
}

// linkTarget is the repository path a link destination in the file at
// from names. Destinations are URLs: my%20notes.md names "my notes.md".
func linkTarget(from, dest string) string {
	if un, err := url.PathUnescape(dest); err == nil {
		dest = un
	}
	return path.Clean(path.Join(path.Dir(from), dest))
}
