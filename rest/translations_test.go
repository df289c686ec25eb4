package rest_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"docsapi/apitest"
	"docsapi/server"
	"docsapi/translate"
)

var translationKeys = []string{"object", "id", "status", "source", "language", "instructions", "createdAt", "updatedAt", "stats", "permissions", "urls"}

// libre is a local LibreTranslate-compatible server that "translates" by
// upper-casing, so anything still in lower case was not sent.
type libre struct {
	*httptest.Server
	requests, texts atomic.Int64
	fail            atomic.Bool // answer 500
}

func newLibre(t testing.TB, key string) *libre {
	l := &libre{}
	l.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var in struct {
			Q      json.RawMessage `json:"q"`
			Source string          `json:"source"`
			Target string          `json:"target"`
			Format string          `json:"format"`
			APIKey string          `json:"api_key"`
		}
		w.Header().Set("Content-Type", "application/json")
		if r.Method != http.MethodPost || r.URL.Path != "/translate" || json.NewDecoder(r.Body).Decode(&in) != nil || in.Format != "text" || in.Source == "" || in.Target == "" {
			w.WriteHeader(400)
			w.Write([]byte(`{"error":"bad request"}`))
			return
		}
		if in.APIKey != key {
			w.WriteHeader(403)
			w.Write([]byte(`{"error":"Invalid API key"}`))
			return
		}
		if l.fail.Load() {
			w.WriteHeader(500)
			w.Write([]byte(`{"error":"model crashed"}`))
			return
		}
		l.requests.Add(1)
		var list []string
		if json.Unmarshal(in.Q, &list) != nil {
			var one string
			json.Unmarshal(in.Q, &one)
			json.NewEncoder(w).Encode(map[string]any{"translatedText": libreText(one, in.Target)})
			l.texts.Add(1)
			return
		}
		out := make([]string, len(list))
		for i, s := range list {
			out[i] = libreText(s, in.Target)
		}
		l.texts.Add(int64(len(list)))
		json.NewEncoder(w).Encode(map[string]any{"translatedText": out})
	}))
	t.Cleanup(l.Close)
	return l
}

// libreText is the test server's "translation": upper case, and a leading
// "tag:" becomes "[<target>]", so a translation can bring markup characters.
func libreText(s, target string) string {
	if rest, ok := strings.CutPrefix(s, "tag:"); ok {
		return "[" + target + "]" + strings.ToUpper(rest)
	}
	return strings.ToUpper(s)
}

// translationEnv is a server whose translation provider is l.
func translationEnv(t testing.TB, l *libre, key string) *apitest.Env {
	return apitest.New(t, apitest.Options{Config: func(c *server.Config) {
		c.TranslateURL, c.TranslateKey = l.URL, key
		c.AllowPrivateFetch = false // the configured provider is trusted without it
	}})
}

// runTranslations runs the translation queue until it is empty.
func runTranslations(t *testing.T, env *apitest.Env) []translate.Result {
	t.Helper()
	r := env.Server.TranslationRunner()
	var results []translate.Result
	prev := r.After
	r.After = func(res translate.Result) {
		results = append(results, res)
		if prev != nil {
			prev(res) // the server's metrics
		}
	}
	defer func() { r.After = prev }()
	if _, err := r.RunPending(context.Background()); err != nil {
		t.Fatal(err)
	}
	return results
}

// addPage creates a page through GraphQL and returns its id.
func addPage(t *testing.T, env *apitest.Env, space string, input map[string]any) string {
	t.Helper()
	data := gqlData(t, env, env.Admin.Token, `mutation($t: ContentTarget!, $in: CreatePageInput!) { createPage(target: $t, input: $in) { page { id } } }`,
		map[string]any{"t": map[string]any{"space": space}, "in": input})
	return data["createPage"].(map[string]any)["page"].(map[string]any)["id"].(string)
}

func translationBody(space string) map[string]any {
	return map[string]any{"language": "fr", "source": map[string]any{"space": space, "language": "en"}}
}

