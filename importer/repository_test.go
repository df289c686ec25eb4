package importer

import (
	"archive/zip"
	"bytes"
	"context"
	"strconv"
	"strings"
	"testing"
)

func repoFiles(entries map[string]string) map[string][]byte {
	out := map[string][]byte{}
	for k, v := range entries {
		out[k] = []byte(v)
	}
	return out
}

// TestRepositoryLayout: .gitbook.yaml root and structure, SUMMARY groups,
// link titles, anchor entries, front matter and links to pages and assets.
func TestRepositoryLayout(t *testing.T) {
	res, err := Repository(context.Background(), repoFiles(map[string]string{
		".gitbook.yaml":                 "root: ./docs/\nstructure:\n  readme: intro.md\n  summary: toc.md\n",
		"other/x.md":                    "# Outside the root\n",
		"docs/toc.md":                   "# Table of contents\n\n* [Welcome](intro.md)\n\n## Guides\n\n* [Start \\[here\\]](guides/README.md \"Start here\")\n  * [Install](guides/install.md)\n  * [Install options](guides/install.md#options)\n\n## Reference\n\n* [API](api.md)\n* [Site](https://example.com/)\n",
		"docs/intro.md":                 "---\ndescription: >-\n  The first page.\nicon: house\n---\n\n# Welcome\n\nSee [install](guides/install.md#options) and ![shot](.gitbook/assets/shot.png).\n",
		"docs/guides/README.md":         "# Start here\n\nGuides.\n",
		"docs/guides/install.md":        "---\nhidden: true\nlayout:\n  title:\n    visible: false\n---\n# Install\n\n## Options\n\nBack to [the start](../intro.md).\n",
		"docs/api.md":                   "# API\n",
		"docs/.gitbook/assets/shot.png": "\x89PNG",
		"docs/.gitbook/assets/spec.pdf": "%PDF",
	}), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	var walk func([]*Page, string)
	walk = func(ps []*Page, indent string) {
		for _, p := range ps {
			line := indent + p.Kind + ":" + p.Title + "/" + p.Slug
			if p.Target != nil {
				line += "->" + p.Target.Title + "#" + p.Anchor
			}
			if p.URL != "" {
				line += "->" + p.URL
			}
			got = append(got, line)
			walk(p.Children, indent+"  ")
		}
	}
	walk(res.Pages, "")
	want := []string{
		":Welcome/welcome",
		"group:Guides/guides",
		"  :Start [here]/guides",
		"    :Install/install",
		"    link:Install options/install-options->Install#options",
		"group:Reference/reference",
		"  :API/api",
		"  link:Site/site->https://example.com/",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("tree:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	intro := res.Pages[0]
	if intro.Description != "The first page." || intro.Icon != "house" {
		t.Errorf("front matter: %q %q", intro.Description, intro.Icon)
	}
	if !strings.Contains(intro.Markdown, "](guides/guides/install#options)") || !strings.Contains(intro.Markdown, "](shot.png)") || strings.Contains(intro.Markdown, "description:") {
		t.Errorf("intro body: %q", intro.Markdown)
	}
	install := res.Pages[1].Children[0].Children[0]
	if !install.Hidden || install.Layout == nil || !strings.Contains(install.Markdown, "](../../welcome)") {
		t.Errorf("install: hidden %v layout %v body %q", install.Hidden, install.Layout, install.Markdown)
	}
	if len(res.Files) != 2 {
		t.Errorf("files: %d", len(res.Files))
	}
}

// TestRealSizedRepository: a documentation repository the size of a real
// GitBook space (600 assets, 130 MiB, 182 pages under 12 groups) imports
// with the default limits, as a zip archive and as a repository tree.
func TestRealSizedRepository(t *testing.T) {
	const assets, total = 600, 130 << 20
	files := map[string][]byte{}
	var summary strings.Builder
	summary.WriteString("# Table of contents\n\n* [Home](README.md)\n")
	files["README.md"] = []byte("# Home\n")
	for g := range 12 {
		summary.WriteString("\n## Group " + strconv.Itoa(g) + "\n\n")
		for p := range 15 {
			name := "g" + strconv.Itoa(g) + "/p" + strconv.Itoa(p) + ".md"
			summary.WriteString("* [Page " + strconv.Itoa(p) + "](" + name + ")\n")
			files[name] = []byte("# Page\n\n![shot](../.gitbook/assets/a" + strconv.Itoa(g*15+p) + ".png)\n")
		}
	}
	files["SUMMARY.md"] = []byte(summary.String())
	asset := bytes.Repeat([]byte{0x89}, total/assets)
	for i := range assets {
		files[".gitbook/assets/a"+strconv.Itoa(i)+".png"] = asset
	}
	res, err := Repository(context.Background(), files, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Files) != assets || len(res.Pages) != 13 || len(res.Pages[12].Children) != 15 {
		t.Fatalf("%d files, %d top-level pages", len(res.Files), len(res.Pages))
	}
	if !strings.Contains(res.Pages[1].Children[0].Markdown, "](a0.png)") {
		t.Errorf("asset link: %q", res.Pages[1].Children[0].Markdown)
	}
	// The same as a zip (stored, not deflated: images do not shrink).
	var archive bytes.Buffer
	zw := zip.NewWriter(&archive)
	for name, data := range files {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: "docs/" + name, Method: zip.Store})
		if err != nil {
			t.Fatal(err)
		}
		w.Write(data)
	}
	zw.Close()
	clear(files)
	if archive.Len() < total {
		t.Fatalf("archive of %d bytes", archive.Len())
	}
	res, err = Zip(context.Background(), archive.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Files) != assets || len(res.Pages) != 13 {
		t.Fatalf("zip: %d files, %d top-level pages", len(res.Files), len(res.Pages))
	}
}
