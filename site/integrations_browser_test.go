package site_test

import (
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"docsapi/markdown"
	"docsapi/site"
)

// TestIntegrationBlockInBrowser: a page with an integration block shows
// the integration's output in Chromium, with no console problem and no
// request off the server. Stored pages are Markdown, which has no form for
// an integration block yet, so the block is added to the page's document
// by the handler under test (served with the Host of the fixture's
// service, as a reverse proxy would).
func TestIntegrationBlockInBrowser(t *testing.T) {
	f := newReaderFixture(t, "public")
	rt := newBlockRuntime(t, f.Env)
	rt.devMode(f.Env, f.Admin, f.Org, "charts", false)
	h := site.New(f.Server.Resolver, slog.Default(), http.NotFoundHandler())
	site.EditDocuments(h, func(doc *markdown.Document) {
		doc.Nodes = append(doc.Nodes, integrationBlock("charts", "browser", map[string]any{"days": 1}))
	})
	service := strings.TrimPrefix(f.HTTP.URL, "http://")
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.Host = service
		h.ServeHTTP(w, r)
	}))
	defer proxy.Close()
	b := newBrowser(t)
	b.run(t, "a page with an integration block",
		chromedp.Navigate(proxy.URL+f.basePath+"/install"),
		h1("Install"),
		chromedp.WaitVisible(`.integration .ck strong`, chromedp.ByQuery),
		until(`document.querySelector('.integration .ck strong').textContent === '42 orders'`),
		until(`document.querySelector('.integration .ck-markdown em').textContent === 'markdown'`),
		until(`document.querySelector('.integration a.ck-button').getAttribute('href') === 'https://dash.example/'`),
		until(`document.querySelector('.integration button.ck-button').disabled`),
		until(`document.querySelector('.integration input.ck-textinput').disabled && document.querySelector('.integration input.ck-textinput').value === 'region=eu'`),
		until(`document.querySelector('.integration .ck-card').innerText.includes('inside the card')`),
		until(`!document.body.innerText.includes('Content from charts')`),
	)
	b.check(t, strings.TrimPrefix(proxy.URL, "http://"))
	if n := len(rt.renders()); n != 1 {
		t.Errorf("%d renders for one block on one page", n)
	}
}