func TestTranslationCRUD(t *testing.T) {
	env := apitest.New(t)
	org := "/v1/orgs/" + env.Org + "/translations"
	space := newSpace(t, env, env.Org)
	reader := env.NewUser("reader@acme.test", env.Org, "read")
	creator := env.NewUser("creator@acme.test", env.Org, "create")
	reviewer := env.NewUser("reviewer@acme.test", env.Org, "review")
	otherOrg, foreign := env.NewOrg("Other", "admin@other.test")
	foreignSpace := env.Must(201, "POST", "/v1/orgs/"+otherOrg+"/spaces", foreign.Token, map[string]any{"title": "Theirs"}).JSON()["id"].(string)
	doc := map[string]any{"object": "document", "data": map[string]any{"schemaVersion": 1},
		"nodes": []any{map[string]any{"object": "block", "type": "paragraph", "nodes": []any{map[string]any{"object": "text", "leaves": []any{}}}}}}
	with := func(k string, v any) map[string]any {
		b := translationBody(space)
		b[k] = v
		return b
	}
	var id string
	env.Run(t, []apitest.Scenario{
		{Name: "create", Method: "POST", Path: org, Token: creator.Token, Status: 201, Body: with("instructions", doc), Check: func(r apitest.Response) {
			tr := r.JSON()
			apitest.Keys(t, tr, translationKeys...)
			id = tr["id"].(string)
			if tr["object"] != "translation" || tr["status"] != "pending" || tr["language"] != "fr" || tr["result"] != nil {
				t.Errorf("translation %v", tr)
			}
			src := tr["source"].(map[string]any)
			if src["space"] != space || src["language"] != "en" {
				t.Errorf("source %v", src)
			}
			apitest.Keys(t, tr["stats"].(map[string]any), "runs", "totalWords", "totalPages", "totalDuration", "latestRunDuration", "latestPages", "latestWords", "totalDurationMs", "latestRunDurationMs")
			apitest.Keys(t, tr["permissions"].(map[string]any), "view", "edit")
			sameJSON(t, "instructions", tr["instructions"], doc)
			if loc := r.Header.Get("Location"); !strings.HasSuffix(loc, org+"/"+id) {
				t.Errorf("Location %q", loc)
			}
		}},
		{Name: "create without instructions", Method: "POST", Path: org, Token: env.Admin.Token, Status: 201, Body: translationBody(space), Check: func(r apitest.Response) {
			sameJSON(t, "default instructions", r.JSON()["instructions"], map[string]any{"object": "document", "data": map[string]any{}, "nodes": []any{}})
		}},
		{Name: "language missing", Method: "POST", Path: org, Token: env.Admin.Token, Status: 400,
			Body: map[string]any{"source": map[string]any{"space": space, "language": "en"}}, Contains: names("language")},
		{Name: "language not in the list", Method: "POST", Path: org, Token: env.Admin.Token, Status: 400, Body: with("language", "xx"), Contains: names("language")},
		{Name: "language same as source", Method: "POST", Path: org, Token: env.Admin.Token, Status: 400, Body: with("language", "en"), Contains: names("language")},
		{Name: "source missing", Method: "POST", Path: org, Token: env.Admin.Token, Status: 400, Body: map[string]any{"language": "fr"}, Contains: names("source")},
		{Name: "source space missing", Method: "POST", Path: org, Token: env.Admin.Token, Status: 400,
			Body: with("source", map[string]any{"language": "en"}), Contains: names("source.space")},
		{Name: "source language bad", Method: "POST", Path: org, Token: env.Admin.Token, Status: 400,
			Body: with("source", map[string]any{"space": space, "language": "klingon"}), Contains: names("source.language")},
		{Name: "source space unknown", Method: "POST", Path: org, Token: env.Admin.Token, Status: 400,
			Body: with("source", map[string]any{"space": "nope", "language": "en"}), Contains: names("source.space")},
		{Name: "source space of another organization", Method: "POST", Path: org, Token: env.Admin.Token, Status: 400,
			Body: with("source", map[string]any{"space": foreignSpace, "language": "en"}), Contains: names("source.space")},
		{Name: "instructions not a document", Method: "POST", Path: org, Token: env.Admin.Token, Status: 400,
			Body: with("instructions", map[string]any{"object": "block", "data": map[string]any{}, "nodes": []any{}}), Contains: names("instructions.object")},
		{Name: "instructions without nodes", Method: "POST", Path: org, Token: env.Admin.Token, Status: 400,
			Body: with("instructions", map[string]any{"object": "document", "data": map[string]any{}}), Contains: names("instructions.nodes")},
		{Name: "instructions with a bad block", Method: "POST", Path: org, Token: env.Admin.Token, Status: 400,
			Body: with("instructions", map[string]any{"object": "document", "data": map[string]any{}, "nodes": []any{map[string]any{"object": "block"}}}), Contains: names("instructions.nodes")},
		{Name: "instructions wrong type", Method: "POST", Path: org, Token: env.Admin.Token, Status: 400, Body: with("instructions", "translate well"), Contains: []string{"instructions"}},
		{Name: "create below create role", Method: "POST", Path: org, Token: reviewer.Token, Status: 403, Body: translationBody(space)},
		{Name: "create without token", Method: "POST", Path: org, Status: 401, Body: translationBody(space)},
		{Name: "create in another organization", Method: "POST", Path: org, Token: foreign.Token, Status: 404, Body: translationBody(space)},
	})
	one := org + "/" + id
	env.Run(t, []apitest.Scenario{
		{Name: "list as reader", Method: "GET", Path: org + "?limit=1", Token: reader.Token, Status: 200, Check: func(r apitest.Response) {
			l := r.JSON()
			if l["count"] != float64(2) || len(items(t, r)) != 1 || l["next"] == nil {
				t.Errorf("list %v", l)
			}
			if p := items(t, r)[0]["permissions"].(map[string]any); p["view"] != true || p["edit"] != false {
				t.Errorf("reader permissions %v", p)
			}
		}},
		{Name: "get", Method: "GET", Path: one, Token: reader.Token, Status: 200, Check: func(r apitest.Response) { apitest.Keys(t, r.JSON(), translationKeys...) }},
		{Name: "get unknown", Method: "GET", Path: org + "/nope", Token: reader.Token, Status: 404},
		{Name: "get from another organization", Method: "GET", Path: one, Token: foreign.Token, Status: 404},
		{Name: "get in the wrong organization's path", Method: "GET", Path: "/v1/orgs/" + otherOrg + "/translations/" + id, Token: foreign.Token, Status: 404},
		{Name: "put instructions", Method: "PUT", Path: one, Token: creator.Token, Status: 200,
			Body: map[string]any{"instructions": map[string]any{"object": "document", "data": map[string]any{"tone": "formal"}, "nodes": []any{}}},
			Check: func(r apitest.Response) {
				if d := r.JSON()["instructions"].(map[string]any)["data"].(map[string]any); d["tone"] != "formal" {
					t.Errorf("instructions %v", r.JSON()["instructions"])
				}
			}},
		{Name: "put without instructions", Method: "PUT", Path: one, Token: creator.Token, Status: 400, Body: map[string]any{}, Contains: names("instructions")},
		{Name: "put schemaVersion not an integer", Method: "PUT", Path: one, Token: creator.Token, Status: 400,
			Body: map[string]any{"instructions": map[string]any{"object": "document", "data": map[string]any{"schemaVersion": 1.5}, "nodes": []any{}}}, Contains: names("instructions.data.schemaVersion")},
		{Name: "put below create role", Method: "PUT", Path: one, Token: reviewer.Token, Status: 403, Body: map[string]any{"instructions": doc}},
		{Name: "put unknown", Method: "PUT", Path: org + "/nope", Token: creator.Token, Status: 404, Body: map[string]any{"instructions": doc}},
		{Name: "run unknown", Method: "POST", Path: org + "/nope/run", Token: creator.Token, Status: 404},
		{Name: "run below create role", Method: "POST", Path: one + "/run", Token: reviewer.Token, Status: 403},
		{Name: "run", Method: "POST", Path: one + "/run", Token: creator.Token, Status: 202, Check: func(r apitest.Response) {
			if r.JSON()["status"] != "pending" {
				t.Errorf("run %v", r.JSON())
			}
		}},
	})

	// GraphQL answers the same translation and the same refusals.
	data := gqlData(t, env, reader.Token, `query($o: ID!, $id: ID!) { translation(organizationId: $o, translationId: $id) {
 object id status source { space language } language instructions createdAt updatedAt
 stats { runs totalWords totalPages totalDuration latestRunDuration latestPages latestWords totalDurationMs latestRunDurationMs }
 permissions { view edit } urls { location } } }`, map[string]any{"o": env.Org, "id": id})
	rest := env.Must(200, "GET", one, reader.Token, nil).JSON()
	gq := data["translation"].(map[string]any)
	gq["status"], gq["language"] = strings.ToLower(gq["status"].(string)), strings.ToLower(gq["language"].(string))
	src := gq["source"].(map[string]any)
	src["language"] = strings.ToLower(src["language"].(string))
	sameJSON(t, "GraphQL translation", gq, rest)
	gqlRefusal(t, env, env.Admin.Token, `mutation($o: ID!, $s: ID!) { createTranslation(organizationId: $o, input: {language: FR, source: {space: $s, language: FR}}) { id } }`,
		map[string]any{"o": env.Org, "s": space}, "BAD_REQUEST", 400)
	gqlRefusal(t, env, reviewer.Token, `mutation($o: ID!, $id: ID!) { runTranslation(organizationId: $o, translationId: $id) { id } }`,
		map[string]any{"o": env.Org, "id": id}, "FORBIDDEN", 403)
	gqlRefusal(t, env, foreign.Token, `query($o: ID!, $id: ID!) { translation(organizationId: $o, translationId: $id) { id } }`,
		map[string]any{"o": env.Org, "id": id}, "NOT_FOUND", 404)

	env.Run(t, []apitest.Scenario{
		{Name: "delete below create role", Method: "DELETE", Path: one, Token: reviewer.Token, Status: 403},
		{Name: "delete", Method: "DELETE", Path: one, Token: creator.Token, Status: 205},
		{Name: "delete again", Method: "DELETE", Path: one, Token: creator.Token, Status: 204},
		{Name: "gone", Method: "GET", Path: one, Token: creator.Token, Status: 404, Contains: []string{"translation"}},
	})
}

