package rest_test

import (
	"bytes"
	"io"
	"net/http"
	"strings"
	"testing"

	"docsapi/apitest"
)

// Authorization rules of the custom font routes: members read, admins edit.
func init() {
	fonts := func(f *fixture) string { return "/v1/orgs/" + f.Org + "/fonts" }
	font := func(f *fixture) string { return fonts(f) + "/" + f.IDs["font"] }
	faces := func(f *fixture) any {
		return map[string]any{"fontFamily": "Acme Sans", "fontFaces": []map[string]any{{"weight": 400, "storageKey": f.IDs["fontUpload"]}}}
	}
	fixtureSetups = append(fixtureSetups, func(f *fixture) {
		f.IDs["fontUpload"] = uploadFont(f.Env, f.ByRole["admin"].Token, woff2("regular"))
		f.IDs["font"] = f.Env.Must(201, "PUT", fonts(f), f.ByRole["admin"].Token, faces(f)).JSON()["id"].(string)
	})
	p := "/v1/orgs/{organizationId}/fonts"
	rules := map[string]authzRule{
		"GET " + p:                  {Min: "read", Path: fonts},
		"PUT " + p:                  {Min: "admin", Path: fonts, BodyFor: faces},
		"GET " + p + "/{fontId}":    {Min: "read", Path: font},
		"POST " + p + "/{fontId}":   {Min: "admin", Path: font, Body: map[string]any{"fontFamily": "Acme Serif"}},
		"DELETE " + p + "/{fontId}": {Min: "admin", Path: font},
	}
	for k, v := range rules {
		authzRules[k] = v
	}
}

// woff2 is a stand-in font file: the woff2 signature and some bytes.
func woff2(s string) []byte { return append([]byte("wOF2"), s...) }

// uploadFont sends data through the upload flow (kind customization_font)
// and answers the upload's key.
func uploadFont(env *apitest.Env, token string, data []byte) string {
	return uploadFontIn(env, env.Org, token, data)
}

func getURL(t *testing.T, url string) (*http.Response, []byte) {
	t.Helper()
	res, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res, b
}

