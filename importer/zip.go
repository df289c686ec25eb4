package importer

import (
	"archive/zip"
	"bytes"
	"context"
	"io"
	"path"
	"regexp"
	"strings"

	"docsapi/markdown"
)

// Zip archive and repository bounds (zip bombs, path tricks) besides the
// Limits' count and total: one file's bytes, nesting and name length. The
// byte bound is a variable only so that tests can prove it with small
// archives.
var maxZipEntry int64 = 20 << 20 // uncompressed bytes of one entry

const (
	maxZipDepth = 16   // folders above a file
	maxZipName  = 1024 // bytes of an entry's name
)

var driveLetter = regexp.MustCompile(`^[A-Za-z]:`)

// checkZipName refuses entry names that are absolute, climb out of the
// archive (..), carry backslashes or control characters, or nest too deep.
func checkZipName(name string) error {
	switch {
	case len(name) > maxZipName:
		return badContent("zip entry name %.64q… is longer than %d bytes", name, maxZipName)
	case strings.HasPrefix(name, "/") || strings.Contains(name, "\\") || driveLetter.MatchString(name):
		return badContent("zip entry %q has an absolute or Windows path", name)
	case strings.ContainsFunc(name, func(r rune) bool { return r < 0x20 || r == 0x7f }):
		return badContent("zip entry %q has control characters in its name", name)
	}
	for _, seg := range strings.Split(name, "/") {
		if seg == ".." {
			return badContent("zip entry %q climbs out of the archive (..)", name)
		}
	}
	if strings.Count(strings.Trim(name, "/"), "/") > maxZipDepth {
		return badContent("zip entry %q is nested more than %d folders deep", name, maxZipDepth)
	}
	return nil
}

// Zip converts a zip of Markdown files and images. The folder tree becomes
// the page tree (a folder's README.md or index.md is the folder's page);
// a SUMMARY.md, when present, gives the order, nesting and titles of the
// pages it lists, the others following at the end. Links between Markdown
// files become links to the pages' paths; images become files.
func Zip(ctx context.Context, body []byte) (*Result, error) {
	return ZipWith(ctx, body, Limits{})
}

// ZipWith is Zip within lim's MaxFiles and MaxBytes (zero: DefaultLimits).
func ZipWith(ctx context.Context, body []byte, lim Limits) (*Result, error) {
	lim = lim.or(DefaultLimits)
	maxZipEntries, maxZipTotal := lim.MaxFiles, lim.MaxBytes
	zr, err := zip.NewReader(bytes.NewReader(body), int64(len(body)))
	if err != nil {
		return nil, badContent("the content is not a zip archive: %v", err)
	}
	if len(zr.File) > maxZipEntries {
		return nil, badContent("the zip archive has %d entries; at most %d are imported", len(zr.File), maxZipEntries)
	}
	var declared uint64
	for _, f := range zr.File {
		if err := checkZipName(f.Name); err != nil {
			return nil, err
		}
		declared += f.UncompressedSize64
	}
	if declared > uint64(maxZipTotal) {
		return nil, badContent("the zip archive holds %d bytes uncompressed; at most %d are imported", declared, maxZipTotal)
	}
	var total int64 // what was really read: declared sizes may lie
	files := map[string][]byte{}
	prefix := commonRoot(zr.File)
	for _, f := range zr.File {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if f.FileInfo().IsDir() {
			continue
		}
		p := strings.TrimPrefix(path.Clean("/"+f.Name), "/")
		p = strings.TrimPrefix(p, prefix)
		if !wanted(p) {
			files[p] = nil // counted, not read
			continue
		}
		data, err := readEntry(f)
		if err != nil {
			return nil, err
		}
		if total += int64(len(data)); total > maxZipTotal {
			return nil, badContent("the zip archive holds more than %d bytes uncompressed", maxZipTotal)
		}
		files[p] = data
	}
	return Repository(ctx, files, lim)
}

// wanted tells whether Repository reads a file at p: Markdown, the
// layout file, images and GitBook's assets.
func wanted(p string) bool {
	return p == ".gitbook.yaml" || strings.HasPrefix(p, ".gitbook/assets/") || strings.HasSuffix(p, "/.gitbook.yaml") ||
		strings.EqualFold(path.Ext(p), ".md") || isImageName(p)
}

