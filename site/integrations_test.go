package site_test

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	lpdf "github.com/ledongthuc/pdf"

	"docsapi/apitest"
	"docsapi/delivery"
	"docsapi/docwalk/docwalktest"
	"docsapi/markdown"
	"docsapi/site"
)

// blockRuntime is an integration's runtime in development mode: it checks
// each render's signature and answers by the block (componentId) asked.
type blockRuntime struct {
	t      *testing.T
	srv    *httptest.Server
	secret string
	mu     sync.Mutex
	got    []map[string]any
}

// blockAnswers are the runtime's answers by block: an element output, or
// a misbehaviour.
var blockAnswers = map[string]string{
	"chart": `{"type":"element","element":{"type":"block","children":[{"type":"vstack","children":[
	 {"type":"text","children":["Sales ",{"type":"text","style":"bold","children":"up 12%"},{"type":"text","style":"italic","children":" this week"},{"type":"text","style":"code","children":"q3"},{"type":"text","style":"strikethrough","children":"old"}]},
	 {"type":"markdown","content":"Rendered *markdown* from the integration"},
	 {"type":"codeblock","syntax":"sql","content":"SELECT total FROM sales"},
	 {"type":"image","source":{"url":"https://img.example/chart.png"},"aspectRatio":2},
	 {"type":"divider"},
	 {"type":"hstack","children":[{"type":"box","children":[{"type":"button","label":"Open dashboard","onPress":{"action":"@ui.url.open","url":"https://dash.example/"}}]}]},
	 {"type":"card","title":"Quarterly card","hint":"Q3","children":[{"type":"text","children":"inside the card"}]},
	 {"type":"input","label":"Filter","element":{"type":"textinput","state":"f","initialValue":"region=eu"}},
	 {"type":"webframe","source":{"url":"/frame/chart"}},
	 {"type":"link","target":{"url":"https://dash.example/report"},"children":["the report"]}]}]},"state":{},"props":{}}`,
	"broken": `{"type":"element"`,
	"modal":  `{"type":"element","element":{"type":"modal","children":[]}}`,
	"huge":   `{"type":"element","element":{"type":"block","children":[{"type":"text","children":"` + strings.Repeat("x", 8000) + `"}]}}`,
	"deep":   `{"type":"element","element":{"type":"block","children":[` + strings.Repeat(`{"type":"box","children":[`, 40) + strings.Repeat(`]}`, 40) + `]}}`,
	"count":  `{"type":"element","element":{"type":"block","children":[{"type":"text","children":"counted"}]}}`,
	// browser: what TestIntegrationBlockInBrowser shows (nothing that
	// loads from elsewhere).
	"browser": `{"type":"element","element":{"type":"block","children":[{"type":"vstack","children":[
	 {"type":"text","children":["Live figure: ",{"type":"text","style":"bold","children":"42 orders"}]},
	 {"type":"markdown","content":"A *markdown* note from the integration."},
	 {"type":"codeblock","syntax":"sql","content":"SELECT count(*) FROM orders"},
	 {"type":"divider"},
	 {"type":"hstack","children":[{"type":"button","label":"Open dashboard","style":"primary","onPress":{"action":"@ui.url.open","url":"https://dash.example/"}},{"type":"button","label":"Refresh","onPress":{"action":"refresh"}}]},
	 {"type":"card","title":"Orders card","hint":"today","children":[{"type":"text","children":"inside the card"}]},
	 {"type":"input","label":"Filter","element":{"type":"textinput","state":"f","initialValue":"region=eu"}}]}]},"state":{},"props":{}}`,
}

func newBlockRuntime(t *testing.T, e *apitest.Env) *blockRuntime {
	rt := &blockRuntime{t: t}
	rt.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if err := delivery.Verify(rt.secret, r.Header, body, e.Clock.Now(), 5*time.Minute); err != nil {
			t.Errorf("a render with a bad signature: %v", err)
			w.WriteHeader(401)
			return
		}
		var p map[string]any
		json.Unmarshal(body, &p)
		rt.mu.Lock()
		rt.got = append(rt.got, p)
		rt.mu.Unlock()
		block, _ := p["componentId"].(string)
		switch block {
		case "slow":
			select {
			case <-time.After(2 * time.Second):
			case <-r.Context().Done():
			}
			return
		case "fails":
			w.WriteHeader(500)
			return
		}
		io.WriteString(w, blockAnswers[block])
	}))
	t.Cleanup(rt.srv.Close)
	return rt
}