// The source space of the run tests: a document page with every kind of
// Markdown structure, a child page, a group and a link page.
const introMarkdown = "Install the tool with `npm install tool` and read\nthe [guide](https://example.com/guide \"the guide\").\n\n" +
	"## Steps\n\n- open the *terminal*\n- run **it**\n\n```sh\necho \"hello world\"\n```\n\n" +
	"![a diagram](diagram.png)\n\n> a quote\n\n| name | value |\n|---|---|\n| size | large |\n"

const introTranslated = "INSTALL THE TOOL WITH `npm install tool` AND READ THE [GUIDE](https://example.com/guide \"the guide\").\n\n" +
	"## STEPS\n\n- OPEN THE *TERMINAL*\n- RUN **IT**\n\n```sh\necho \"hello world\"\n```\n\n" +
	"![A DIAGRAM](diagram.png)\n\n> A QUOTE\n\n| NAME | VALUE |\n|---|---|\n| SIZE | LARGE |\n"

func TestTranslationRun(t *testing.T) {
	l := newLibre(t, "secret")
	env := translationEnv(t, l, "secret")
	space := newSpace(t, env, env.Org)
	intro := addPage(t, env, space, map[string]any{"title": "Introduction", "markdown": introMarkdown, "description": "how to begin"})
	setup := addPage(t, env, space, map[string]any{"title": "Setup", "parent": intro, "markdown": "Set it up `now`."})
	addPage(t, env, space, map[string]any{"title": "Reference", "type": "GROUP"})
	addPage(t, env, space, map[string]any{"title": "Website", "type": "LINK", "target": map[string]any{"kind": "url", "url": "https://example.com"}})
	org := "/v1/orgs/" + env.Org + "/translations"
	tr := env.Must(201, "POST", org, env.Admin.Token, translationBody(space)).JSON()
	one := org + "/" + tr["id"].(string)

	res := runTranslations(t, env)
	if len(res) != 1 || res[0].Err != nil || res[0].Revision == "" {
		t.Fatalf("run %+v", res)
	}
	if l.requests.Load() != 1 {
		t.Errorf("%d provider requests for a 4-page space, want 1 batch", l.requests.Load())
	}
	got := env.Must(200, "GET", one, env.Admin.Token, nil).JSON()
	if got["status"] != "completed" || got["error"] != nil {
		t.Fatalf("translation %v", got)
	}
	result := got["result"].(map[string]any)
	target, rev := result["space"].(string), result["revision"].(string)
	stats := got["stats"].(map[string]any)
	// Texts: 4 titles, 1 description, 11 prose runs of the introduction, 1 of Setup.
	words := 0
	for _, s := range []string{"Introduction", "Setup", "Reference", "Website", "how to begin",
		"Install the tool with", "and read the", "guide", "Steps", "open the", "terminal", "run", "it", "a diagram", "a quote", "name", "value", "size", "large", "Set it up"} {
		words += len(strings.Fields(s))
	}
	if stats["runs"] != float64(1) || stats["latestPages"] != float64(4) || stats["totalPages"] != float64(4) ||
		stats["latestWords"] != float64(words) || stats["totalWords"] != float64(words) {
		t.Errorf("stats %v, want 4 pages and %d words", stats, words)
	}
	if _, ok := stats["latestRunDurationMs"].(float64); !ok {
		t.Errorf("stats %v", stats)
	}

	// The target space: active revision = result.revision, same tree, translated.
	content := env.Must(200, "GET", "/v1/spaces/"+target+"/content", env.Admin.Token, nil).JSON()
	if content["id"] != rev {
		t.Errorf("target's active revision %v, result %s", content["id"], rev)
	}
	sp := env.Must(200, "GET", "/v1/spaces/"+target, env.Admin.Token, nil).JSON()
	if sp["title"] != "Docs (fr)" {
		t.Errorf("target space %v", sp["title"])
	}
	pages := content["pages"].([]any)
	var shape []string
	var walk func(list []any, depth int)
	walk = func(list []any, depth int) {
		for _, p := range list {
			pm := p.(map[string]any)
			path, _ := pm["path"].(string)
			shape = append(shape, strings.Repeat(" ", depth)+pm["type"].(string)+" "+pm["title"].(string)+" "+path)
			if kids, ok := pm["pages"].([]any); ok {
				walk(kids, depth+1)
			}
		}
	}
	walk(pages, 0)
	want := []string{"document INTRODUCTION introduction", " document SETUP introduction/setup", "group REFERENCE reference", "link WEBSITE "}
	if strings.Join(shape, "\n") != strings.Join(want, "\n") {
		t.Errorf("target tree:\n%s\nwant:\n%s", strings.Join(shape, "\n"), strings.Join(want, "\n"))
	}
	tIntro := pages[0].(map[string]any)
	page := env.Must(200, "GET", "/v1/spaces/"+target+"/content/page/"+tIntro["id"].(string), env.Admin.Token, nil).JSON()
	if page["markdown"] != introTranslated {
		t.Errorf("translated body:\n%s\nwant:\n%s", page["markdown"], introTranslated)
	}
	if page["description"] != "HOW TO BEGIN" {
		t.Errorf("description %v", page["description"])
	}
	link := pages[2].(map[string]any)
	if link["target"].(map[string]any)["url"] != "https://example.com" {
		t.Errorf("link target %v", link["target"])
	}

	// Running again with an unchanged source makes no revision.
	env.Must(202, "POST", one+"/run", env.Admin.Token, nil)
	res = runTranslations(t, env)
	if len(res) != 1 || res[0].Revision != "" || res[0].Pages != 0 {
		t.Fatalf("unchanged run %+v", res)
	}
	got = env.Must(200, "GET", one, env.Admin.Token, nil).JSON()
	if got["result"].(map[string]any)["revision"] != rev || got["stats"].(map[string]any)["runs"] != float64(2) || got["stats"].(map[string]any)["latestPages"] != float64(0) {
		t.Errorf("after an unchanged run: %v", got)
	}

	// A changed source page: the next run translates that page only, in a new revision.
	gqlData(t, env, env.Admin.Token, `mutation($t: ContentTarget!, $p: ID!) { updatePage(target: $t, pageId: $p, input: {markdown: "Set it up `+"`later`"+`, carefully."}) { revision } }`,
		map[string]any{"t": map[string]any{"space": space}, "p": setup})
	gqlData(t, env, env.Admin.Token, `mutation($o: ID!, $id: ID!) { runTranslation(organizationId: $o, translationId: $id) { status } }`,
		map[string]any{"o": env.Org, "id": tr["id"]})
	textsBefore := l.texts.Load()
	res = runTranslations(t, env)
	if len(res) != 1 || res[0].Revision == "" || res[0].Revision == rev || res[0].Pages != 1 {
		t.Fatalf("second run %+v", res)
	}
	if n := l.texts.Load() - textsBefore; n != 3 { // the title and the two prose runs around the code span
		t.Errorf("%d texts sent for one changed page, want 3", n)
	}
	got = env.Must(200, "GET", one, env.Admin.Token, nil).JSON()
	st := got["stats"].(map[string]any)
	if got["result"].(map[string]any)["revision"] != res[0].Revision || st["runs"] != float64(3) || st["latestPages"] != float64(1) ||
		st["totalPages"] != float64(4) || st["latestWords"] != float64(6) || st["totalWords"] != float64(words+6) {
		t.Errorf("after a changed source: %v", got)
	}
	content = env.Must(200, "GET", "/v1/spaces/"+target+"/content", env.Admin.Token, nil).JSON()
	tSetup := content["pages"].([]any)[0].(map[string]any)["pages"].([]any)[0].(map[string]any)
	if content["id"] != res[0].Revision || tSetup["id"] != pages[0].(map[string]any)["pages"].([]any)[0].(map[string]any)["id"] {
		t.Errorf("target page ids must stay: %v", content)
	}
	body := env.Must(200, "GET", "/v1/spaces/"+target+"/content/page/"+tSetup["id"].(string), env.Admin.Token, nil).JSON()["markdown"]
	if body != "SET IT UP `later`, CAREFULLY." {
		t.Errorf("retranslated body %q", body)
	}
	// The queue and its runs are metered.
	m := string(env.Must(200, "GET", "/metrics", "", nil).Body)
	for _, want := range []string{`docsapi_job_queue_depth{queue="translations"} 0`, `docsapi_job_duration_seconds_count{outcome="ok",queue="translations"} 3`} {
		if !strings.Contains(m, want) {
			t.Errorf("metrics lack %s", want)
		}
	}
	// Deleting the translation keeps its target space.
	env.Must(205, "DELETE", one, env.Admin.Token, nil)
	env.Must(200, "GET", "/v1/spaces/"+target, env.Admin.Token, nil)
}

