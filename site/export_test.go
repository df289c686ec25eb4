package site

import (
	"errors"
	"net/http"
	"time"

	"docsapi/docrender"
	"docsapi/markdown"
)

// Renders is how many answers were rendered rather than served from the
// cache.
func Renders() int64 { return renders.Load() }

// RenderDocument renders doc as the page r names (its HTML and its
// Markdown), as the visitor of r, with the resolver pages use: for the
// blocks the Markdown converter does not make yet (OpenAPI operations,
// reusable content).
func RenderDocument(h *Handler, r *http.Request, doc *markdown.Document) (string, string, error) {
	t, ok := parseTarget(r.URL.Path)
	if !ok {
		return "", "", errors.New("not a site path")
	}
	rc, err := h.resolve(r, t.path, visitorQuery{})
	if err != nil {
		return "", "", err
	}
	d, err := h.load(rc)
	if err != nil {
		return "", "", err
	}
	cur, ok := d.current()
	if !ok {
		return "", "", errors.New("no page")
	}
	res := h.docResolver(d, deref(rc.lookup.Space), cur)
	return string(docrender.Render(doc, res).HTML), docrender.Markdown(doc, res), nil
}

// SetIntegrationBounds lowers the bounds of integration blocks for a test
// (the returned function puts them back).
func SetIntegrationBounds(call, page time.Duration, maxBytes, maxBlocks int) func() {
	c, p, b, n := integrationCallTimeout, integrationPageBudget, maxIntegrationOutput, maxIntegrationBlocks
	integrationCallTimeout, integrationPageBudget, maxIntegrationOutput, maxIntegrationBlocks = call, page, maxBytes, maxBlocks
	return func() {
		integrationCallTimeout, integrationPageBudget, maxIntegrationOutput, maxIntegrationBlocks = c, p, b, n
	}
}