func (rt *blockRuntime) renders() []map[string]any {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	return append([]map[string]any(nil), rt.got...)
}

// devMode publishes integration name in org as u, turns development mode
// on towards the runtime and installs it on org; it returns the
// installation's path.
func (rt *blockRuntime) devMode(e *apitest.Env, u apitest.User, org, name string, all bool) string {
	e.Must(200, "POST", "/v1/integrations/"+name, u.Token, map[string]any{"title": "Charts", "description": "Charts in pages",
		"script": "export default {}", "scopes": []string{"space:content:read"}, "organization": org})
	e.Must(204, "PUT", "/v1/integrations/"+name+"/dev", u.Token, map[string]any{"tunnelUrl": rt.srv.URL, "all": all})
	data, errs := e.GraphQL(u.Token, `query($n: String!) { integrationDevelopment(integrationName: $n) { signingSecret } }`, map[string]any{"n": name})
	if len(errs) > 0 {
		rt.t.Fatal(errs)
	}
	rt.secret = data["integrationDevelopment"].(map[string]any)["signingSecret"].(string)
	id := e.Must(201, "POST", "/v1/integrations/"+name+"/installations", u.Token, map[string]any{"organization": org}).JSON()["id"].(string)
	return "/v1/integrations/" + name + "/installations/" + id
}

func integrationBlock(name, block string, props map[string]any) *markdown.Node {
	if props == nil {
		props = map[string]any{}
	}
	return docwalktest.Block("integration", map[string]any{"integration": name, "block": block, "props": props})
}

const fallback = "Content from charts"

// TestIntegrationBlocksRendered: an integration block shows what its
// integration renders for the site's organization (every ContentKit
// element a reader can see, in the HTML and the Markdown), asked once per
// (installation, version, block, props) within the output's lifetime.
func TestIntegrationBlocksRendered(t *testing.T) {
	f := newReaderFixture(t, "public")
	rt := newBlockRuntime(t, f.Env)
	rt.devMode(f.Env, f.Admin, f.Org, "charts", false)
	h := site.New(f.Server.Resolver, slog.Default(), http.NotFoundHandler())
	r := httptest.NewRequest("GET", f.base+"/install", nil)
	doc := docwalktest.Document(integrationBlock("charts", "chart", map[string]any{"range": "q3"}))
	html, md, err := site.RenderDocument(h, r, doc)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"<strong>up 12%</strong>", "<em> this week</em>", "<code>q3</code>", "<s>old</s>",
		"Rendered <em>markdown</em> from the integration", `<pre class="ck-code language-sql"><code>SELECT total FROM sales`,
		`src="https://img.example/chart.png"`, `<hr class="ck-divider">`, `<div class="ck-hstack"><div class="ck-box">`,
		`href="https://dash.example/"`, `<div class="ck-card">`, "inside the card", `disabled value="region=eu"`,
		`<iframe class="ck-webframe" sandbox="allow-scripts allow-popups" src="/frame/chart"`, `href="https://dash.example/report"`} {
		if !strings.Contains(html, want) {
			t.Errorf("the page lacks %q:\n%s", want, html)
		}
	}
	for _, want := range []string{"**up 12%**", "Rendered *markdown* from the integration", "```sql\nSELECT total FROM sales\n```",
		"[Open dashboard](<https://dash.example/>)", "**Quarterly card**", "Filter: region=eu", "[the report](<https://dash.example/report>)"} {
		if !strings.Contains(md, want) {
			t.Errorf("the Markdown lacks %q:\n%s", want, md)
		}
	}
	if strings.Contains(html, fallback) || strings.Contains(md, fallback) {
		t.Errorf("the placeholder was shown beside the output")
	}
	got := rt.renders()
	if len(got) != 1 { // the HTML's render is kept for the Markdown
		t.Fatalf("%d renders for one block", len(got))
	}
	p := got[0]
	ctx, _ := p["context"].(map[string]any)
	if p["type"] != "ui_render" || p["componentId"] != "chart" || ctx["type"] != "document" || ctx["spaceId"] != f.guide || ctx["editable"] != false {
		t.Errorf("render event: %v", p)
	}
	if props, _ := p["props"].(map[string]any); props["range"] != "q3" {
		t.Errorf("props: %v", p["props"])
	}
	// Kept: the same block again is not asked for, other props are.
	n := len(rt.renders())
	site.RenderDocument(h, r, doc)
	if len(rt.renders()) != n {
		t.Errorf("a kept output was asked for again")
	}
	site.RenderDocument(h, r, docwalktest.Document(integrationBlock("charts", "chart", map[string]any{"range": "q4"})))
	if len(rt.renders()) != n+1 {
		t.Errorf("other props were not asked for: %d renders", len(rt.renders())-n)
	}
	// Past the output's lifetime, asked again.
	f.Clock.Advance(2 * time.Minute)
	site.RenderDocument(h, r, doc)
	if len(rt.renders()) != n+2 {
		t.Errorf("an expired output was not asked for again")
	}
}