// Titles, descriptions and section titles are plain text: markup characters a
// translation brings stay as they are there (the Markdown body escapes them,
// and its plain text, as sections and search show it, resolves the escapes).
func TestTranslationPlainTextFields(t *testing.T) {
	l := newLibre(t, "secret")
	env := translationEnv(t, l, "secret")
	space := newSpace(t, env, env.Org)
	addPage(t, env, space, map[string]any{"title": "tag: Home", "description": "tag: the start", "markdown": "## tag: Welcome\n\ntag: Hello.\n"})
	tr := env.Must(201, "POST", "/v1/orgs/"+env.Org+"/translations", env.Admin.Token, translationBody(space)).JSON()
	if res := runTranslations(t, env); len(res) != 1 || res[0].Err != nil {
		t.Fatalf("run %+v", res)
	}
	target := env.Must(200, "GET", "/v1/orgs/"+env.Org+"/translations/"+tr["id"].(string), env.Admin.Token, nil).JSON()["result"].(map[string]any)["space"].(string)
	content := env.Must(200, "GET", "/v1/spaces/"+target+"/content", env.Admin.Token, nil).JSON()
	pg := content["pages"].([]any)[0].(map[string]any)
	if pg["title"] != "[fr] HOME" || pg["description"] != "[fr] THE START" {
		t.Errorf("translated title %q, description %q", pg["title"], pg["description"])
	}
	page := env.Must(200, "GET", "/v1/spaces/"+target+"/content/page/"+pg["id"].(string), env.Admin.Token, nil).JSON()
	if page["title"] != "[fr] HOME" || page["markdown"] != "## \\[fr\\] WELCOME\n\n\\[fr\\] HELLO.\n" {
		t.Errorf("translated page title %q, body %q", page["title"], page["markdown"])
	}
	data := gqlData(t, env, env.Admin.Token, `query($s: ID!, $p: ID!) { spacePage(spaceId: $s, pageId: $p) { title description } }`,
		map[string]any{"s": target, "p": pg["id"]})
	if p := data["spacePage"].(map[string]any); p["title"] != "[fr] HOME" || p["description"] != "[fr] THE START" {
		t.Errorf("GraphQL page %v", p)
	}
	found := env.Must(200, "GET", "/v1/spaces/"+target+"/search?query=welcome", env.Admin.Token, nil).JSON()["items"].([]any)
	if len(found) != 1 {
		t.Fatalf("search %v", found)
	}
	item := found[0].(map[string]any)
	sec := item["sections"].([]any)[0].(map[string]any)
	if item["title"] != "[fr] HOME" || sec["title"] != "[fr] WELCOME" || sec["body"] != "[fr] HELLO." {
		t.Errorf("search item %v", item)
	}
}

