package site_test

import (
	"bytes"
	"io"
	"net/http"
	"strings"
	"testing"
)

// uploadFont sends a stand-in woff2 through the upload flow and answers
// the upload's key.
func (f *readerFixture) uploadFont(t *testing.T, data []byte) string {
	t.Helper()
	up := f.Must(201, "POST", "/v1/orgs/"+f.Org+"/storage/upload", f.Admin.Token, map[string]any{
		"kind": "customization_font", "file": map[string]any{"name": "font.woff2", "type": "font/woff2", "size": len(data)}}).JSON()
	req, _ := http.NewRequest("PUT", up["url"].(string), bytes.NewReader(data))
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 200 {
		t.Fatalf("upload: %s", res.Status)
	}
	return up["key"].(string)
}

// customize gives the site header links (one a menu, one a script URL),
// a footer and the custom font fontFile (a second face at another origin),
// and answers the URL docsapi serves the font's face at.
func (f *readerFixture) customize(t *testing.T, fontFile []byte) string {
	t.Helper()
	admin := f.Admin.Token
	font := f.Must(201, "PUT", "/v1/orgs/"+f.Org+"/fonts", admin, map[string]any{"fontFamily": "Acme Sans",
		"fontFaces": []map[string]any{{"weight": 400, "storageKey": f.uploadFont(t, fontFile)}}}).JSON()
	delete(font, "permissions")
	faces := font["fontFaces"].([]any)
	fontURL := faces[0].(map[string]any)["sources"].([]any)[0].(map[string]any)["url"].(string)
	faces = append(faces, map[string]any{"weight": 700, "sources": []any{map[string]any{"url": "https://fonts.elsewhere.test/bold.woff2", "format": "woff2"}}})
	font["fontFaces"] = faces

	var installID string
	for _, p := range f.Must(200, "GET", "/v1/spaces/"+f.guide+"/content", admin, nil).JSON()["pages"].([]any) {
		if pm := p.(map[string]any); pm["slug"] == "install" {
			installID = pm["id"].(string)
		}
	}
	if installID == "" {
		t.Fatal("no install page")
	}
	settings := f.Must(200, "GET", f.site+"/customization", admin, nil).JSON()
	settings["header"].(map[string]any)["links"] = []any{
		map[string]any{"title": "Status", "to": map[string]any{"kind": "url", "url": "https://status.example.com/"}, "links": []any{}},
		map[string]any{"title": "Guides", "to": nil, "links": []any{
			map[string]any{"title": "Installing", "to": map[string]any{"kind": "page", "page": installID}}}},
		map[string]any{"title": "Evil", "to": map[string]any{"kind": "url", "url": "javascript:alert(1)"}, "links": []any{}},
	}
	footer := settings["footer"].(map[string]any)
	footer["groups"] = []any{map[string]any{"title": "Company", "links": []any{
		map[string]any{"title": "About us", "to": map[string]any{"kind": "url", "url": "https://example.com/about"}}}}}
	footer["copyright"] = "© 2026 Acme <Inc>"
	footer["logo"] = map[string]any{"light": "https://example.com/logo.png", "dark": "https://example.com/logo-dark.png"}
	settings["styling"].(map[string]any)["font"] = font
	f.Must(200, "PUT", f.site+"/customization", admin, settings)
	return fontURL
}

// The site's header links, footer (groups, logo, copyright) and custom
// font show on its pages; links that are no http(s)/mailto URL or page of
// the site, and font files docsapi does not serve, are left out.
func TestSiteCustomizationApplied(t *testing.T) {
	f := newReaderFixture(t, "public")
	fontURL := f.customize(t, append([]byte("wOF2"), "regular"...))
	c := f.client(t)
	r := get(t, c, f.base+"/install")
	if r.status != 200 {
		t.Fatalf("%d %s", r.status, r.body)
	}
	path := fontURL[strings.Index(fontURL, "/fonts/"):]
	for _, want := range []string{
		`<a class="hlink" href="https://status.example.com/">Status</a>`,
		`<summary>Guides</summary>`, `href="` + f.basePath + `/install">Installing</a>`,
		`<p>Company</p>`, `<a href="https://example.com/about">About us</a>`,
		`<p class="copyright">© 2026 Acme &lt;Inc&gt;</p>`, `src="https://example.com/logo.png"`,
		`@font-face{font-family:"Acme Sans";font-weight:400;font-display:swap;src:url("`, path + `") format("woff2")}`,
		`html{font-family:"Acme Sans",system-ui`,
	} {
		if !strings.Contains(r.body, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	for _, not := range []string{"javascript:", "Evil", "fonts.elsewhere.test", "font-weight:700"} {
		if strings.Contains(r.body, not) {
			t.Errorf("page has %q", not)
		}
	}
	if csp := r.header.Get("Content-Security-Policy"); !strings.Contains(csp, "font-src 'self'") {
		t.Errorf("CSP %q", csp)
	}
	// The face's file answers where the page loads it from.
	res, err := http.Get(fontURL)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 || !bytes.HasPrefix(b, []byte("wOF2")) {
		t.Errorf("font file: %d", res.StatusCode)
	}
}