// TestIntegrationBlocksFallBack: an error, a timeout, an oversized or too
// deep answer, a non-block element, a block past the page's bound, an
// uninstalled integration and another organization's installation each
// show the block as without its integration: the placeholder, never an
// error.
func TestIntegrationBlocksFallBack(t *testing.T) {
	defer site.SetIntegrationBounds(200*time.Millisecond, 2*time.Second, 4096, 3)()
	f := newReaderFixture(t, "public")
	rt := newBlockRuntime(t, f.Env)
	inst := rt.devMode(f.Env, f.Admin, f.Org, "charts", false)
	h := site.New(f.Server.Resolver, slog.Default(), http.NotFoundHandler())
	r := httptest.NewRequest("GET", f.base+"/install", nil)
	render := func(nodes ...*markdown.Node) (string, string) {
		t.Helper()
		html, md, err := site.RenderDocument(h, r, docwalktest.Document(nodes...))
		if err != nil {
			t.Fatal(err)
		}
		return html, md
	}
	for _, block := range []string{"fails", "slow", "broken", "modal", "huge", "deep", "unknown-block"} {
		t.Run(block, func(t *testing.T) {
			start := time.Now()
			html, md := render(integrationBlock("charts", block, nil))
			if !strings.Contains(html, fallback) || !strings.Contains(md, fallback) {
				t.Errorf("no placeholder:\n%s\n%s", html, md)
			}
			if d := time.Since(start); d > 1500*time.Millisecond {
				t.Errorf("took %s past a call timeout of 200ms", d)
			}
		})
	}
	// At most 3 blocks of a page are rendered (the bound, lowered here).
	before := len(rt.renders())
	var many []*markdown.Node
	for i := range 5 {
		many = append(many, integrationBlock("charts", "count", map[string]any{"i": i}))
	}
	html, _ := render(many...)
	if c := strings.Count(html, "counted"); c != 3 || len(rt.renders())-before != 3 || strings.Count(html, fallback) != 2 {
		t.Errorf("5 blocks with a bound of 3: %d rendered, %d asked, %d placeholders", c, len(rt.renders())-before, strings.Count(html, fallback))
	}
	// Another organization's integration, in development mode for every
	// organization and installed in its own: never asked for this site.
	other, foreign := f.NewOrg("Other", "admin@other.test")
	ort := newBlockRuntime(t, f.Env)
	ort.devMode(f.Env, foreign, other, "foreign-charts", true)
	if html, _ := render(integrationBlock("foreign-charts", "count", nil)); !strings.Contains(html, "Content from foreign-charts") || len(ort.renders()) != 0 {
		t.Errorf("another organization's installation was used: %d renders", len(ort.renders()))
	}
	// Uninstalled: no render.
	f.Must(205, "DELETE", inst, f.Admin.Token, nil)
	before = len(rt.renders())
	if html, _ := render(integrationBlock("charts", "count", map[string]any{"new": true})); !strings.Contains(html, fallback) || len(rt.renders()) != before {
		t.Errorf("an uninstalled integration rendered")
	}
}