func TestTranslationWithoutProvider(t *testing.T) {
	env := apitest.New(t)
	space := newSpace(t, env, env.Org)
	addPage(t, env, space, map[string]any{"title": "Intro", "markdown": "hello"})
	org := "/v1/orgs/" + env.Org + "/translations"
	tr := env.Must(201, "POST", org, env.Admin.Token, translationBody(space)).JSON()
	res := runTranslations(t, env)
	if len(res) != 1 || res[0].ErrorCode != translate.CodeNotConfigured {
		t.Fatalf("run %+v", res)
	}
	got := env.Must(200, "GET", org+"/"+tr["id"].(string), env.Admin.Token, nil).JSON()
	e, _ := got["error"].(map[string]any)
	if got["status"] != "completed" || got["result"] != nil || e["code"] != "PROVIDER_NOT_CONFIGURED" ||
		!strings.Contains(e["message"].(string), "--translate-url") || !strings.Contains(e["message"].(string), "DOCSAPI_TRANSLATE_URL") {
		t.Fatalf("translation %v", got)
	}
	if st := got["stats"].(map[string]any); st["runs"] != float64(0) || st["totalWords"] != float64(0) {
		t.Errorf("a failed run counts nothing: %v", st)
	}
	// No target space was made.
	if n := env.Must(200, "GET", "/v1/orgs/"+env.Org+"/spaces", env.Admin.Token, nil).JSON()["count"]; n != float64(1) {
		t.Errorf("%v spaces, want the source only", n)
	}
}