func TestCustomFonts(t *testing.T) {
	env := apitest.New(t)
	admin := env.Admin.Token
	reader := env.NewUser("reader@acme.test", env.Org, "read").Token
	fonts := "/v1/orgs/" + env.Org + "/fonts"
	regular, bold := uploadFont(env, admin, woff2("regular")), uploadFont(env, admin, woff2("bold"))

	r := env.Must(201, "PUT", fonts, admin, map[string]any{"fontFamily": "Acme Sans", "fontFaces": []map[string]any{
		{"weight": 700, "storageKey": bold}, {"weight": 400, "storageKey": regular}}})
	f := body(t, r)
	apitest.Keys(t, f, "id", "custom", "fontFamily", "fontFaces", "permissions")
	id := f["id"].(string)
	faces := f["fontFaces"].([]any)
	if f["custom"] != true || f["fontFamily"] != "Acme Sans" || len(faces) != 2 || f["permissions"].(map[string]any)["edit"] != true {
		t.Fatalf("created: %s", r.Body)
	}
	face := faces[0].(map[string]any)
	src := face["sources"].([]any)[0].(map[string]any)
	if face["weight"] != 400.0 || src["format"] != "woff2" || !strings.HasPrefix(src["url"].(string), env.Server.Config.PublicURL+"/fonts/"+id+"/") {
		t.Fatalf("face: %v", face)
	}
	res, b := getURL(t, src["url"].(string))
	if res.StatusCode != 200 || string(b) != string(woff2("regular")) || res.Header.Get("Content-Type") != "font/woff2" ||
		!strings.Contains(res.Header.Get("Cache-Control"), "immutable") || res.Header.Get("Access-Control-Allow-Origin") != "*" {
		t.Fatalf("font file: %d %v %q", res.StatusCode, res.Header, b)
	}
	oldURL := src["url"].(string)

	// Members read, with edit false.
	got := body(t, env.Must(200, "GET", fonts+"/"+id, reader, nil))
	if got["permissions"].(map[string]any)["edit"] != false || got["fontFamily"] != "Acme Sans" {
		t.Errorf("reader's view: %v", got)
	}
	list := body(t, env.Must(200, "GET", fonts, reader, nil))
	if list["count"] != 1.0 || len(list["items"].([]any)) != 1 {
		t.Errorf("list: %v", list)
	}

	// GraphQL answers the same font.
	data, errs := env.GraphQL(reader, `query($o: ID!, $f: ID!) { customFont(organizationId: $o, fontId: $f) { id fontFamily fontFaces { weight sources { url format } } permissions { edit } } }`,
		map[string]any{"o": env.Org, "f": id})
	if len(errs) > 0 {
		t.Fatalf("graphql: %v", errs)
	}
	if g := data["customFont"].(map[string]any); g["fontFamily"] != "Acme Sans" || len(g["fontFaces"].([]any)) != 2 || g["permissions"].(map[string]any)["edit"] != false {
		t.Errorf("graphql font: %v", g)
	}

	// Replace 400, remove 700, rename: the replaced file has a new URL.
	regular2 := uploadFont(env, admin, woff2("regular v2"))
	u := body(t, env.Must(201, "POST", fonts+"/"+id, admin, map[string]any{"fontFamily": "Acme Sans 2", "fontFaces": []map[string]any{
		{"weight": 400, "storageKey": regular2}, {"weight": 700, "storageKey": nil}}}))
	faces = u["fontFaces"].([]any)
	if u["fontFamily"] != "Acme Sans 2" || len(faces) != 1 {
		t.Fatalf("updated: %v", u)
	}
	newURL := faces[0].(map[string]any)["sources"].([]any)[0].(map[string]any)["url"].(string)
	if res, b := getURL(t, newURL); res.StatusCode != 200 || string(b) != "wOF2regular v2" {
		t.Errorf("new file: %d %q", res.StatusCode, b)
	}
	if res, _ := getURL(t, oldURL); res.StatusCode != 404 {
		t.Errorf("replaced file: %d", res.StatusCode)
	}
	// Removing 400: 412, nothing changed.
	if r := env.Do("POST", fonts+"/"+id, admin, map[string]any{"fontFaces": []map[string]any{{"weight": 400, "storageKey": nil}}}); r.Status != 412 {
		t.Errorf("removing 400: %d %s", r.Status, r.Body)
	}

	// Validation.
	other, otherAdmin := env.NewOrg("Other", "admin@other.test")
	otherKey := uploadFontIn(env, other, otherAdmin.Token, woff2("x"))
	importKey := env.Must(201, "POST", "/v1/orgs/"+env.Org+"/storage/upload", admin, map[string]any{
		"kind": "import", "file": map[string]any{"name": "a.md", "type": "text/markdown", "size": 3}}).JSON()["key"].(string)
	notFont := uploadFont(env, admin, []byte("not a font"))
	tooLarge := uploadFont(env, admin, woff2(strings.Repeat("x", 5<<20)))
	for _, c := range []struct {
		name   string
		body   map[string]any
		status int
		field  string
	}{
		{"no 400", map[string]any{"fontFamily": "A", "fontFaces": []map[string]any{{"weight": 700, "storageKey": bold}}}, 412, "400"},
		{"unknown key", map[string]any{"fontFamily": "A", "fontFaces": []map[string]any{{"weight": 400, "storageKey": "nope"}}}, 400, "fontFaces[0].storageKey"},
		{"another org's key", map[string]any{"fontFamily": "A", "fontFaces": []map[string]any{{"weight": 400, "storageKey": otherKey}}}, 400, "fontFaces[0].storageKey"},
		{"never uploaded", map[string]any{"fontFamily": "A", "fontFaces": []map[string]any{{"weight": 400, "storageKey": importKey}}}, 400, "fontFaces[0].storageKey"},
		{"not a font", map[string]any{"fontFamily": "A", "fontFaces": []map[string]any{{"weight": 400, "storageKey": notFont}}}, 400, "fontFaces[0].storageKey"},
		{"too large", map[string]any{"fontFamily": "A", "fontFaces": []map[string]any{{"weight": 400, "storageKey": tooLarge}}}, 400, "fontFaces[0].storageKey"},
		{"weight", map[string]any{"fontFamily": "A", "fontFaces": []map[string]any{{"weight": 400, "storageKey": regular}, {"weight": 1001, "storageKey": bold}}}, 400, "fontFaces[1].weight"},
		{"family", map[string]any{"fontFamily": strings.Repeat("a", 51), "fontFaces": []map[string]any{{"weight": 400, "storageKey": regular}}}, 400, "fontFamily"},
		{"no faces", map[string]any{"fontFamily": "A", "fontFaces": []map[string]any{}}, 400, "fontFaces"},
	} {
		if r := env.Do("PUT", fonts, admin, c.body); r.Status != c.status || !strings.Contains(string(r.Body), c.field) {
			t.Errorf("%s: %d %s", c.name, r.Status, r.Body)
		}
	}

	// 401, 403, another organization's font, unknown font.
	if r := env.Do("GET", fonts, "", nil); r.Status != 401 {
		t.Errorf("no token: %d", r.Status)
	}
	if r := env.Do("PUT", fonts, reader, map[string]any{"fontFamily": "A", "fontFaces": []map[string]any{{"weight": 400, "storageKey": regular}}}); r.Status != 403 {
		t.Errorf("reader creating: %d %s", r.Status, r.Body)
	}
	if r := env.Do("GET", "/v1/orgs/"+other+"/fonts/"+id, otherAdmin.Token, nil); r.Status != 404 {
		t.Errorf("another organization's font: %d", r.Status)
	}
	if r := env.Do("GET", fonts+"/nope", admin, nil); r.Status != 404 {
		t.Errorf("unknown font: %d", r.Status)
	}
	if res, _ := getURL(t, env.Server.Config.PublicURL+"/fonts/"+id+"/nope.woff2"); res.StatusCode != 404 {
		t.Errorf("unknown file: %d", res.StatusCode)
	}

	// Delete: 205, then 204; the files go with the font.
	env.Must(205, "DELETE", fonts+"/"+id, admin, nil)
	env.Must(204, "DELETE", fonts+"/"+id, admin, nil)
	if res, _ := getURL(t, newURL); res.StatusCode != 404 {
		t.Errorf("a deleted font's file: %d", res.StatusCode)
	}

	// The audit log: one entry per change (the refused update left none).
	var logged []string
	for _, e := range items(t, env.Must(200, "GET", "/v1/orgs/"+env.Org+"/audit-log?action=custom_font.", admin, nil)) {
		logged = append(logged, e["action"].(string)+"/"+e["target"].(map[string]any)["id"].(string))
	}
	want := []string{"custom_font.deleted/" + id, "custom_font.updated/" + id, "custom_font.created/" + id}
	if strings.Join(logged, " ") != strings.Join(want, " ") {
		t.Errorf("audit log: %v, want %v", logged, want)
	}
}

func uploadFontIn(env *apitest.Env, org, token string, data []byte) string {
	up := env.Must(201, "POST", "/v1/orgs/"+org+"/storage/upload", token, map[string]any{
		"kind": "customization_font", "file": map[string]any{"name": "font.woff2", "type": "font/woff2", "size": len(data)}}).JSON()
	req, _ := http.NewRequest("PUT", up["url"].(string), bytes.NewReader(data))
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		panic(err)
	}
	res.Body.Close()
	if res.StatusCode != 200 {
		panic("upload: " + res.Status)
	}
	return up["key"].(string)
}