// TestIntegrationCodeblocks: an integration whose manifest declares a
// block's Markdown form (`markdown: {codeblock, body}`) renders the stored
// code blocks of that syntax on published pages, their .md and
// llms-full.txt; where it does not render (not installed on the space
// here), the code block shows as written.
func TestIntegrationCodeblocks(t *testing.T) {
	f := newReaderFixture(t, "public")
	rt := newBlockRuntime(t, f.Env)
	inst := rt.devMode(f.Env, f.Admin, f.Org, "charts", false)
	f.Must(200, "POST", "/v1/integrations/charts", f.Admin.Token, map[string]any{"title": "Charts", "description": "Charts in pages",
		"script": "export default {}", "scopes": []string{"space:content:read"}, "organization": f.Org,
		"blocks": []map[string]any{{"id": "count", "title": "Count", "markdown": map[string]any{"codeblock": "chart", "body": "spec"}}}})
	createPage(t, f.Env, f.guide, map[string]any{"title": "Figures", "slug": "figures",
		"markdown": "The week in numbers.\n\n```chart\nsales by week\n```\n\n```go\nfmt.Println(1)\n```\n"})
	c := f.client(t)
	p := get(t, c, f.base+"/figures")
	if p.status != 200 || !strings.Contains(p.body, `<div class="integration"><div class="ck">`) || !strings.Contains(p.body, "counted") ||
		strings.Contains(p.body, "sales by week") || !strings.Contains(p.body, "Println") {
		t.Fatalf("%d:\n%s", p.status, p.body)
	}
	got := rt.renders()
	if len(got) != 1 || got[0]["componentId"] != "count" || got[0]["props"].(map[string]any)["spec"] != "sales by week" {
		t.Fatalf("renders %v", got)
	}
	for _, u := range []string{f.base + "/figures.md", f.base + "/llms-full.txt"} {
		if p := get(t, c, u); p.status != 200 || !strings.Contains(p.body, "counted") || strings.Contains(p.body, "sales by week") {
			t.Errorf("%s: %d\n%s", u, p.status, p.body)
		}
	}
	if len(rt.renders()) != 1 {
		t.Errorf("%d renders: the kept output was not used", len(rt.renders()))
	}
	// The API's PDF export of the space writes the block's output too.
	pdfURL := f.Must(200, "GET", "/v1/spaces/"+f.guide+"/pdf", f.Admin.Token, nil).JSON()["url"].(string)
	if text := pdfText(t, get(t, c, pdfURL)); !strings.Contains(text, "counted") || strings.Contains(text, "sales by week") {
		t.Errorf("the PDF:\n%s", text)
	}
	// Installed on selected spaces only, none of them this one: the code
	// block as written, and the runtime not asked.
	n := len(rt.renders())
	f.Must(200, "PATCH", inst, f.Admin.Token, map[string]any{"space_selection": "selected"})
	p = get(t, c, f.base+"/figures")
	if p.status != 200 || !strings.Contains(p.body, "sales by week") || strings.Contains(p.body, "counted") || len(rt.renders()) != n {
		t.Errorf("not installed on the space: %d renders\n%s", len(rt.renders())-n, p.body)
	}
}

// pdfText is the text of a PDF answer.
func pdfText(t *testing.T, p page) string {
	t.Helper()
	if p.status != 200 || p.header.Get("Content-Type") != "application/pdf" {
		t.Fatalf("PDF: %d %s", p.status, p.header.Get("Content-Type"))
	}
	rd, err := lpdf.NewReader(strings.NewReader(p.body), int64(len(p.body)))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for i := 1; i <= rd.NumPage(); i++ {
		if pg := rd.Page(i); !pg.V.IsNull() {
			s, _ := pg.GetPlainText(nil)
			b.WriteString(s)
		}
	}
	return b.String()
}