func TestTranslationProviderFailures(t *testing.T) {
	l := newLibre(t, "secret")
	env := translationEnv(t, l, "wrong-key")
	space := newSpace(t, env, env.Org)
	addPage(t, env, space, map[string]any{"title": "Intro", "markdown": "hello"})
	org := "/v1/orgs/" + env.Org + "/translations"
	id := env.Must(201, "POST", org, env.Admin.Token, translationBody(space)).JSON()["id"].(string)
	runTranslations(t, env)
	got := env.Must(200, "GET", org+"/"+id, env.Admin.Token, nil).JSON()
	if e, _ := got["error"].(map[string]any); got["status"] != "completed" || e["code"] != "PROVIDER_ERROR" || !strings.Contains(e["message"].(string), "Invalid API key") || got["result"] != nil {
		t.Fatalf("wrong key: %v", got)
	}

	// A server error fails the run; a source deleted meanwhile is named.
	env2 := translationEnv(t, l, "secret")
	space = newSpace(t, env2, env2.Org)
	addPage(t, env2, space, map[string]any{"title": "Intro", "markdown": "hello"})
	org = "/v1/orgs/" + env2.Org + "/translations"
	id = env2.Must(201, "POST", org, env2.Admin.Token, translationBody(space)).JSON()["id"].(string)
	l.fail.Store(true)
	runTranslations(t, env2)
	l.fail.Store(false)
	got = env2.Must(200, "GET", org+"/"+id, env2.Admin.Token, nil).JSON()
	if e, _ := got["error"].(map[string]any); got["status"] != "completed" || e["code"] != "PROVIDER_ERROR" || !strings.Contains(e["message"].(string), "model crashed") {
		t.Fatalf("server error: %v", got)
	}
	// The next run succeeds and clears the error.
	env2.Must(202, "POST", org+"/"+id+"/run", env2.Admin.Token, nil)
	runTranslations(t, env2)
	got = env2.Must(200, "GET", org+"/"+id, env2.Admin.Token, nil).JSON()
	if got["status"] != "completed" || got["error"] != nil || got["result"] == nil {
		t.Fatalf("after recovery: %v", got)
	}
	env2.Must(205, "DELETE", "/v1/spaces/"+space, env2.Admin.Token, nil)
	env2.Must(202, "POST", org+"/"+id+"/run", env2.Admin.Token, nil)
	runTranslations(t, env2)
	got = env2.Must(200, "GET", org+"/"+id, env2.Admin.Token, nil).JSON()
	if e, _ := got["error"].(map[string]any); got["status"] != "completed" || e["code"] != "SOURCE_UNAVAILABLE" || got["result"] == nil {
		t.Fatalf("source deleted: %v", got)
	}
}

