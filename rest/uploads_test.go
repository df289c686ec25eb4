package rest_test

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"docsapi/apitest"
	"docsapi/server"
)

func init() {
	authzRules["POST /v1/orgs/{organizationId}/storage/upload"] = authzRule{Min: "member",
		Path: func(f *fixture) string { return "/v1/orgs/" + f.Org + "/storage/upload" },
		Body: map[string]any{"kind": "import", "file": map[string]any{"name": "a.md", "type": "text/markdown", "size": 3}}}
}

// put sends body to an upload URL (no token: the URL's signature is the
// authorization).
func put(t *testing.T, url string, body []byte) (int, string) {
	t.Helper()
	req, _ := http.NewRequest("PUT", url, bytes.NewReader(body))
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}

// Content in without a web server: an upload URL, a PUT of the file, an
// import from that URL, all with private fetches refused (the default).
func TestUploadThenImport(t *testing.T) {
	env := apitest.New(t, apitest.Options{Config: func(c *server.Config) { c.AllowPrivateFetch = false }})
	admin := env.Admin.Token
	space := env.Must(201, "POST", "/v1/orgs/"+env.Org+"/spaces", admin, map[string]any{"title": "Docs"}).JSON()["id"].(string)
	archive := zipOf(t, map[string][]byte{"README.md": []byte("# Home\n\nSee [the guide](guide.md).\n"), "guide.md": []byte("# Guide\n\nSteps.\n")})

	r := env.Must(201, "POST", "/v1/orgs/"+env.Org+"/storage/upload", admin, map[string]any{
		"kind": "import", "file": map[string]any{"name": "docs.zip", "type": "application/zip", "size": len(archive)}})
	apitest.Keys(t, body(t, r), "object", "url", "key")
	up := r.JSON()
	if up["object"] != "storage-signed-url" || !strings.Contains(up["url"].(string), "/uploads/"+up["key"].(string)+"?token=") {
		t.Fatalf("upload URL: %v", up)
	}
	url := up["url"].(string)

	if status, msg := put(t, strings.Replace(url, "?token=", "?token=x", 1), archive); status != 401 {
		t.Errorf("a forged signature: %d %s", status, msg)
	}
	if status, msg := put(t, url, archive[:len(archive)-1]); status != 400 || !strings.Contains(msg, "bytes") {
		t.Errorf("a shorter file: %d %s", status, msg)
	}
	if status, msg := put(t, url, append(archive, 'x')); status != 413 {
		t.Errorf("a longer file: %d %s", status, msg)
	}
	if status, msg := put(t, url, archive); status != 200 {
		t.Fatalf("the upload: %d %s", status, msg)
	}
	if status, _ := put(t, url, archive); status != 409 {
		t.Errorf("a second file to the same URL: %d, want 409", status)
	}

	imp := env.Must(201, "POST", "/v1/spaces/"+space+"/content/import", admin, map[string]any{"source": "zip", "url": url}).JSON()
	if imp["importedResources"].(float64) != 2 {
		t.Errorf("import: %v", imp)
	}
	pages := string(env.Must(200, "GET", "/v1/spaces/"+space+"/content/pages", admin, nil).Body)
	if !strings.Contains(pages, `"title":"Home"`) || !strings.Contains(pages, `"title":"Guide"`) {
		t.Errorf("imported pages: %s", pages)
	}

	// Another organization's space cannot import this organization's upload.
	otherOrg, other := env.NewOrg("Other", "admin@other.test")
	otherSpace := env.Must(201, "POST", "/v1/orgs/"+otherOrg+"/spaces", other.Token, map[string]any{"title": "Theirs"}).JSON()["id"].(string)
	if r := env.Do("POST", "/v1/spaces/"+otherSpace+"/content/import", other.Token, map[string]any{"source": "zip", "url": url}); r.Status != 400 || !strings.Contains(string(r.Body), "no upload") {
		t.Errorf("another organization importing the upload: %d %s", r.Status, r.Body)
	}
	// Any other loopback URL is still refused (no private fetch).
	if r := env.Do("POST", "/v1/spaces/"+space+"/content/import", admin, map[string]any{"source": "markdown", "url": env.HTTP.URL + "/healthz"}); r.Status != 400 {
		t.Errorf("a loopback URL that is no upload: %d %s", r.Status, r.Body)
	}
}