func readEntry(f *zip.File) ([]byte, error) {
	rc, err := f.Open()
	if err != nil {
		return nil, badContent("zip entry %s: %v", f.Name, err)
	}
	defer rc.Close()
	data, err := io.ReadAll(io.LimitReader(rc, maxZipEntry+1))
	if err != nil {
		return nil, badContent("zip entry %s: %v", f.Name, err)
	}
	if int64(len(data)) > maxZipEntry {
		return nil, badContent("zip entry %s is larger than %d bytes", f.Name, maxZipEntry)
	}
	return data, nil
}

// commonRoot is "dir/" when every entry sits under one top folder (as
// archives of a folder do), so that folder is not a page of its own.
func commonRoot(files []*zip.File) string {
	root := ""
	for _, f := range files {
		p := strings.TrimPrefix(path.Clean("/"+f.Name), "/")
		first, _, nested := strings.Cut(p, "/")
		if !nested && !f.FileInfo().IsDir() {
			return ""
		}
		if root == "" {
			root = first
		} else if root != first {
			return ""
		}
	}
	if root == "" {
		return ""
	}
	return root + "/"
}

func isIndex(p string) bool {
	b := strings.ToLower(path.Base(p))
	return b == "readme.md" || b == "index.md"
}

// folderTree turns the remaining Markdown files into pages following the
// folders: a folder is a page (its README.md/index.md body, else empty)
// holding its files' pages.
func folderTree(order []string, docs map[string]string, pageOf map[string]*Page, readme string) []*Page {
	var top []*Page
	folders := map[string]*Page{"": nil}
	var folder func(dir string) *[]*Page
	folder = func(dir string) *[]*Page {
		if dir == "." || dir == "" {
			return &top
		}
		if p, ok := folders[dir]; ok && p != nil {
			return &p.Children
		}
		parent := folder(path.Dir(dir))
		title := path.Base(dir)
		p := &Page{Title: strings.ReplaceAll(title, "-", " "), Slug: slugOr(title, "folder")}
		folders[dir] = p
		*parent = append(*parent, p)
		return &p.Children
	}
	for _, p := range order {
		body, ok := docs[p]
		if !ok {
			continue
		}
		dir := path.Dir(p)
		if isIndex(p) && dir != "." {
			folder(dir)
			fp := folders[dir]
			if t := markdown.Title(body); t != "" {
				fp.Title = t
				body = markdown.StripTitle(body, t)
			}
			fp.Markdown = body
			pageOf[p] = fp
			continue
		}
		page := markdownPage(body, strings.TrimSuffix(path.Base(p), path.Ext(p)))
		page.Slug = slugOr(strings.TrimSuffix(path.Base(p), path.Ext(p)), page.Slug)
		if isIndex(p) || p == readme {
			page.Slug = slugOr(page.Title, "home")
		}
		list := folder(dir)
		*list = append(*list, page)
		pageOf[p] = page
	}
	return top
}

func assignPaths(pages []*Page, parent string, out map[*Page]string) {
	for _, p := range pages {
		pp := p.Slug
		if parent != "" {
			pp = parent + "/" + p.Slug
		}
		out[p] = pp
		assignPaths(p.Children, pp, out)
	}
}

// rewriteLinks replaces the destinations of relative links and images in
// Markdown for which fn answers true (fragments are kept).
func rewriteLinks(src string, fn func(dest string) (string, bool)) string {
	repl := map[string]string{}
	for _, l := range markdown.Links(src) {
		if _, done := repl["]("+l.Dest]; done || strings.Contains(l.Dest, "://") || strings.HasPrefix(l.Dest, "#") || strings.HasPrefix(l.Dest, "mailto:") {
			continue
		}
		dest, frag, _ := strings.Cut(l.Dest, "#")
		r, ok := fn(dest)
		if !ok {
			repl["]("+l.Dest] = "](" + l.Dest // seen: asked once
			continue
		}
		if frag != "" {
			r += "#" + frag
		}
		repl["](<"+l.Dest+">"] = "](" + r
		repl["]("+l.Dest] = "](" + r
	}
	// References in GitBook blocks (content-ref url=, file src=, <img src=>).
	for _, ref := range markdown.GitBookRefs(src) {
		if strings.Contains(ref.Dest, "://") || strings.HasPrefix(ref.Dest, "#") {
			continue
		}
		dest, frag, _ := strings.Cut(ref.Dest, "#")
		if r, ok := fn(dest); ok {
			if frag != "" {
				r += "#" + frag
			}
			repl[ref.Key+ref.Dest+`"`] = ref.Key + r + `"`
		}
	}
	return replaceAll(src, repl)
}