func TestTranslationRestartResumes(t *testing.T) {
	l := newLibre(t, "")
	env := translationEnv(t, l, "")
	space := newSpace(t, env, env.Org)
	addPage(t, env, space, map[string]any{"title": "Intro", "markdown": "hello"})
	org := "/v1/orgs/" + env.Org + "/translations"
	id := env.Must(201, "POST", org, env.Admin.Token, translationBody(space)).JSON()["id"].(string)
	// A process claims the run and stops before finishing it.
	job, err := env.DB.ClaimTranslationJob(context.Background())
	if err != nil || job == nil || job.ID != id {
		t.Fatalf("claim %v %v", job, err)
	}
	if s := env.Must(200, "GET", org+"/"+id, env.Admin.Token, nil).JSON()["status"]; s != "running" {
		t.Fatalf("status %v", s)
	}
	// A run asked for meanwhile follows the interrupted one.
	env.Must(202, "POST", org+"/"+id+"/run", env.Admin.Token, nil)
	// The next start requeues it (Run does this first), and it completes.
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	runner := env.Server.TranslationRunner()
	finished := make(chan translate.Result, 4)
	runner.After = func(r translate.Result) { finished <- r }
	go func() { runner.Run(ctx, nil); close(done) }()
	if r := <-finished; r.Err != nil || r.Revision == "" {
		t.Fatalf("resumed run %+v", r)
	}
	if r := <-finished; r.Err != nil { // the run asked for while it was running
		t.Fatalf("queued run %+v", r)
	}
	cancel()
	<-done
	runner.After = nil
	got := env.Must(200, "GET", org+"/"+id, env.Admin.Token, nil).JSON()
	if got["status"] != "completed" || got["stats"].(map[string]any)["runs"] != float64(2) {
		t.Fatalf("after restart: %v", got)
	}
}
