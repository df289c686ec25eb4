package graph_test

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"docsapi/apierr"
	"docsapi/apitest"
	"docsapi/auth"
)

// TestRevisionRepositoryRoundTrip: the fixture repository in GitBook's
// layout, imported as a zip through the API (stored pages, groups, link
// pages, front-matter fields, files), then laid out again from the stored
// revision, gives the same files byte for byte.
func TestRevisionRepositoryRoundTrip(t *testing.T) {
	const fixture = "../importer/testdata/gitbook-repo"
	files := map[string][]byte{}
	if err := filepath.WalkDir(fixture, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(fixture, p)
		files[filepath.ToSlash(rel)], err = os.ReadFile(p)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	var archive bytes.Buffer
	zw := zip.NewWriter(&archive)
	for _, name := range slices.Sorted(func(yield func(string) bool) {
		for k := range files {
			if !yield(k) {
				return
			}
		}
	}) {
		w, _ := zw.Create(name)
		w.Write(files[name])
	}
	zw.Close()
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write(archive.Bytes()) }))
	defer site.Close()

	env := apitest.New(t)
	space := env.Must(201, "POST", "/v1/orgs/"+env.Org+"/spaces", env.Admin.Token, map[string]any{"title": "Docs"}).JSON()["id"].(string)
	res := env.Must(201, "POST", "/v1/spaces/"+space+"/content/import", env.Admin.Token, map[string]any{"url": site.URL + "/docs.zip", "source": "zip"}).JSON()
	rev := res["revision"].(string)

	// Links between the pages and to the files (Markdown links, images and
	// GitBook blocks' references) all resolve.
	links := env.Must(200, "GET", "/v1/spaces/"+space+"/links", env.Admin.Token, nil).JSON()
	stats := links["stats"].(map[string]any)
	kinds := map[string]int{}
	for _, it := range links["items"].([]any) {
		kinds[it.(map[string]any)["targetReference"].(map[string]any)["kind"].(string)]++
	}
	// Targets: 5 pages (welcome, install, configuration, api, blocks), 4
	// files (spec.pdf, screenshot.png, diagram.png, diagram-dark.png), 2 URLs.
	if stats["broken"].(map[string]any)["total"].(float64) != 0 || kinds["page"] != 5 || kinds["file"] != 4 || kinds["url"] != 2 {
		t.Errorf("links of the imported repository: %v, targets by kind %v", stats, kinds)
	}

	ctx := auth.WithCaller(context.Background(), auth.Caller{UserID: env.Admin.ID, Kind: "api"})
	out, err := env.Server.Resolver.RevisionRepository(ctx, space, rev)
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range files {
		if got, ok := out[name]; !ok {
			t.Errorf("%s not written", name)
		} else if !bytes.Equal(got, want) {
			t.Errorf("%s differs:\n--- got\n%s\n--- want\n%s", name, got, want)
		}
	}
	for name := range out {
		if _, ok := files[name]; !ok {
			t.Errorf("%s written, not in the fixture", name)
		}
	}

	// Another organization's admin, and an unknown revision: not found.
	_, other := env.NewOrg("Other", "admin@other.test")
	octx := auth.WithCaller(context.Background(), auth.Caller{UserID: other.ID, Kind: "api"})
	var ae *apierr.Error
	if _, err := env.Server.Resolver.RevisionRepository(octx, space, rev); !errors.As(err, &ae) || ae.Status != 404 {
		t.Errorf("other organization: %v", err)
	}
	if _, err := env.Server.Resolver.RevisionRepository(ctx, space, "nope"); !errors.As(err, &ae) || ae.Status != 404 {
		t.Errorf("unknown revision: %v", err)
	}
}
