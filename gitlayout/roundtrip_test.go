package gitlayout

import (
	"bytes"
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"docsapi/importer"
	"docsapi/markdown"
)

const fixture = "../importer/testdata/gitbook-repo"

func readFixture(t *testing.T) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := filepath.WalkDir(fixture, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(fixture, p)
		data, err := os.ReadFile(p)
		out[filepath.ToSlash(rel)] = data
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// inputOf is what a revision made by importing res holds: the pages with
// ids, link pages' targets as content references, the files.
func inputOf(res *importer.Result) RepositoryInput {
	ids := map[*importer.Page]string{}
	n := 0
	res.AssignReusableIDs(func() string { n++; return "rc" + strconv.Itoa(n) })
	var number func([]*importer.Page)
	number = func(ps []*importer.Page) {
		for _, p := range ps {
			n++
			ids[p] = "p" + strconv.Itoa(n)
			number(p.Children)
		}
	}
	number(res.Pages)
	var conv func([]*importer.Page) []*Page
	conv = func(ps []*importer.Page) []*Page {
		var out []*Page
		for _, p := range ps {
			q := &Page{ID: ids[p], Kind: "document", Title: p.Title, Slug: p.Slug, Markdown: p.Markdown,
				Description: p.Description, Icon: p.Icon, Hidden: p.Hidden, Layout: p.Layout, Children: conv(p.Children)}
			switch p.Kind {
			case "group":
				q.Kind = "group"
			case "link":
				q.Kind = "link"
				if p.URL != "" {
					q.Target = map[string]any{"kind": "url", "url": p.URL}
				} else {
					q.Target = map[string]any{"kind": "anchor", "page": ids[p.Target], "anchor": p.Anchor}
				}
			}
			out = append(out, q)
		}
		return out
	}
	in := RepositoryInput{Pages: conv(res.Pages)}
	for _, rc := range res.Reusable {
		in.Reusable = append(in.Reusable, Reusable{ID: rc.ID, Title: rc.Title, Markdown: rc.Markdown})
	}
	for i, f := range res.Files {
		in.Files = append(in.Files, File{ID: "f" + strconv.Itoa(i), Name: f.Name, Data: f.Data})
	}
	return in
}

// TestReadThenWrite: the fixture repository (every GitBook block kind,
// groups, nesting, front matter, anchors, links to pages and files, in
// pages and in a reusable content) imported then written gives the same
// files, byte for byte.
func TestReadThenWrite(t *testing.T) {
	files := readFixture(t)
	res, err := importer.Repository(context.Background(), files, importer.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	// The reusable content's relative links are stored as the page's
	// path from the top and the file's name, as the links analysis reads
	// them; the export writes them back relative to .gitbook/includes/.
	if len(res.Reusable) != 1 || !strings.Contains(res.Reusable[0].Markdown, "](guides/getting-started/install#options)") ||
		!strings.Contains(res.Reusable[0].Markdown, "](diagram.png)") {
		t.Errorf("reusable content read as:\n%+v", res.Reusable)
	}
	out, err := WriteRepository(inputOf(res))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range sortedKeys(files) {
		if got, ok := out[name]; !ok {
			t.Errorf("%s not written", name)
		} else if !bytes.Equal(got, files[name]) {
			t.Errorf("%s differs:\n--- got\n%s\n--- want\n%s", name, got, files[name])
		}
	}
	for _, name := range sortedKeys(out) {
		if _, ok := files[name]; !ok {
			t.Errorf("%s written, not in the fixture", name)
		}
	}
}

// TestWriteThenRead: content written then imported gives the same pages,
// tree, fields, files and documents.
func TestWriteThenRead(t *testing.T) {
	res, err := importer.Repository(context.Background(), readFixture(t), importer.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	in := inputOf(res)
	out, err := WriteRepository(in)
	if err != nil {
		t.Fatal(err)
	}
	again, err := importer.Repository(context.Background(), out, importer.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	back := inputOf(again)
	var flat func([]*Page, []*Page) []*Page
	flat = func(ps []*Page, acc []*Page) []*Page {
		for _, p := range ps {
			acc = flat(p.Children, append(acc, p))
		}
		return acc
	}
	a, b := flat(in.Pages, nil), flat(back.Pages, nil)
	if len(a) != len(b) {
		t.Fatalf("%d pages, then %d", len(a), len(b))
	}
	for i := range a {
		pa, pb := *a[i], *b[i]
		pa.Children, pb.Children = nil, nil
		if !reflect.DeepEqual(pa, pb) {
			t.Errorf("page %d:\n%+v\nthen\n%+v", i, pa, pb)
		}
		da, _ := json.Marshal(markdown.ToDocument(a[i].Markdown, nil))
		db, _ := json.Marshal(markdown.ToDocument(b[i].Markdown, nil))
		if !bytes.Equal(da, db) {
			t.Errorf("page %s: documents differ", a[i].Title)
		}
	}
	if !reflect.DeepEqual(in.Files, back.Files) {
		t.Errorf("files differ: %d then %d", len(in.Files), len(back.Files))
	}
	if len(in.Reusable) != 1 || !reflect.DeepEqual(in.Reusable, back.Reusable) {
		t.Errorf("reusable contents: %+v then %+v", in.Reusable, back.Reusable)
	}
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// TestWriteLinksAsTheAnalysisReadsThem: links written through the API in
// the forms the links analysis understands (a .md suffix, README naming
// the folder, a path from the top, a file by name under a folder, relative
// to the page itself) become relative paths between the files.
func TestWriteLinksAsTheAnalysisReadsThem(t *testing.T) {
	in := RepositoryInput{
		Pages: []*Page{
			{ID: "h", Kind: "document", Title: "Home", Slug: "home", Markdown: "[a](guide/install.md) [b](guide/README.md) [c](/guide) ![d](images/shot.png) [e](https://example.com/x.md) [f](nowhere.md)\n"},
			{ID: "g", Kind: "document", Title: "Guide", Slug: "guide", Markdown: "[g](install#step) [h](../home)\n", Children: []*Page{
				{ID: "i", Kind: "document", Title: "Install", Slug: "install"},
			}},
		},
		Files: []File{{ID: "f", Name: "shot.png", Data: []byte("png")}},
	}
	out, err := WriteRepository(in)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"README.md":        "# Home\n\n[a](guide/install.md) [b](guide/README.md) [c](guide/README.md) ![d](.gitbook/assets/shot.png) [e](https://example.com/x.md) [f](nowhere.md)\n",
		"guide/README.md":  "# Guide\n\n[g](install.md#step) [h](../README.md)\n",
		"guide/install.md": "# Install\n",
	}
	for name, body := range want {
		if string(out[name]) != body {
			t.Errorf("%s:\n got %q\nwant %q", name, out[name], body)
		}
	}
}