func TestUploadRefusals(t *testing.T) {
	env := apitest.New(t)
	admin := env.Admin.Token
	p := "/v1/orgs/" + env.Org + "/storage/upload"
	file := func(name string, size any) map[string]any {
		return map[string]any{"kind": "import", "file": map[string]any{"name": name, "type": "text/markdown", "size": size}}
	}
	env.Run(t, []apitest.Scenario{
		{Name: "no token", Method: "POST", Path: p, Body: file("a.md", 3), Status: 401},
		{Name: "empty name", Method: "POST", Path: p, Token: admin, Body: file("", 3), Status: 400, Contains: []string{"file.name"}},
		{Name: "a path for a name", Method: "POST", Path: p, Token: admin, Body: file("../a.md", 3), Status: 400, Contains: []string{"file.name"}},
		{Name: "no bytes", Method: "POST", Path: p, Token: admin, Body: file("a.md", 0), Status: 400, Contains: []string{"file.size"}},
		{Name: "too large", Method: "POST", Path: p, Token: admin, Body: file("a.md", 1<<40), Status: 400, Contains: []string{"file.size"}},
		{Name: "a fraction of a byte", Method: "POST", Path: p, Token: admin, Body: file("a.md", 2.5), Status: 400, Contains: []string{"file.size"}},
		{Name: "unknown kind", Method: "POST", Path: p, Token: admin, Status: 400, Contains: []string{"kind"},
			Body: map[string]any{"kind": "video", "file": map[string]any{"name": "a.md", "type": "text/markdown", "size": 3}}},
		{Name: "unknown organization", Method: "POST", Path: "/v1/orgs/nosuchorg/storage/upload", Token: admin, Body: file("a.md", 3), Status: 404},
	})
	// One organization keeps at most 20 uploads waiting: the next is refused
	// until they are used or purged.
	for i := 0; ; i++ {
		url := env.Must(201, "POST", p, admin, file("a.md", 3)).JSON()["url"].(string)
		status, msg := put(t, url, []byte("abc"))
		if i < 20 && status != 200 || i == 20 && status != 429 {
			t.Fatalf("upload %d: %d %s", i+1, status, msg)
		}
		if i == 20 {
			break
		}
	}
}

// TestUploadTakesADocsRepositoryAtTheDefaults: with the default limits an
// upload URL is signed for the zip of a real documentation repository (600
// assets, 127 MiB; over the old 100 MiB default) and its PUT passes the
// body bound, while a file over the default is refused before a byte is
// read: at signing (400 naming file.size) and at the PUT's declared length
// (413). The bytes themselves are not sent: sizes are what is checked.
func TestUploadTakesADocsRepositoryAtTheDefaults(t *testing.T) {
	env := apitest.New(t)
	p := "/v1/orgs/" + env.Org + "/storage/upload"
	file := func(size int64) map[string]any {
		return map[string]any{"kind": "import", "file": map[string]any{"name": "docs.zip", "type": "application/zip", "size": size}}
	}
	const docs = 127 << 20
	url := env.Must(201, "POST", p, env.Admin.Token, file(docs)).JSON()["url"].(string)
	env.Run(t, []apitest.Scenario{
		{Name: "one byte over the default", Method: "POST", Path: p, Token: env.Admin.Token, Body: file(256<<20 + 1), Status: 400, Contains: []string{"file.size", "268435456"}},
	})
	// A PUT declaring the repository's size gets through the body bound to
	// the upload, which finds fewer bytes than signed for (400, not 413).
	path := strings.TrimPrefix(url, env.HTTP.URL)
	req := httptest.NewRequest("PUT", path, strings.NewReader("PK"))
	req.ContentLength = docs
	w := httptest.NewRecorder()
	env.Server.ServeHTTP(w, req)
	if w.Code != 400 || !strings.Contains(w.Body.String(), "not the 133169152") {
		t.Errorf("PUT declaring 127 MiB: %d %s", w.Code, w.Body)
	}
	req = httptest.NewRequest("PUT", path, strings.NewReader("PK"))
	req.ContentLength = 256<<20 + 1
	w = httptest.NewRecorder()
	env.Server.ServeHTTP(w, req)
	if w.Code != 413 {
		t.Errorf("PUT declaring one byte over the default: %d %s", w.Code, w.Body)
	}
}
