package site_test

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestIntegrationBlockInBrowser: a stored page whose code block stands
// for an integration's block shows the integration's output in Chromium,
// with no console problem and no request off the server.
func TestIntegrationBlockInBrowser(t *testing.T) {
	f := newReaderFixture(t, "public")
	rt := newBlockRuntime(t, f.Env)
	rt.devMode(f.Env, f.Admin, f.Org, "charts", false)
	f.Must(200, "POST", "/v1/integrations/charts", f.Admin.Token, map[string]any{"title": "Charts", "description": "Charts in pages",
		"script": "export default {}", "scopes": []string{"space:content:read"}, "organization": f.Org,
		"blocks": []map[string]any{{"id": "browser", "title": "Orders", "markdown": map[string]any{"codeblock": "orders", "body": "query"}}}})
	createPage(t, f.Env, f.guide, map[string]any{"title": "Orders", "slug": "orders", "markdown": "Today's orders.\n\n```orders\nlast-week\n```\n"})
	b := newBrowser(t)
	b.run(t, "a page with an integration block",
		chromedp.Navigate(f.base+"/orders"),
		h1("Orders"),
		chromedp.WaitVisible(`.integration .ck strong`, chromedp.ByQuery),
		until(`document.querySelector('.integration .ck strong').textContent === '42 orders'`),
		until(`document.querySelector('.integration .ck-markdown em').textContent === 'markdown'`),
		until(`document.querySelector('.integration a.ck-button').getAttribute('href') === 'https://dash.example/'`),
		until(`document.querySelector('.integration button.ck-button').disabled`),
		until(`document.querySelector('.integration input.ck-textinput').disabled && document.querySelector('.integration input.ck-textinput').value === 'region=eu'`),
		until(`document.querySelector('.integration .ck-card').innerText.includes('inside the card')`),
		until(`!document.body.innerText.includes('last-week')`),
	)
	screenshot(t, b, "site-integration.png")
	b.check(t, strings.TrimPrefix(f.HTTP.URL, "http://"))
	if got := rt.renders(); len(got) != 1 || got[0]["props"].(map[string]any)["query"] != "last-week" {
		t.Errorf("renders for one block on one page: %v", got)
	}
}
