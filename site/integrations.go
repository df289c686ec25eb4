package site

import (
	"context"
	"errors"
	"html/template"
	"net/url"
	"strings"
	"sync"
	"time"

	"docsapi/apierr"
	"docsapi/contentkit"
	"docsapi/docrender"
	"docsapi/graph"
	"docsapi/markdown"
)

// Integration blocks show what their integration renders (graph.
// DocumentBlocks: the site's organization's installation, the page's
// space, a document context), turned into HTML and Markdown by contentkit.
// What a page may spend on them is bounded; past a bound, on an error or a
// timeout, or where the integration is not installed or has no runtime,
// the block shows its stored children or a placeholder, as it would
// without an integration: never an error page.
//
// Caching: the rendered page is kept with the rest of the page (per
// revision, page and visitor class, cache.go), so a cached page does not
// ask the integration again; an output is also kept for blockOutputTTL by
// (installation, integration version, block, props), so the other pages,
// visitor classes and revisions showing the same block share one render.
var (
	// maxIntegrationBlocks bounds the blocks of one page rendered by
	// their integration (the others show their fallback).
	maxIntegrationBlocks = 16
	// integrationCallTimeout bounds one render; integrationPageBudget
	// all of one page's.
	integrationCallTimeout = 3 * time.Second
	integrationPageBudget  = 5 * time.Second
	// maxIntegrationOutput bounds a runtime's answer (bytes).
	maxIntegrationOutput = 256 << 10
	// blockOutputTTL keeps an output; failedOutputTTL a failure (so a
	// runtime that is down is not asked by every page render).
	blockOutputTTL  = time.Minute
	failedOutputTTL = 10 * time.Second
)

// maxBlockOutputs bounds the output cache; full, it empties.
const maxBlockOutputs = 2000

type blockOutput struct {
	out   docrender.IntegrationOutput
	ok    bool
	until time.Time
}

type blockOutputs struct {
	mu sync.Mutex
	m  map[string]blockOutput
}

func (c *blockOutputs) get(k string, now time.Time) (blockOutput, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	b, ok := c.m[k]
	if !ok || !now.Before(b.until) {
		return blockOutput{}, false
	}
	return b, true
}

func (c *blockOutputs) put(k string, b blockOutput) {
	c.mu.Lock()
	if c.m == nil || len(c.m) >= maxBlockOutputs {
		c.m = map[string]blockOutput{}
	}
	c.m[k] = b
	c.mu.Unlock()
}

// integrationState is shared by the pages of one answer.
type integrationState struct {
	// deadline ends the answer's integration renders (set at the first).
	deadline time.Time
	// codeblocks maps code block syntaxes to integration blocks
	// (graph.CodeblockBlocks), read once per answer when a page has a
	// code block with a syntax.
	codeblocks map[string]graph.CodeblockBlock
	loaded     bool
}

// integrationRenderer is the Integration function of one page's resolver:
// the blocks of space in org, at most maxIntegrationBlocks of them, within
// integrationPageBudget from the first render of the answer (st, shared by
// the pages of one answer; nil: this page's own).
func (h *Handler) integrationRenderer(ctx context.Context, org, space string, st *integrationState) func(*markdown.Node) (docrender.IntegrationOutput, bool) {
	renderers := map[string]*graph.DocumentBlockRenderer{}
	blocks := 0
	if st == nil {
		st = &integrationState{}
	}
	deadline := &st.deadline
	return func(n *markdown.Node) (docrender.IntegrationOutput, bool) {
		name, _ := n.Data["integration"].(string)
		block, _ := n.Data["block"].(string)
		props, _ := n.Data["props"].(map[string]any)
		if org == "" || space == "" || name == "" || block == "" || blocks >= maxIntegrationBlocks {
			return docrender.IntegrationOutput{}, false
		}
		blocks++
		rd, known := renderers[name]
		if !known {
			var err error
			rd, err = h.Res.DocumentBlocks(ctx, org, space, name)
			if err != nil {
				if e, ok := apierr.As(err); !(ok && e.Status == 404) && !errors.Is(err, graph.ErrNoRuntime) {
					h.Log.Warn("reader site: an integration block's renderer", "integration", name, "err", err)
				}
				rd = nil
			}
			renderers[name] = rd
		}
		if rd == nil {
			return docrender.IntegrationOutput{}, false
		}
		key := rd.CacheKey(block, props, n.Data["action"])
		if b, ok := h.outputs.get(key, h.now()); ok {
			return b.out, b.ok
		}
		if deadline.IsZero() {
			*deadline = time.Now().Add(integrationPageBudget)
		}
		if !time.Now().Before(*deadline) {
			return docrender.IntegrationOutput{}, false // the page's budget is spent: not a failure of the block's
		}
		callCtx, cancel := context.WithDeadline(ctx, *deadline)
		defer cancel()
		out, err := h.renderBlock(callCtx, rd, block, props, n.Data["action"])
		if err != nil {
			h.Log.Warn("reader site: an integration block", "integration", name, "block", block, "err", err)
			h.outputs.put(key, blockOutput{until: h.now().Add(failedOutputTTL)})
			return docrender.IntegrationOutput{}, false
		}
		h.outputs.put(key, blockOutput{out: out, ok: true, until: h.now().Add(blockOutputTTL)})
		return out, true
	}
}

// renderBlock renders one block through its integration and turns the
// ContentKit output into HTML and Markdown.
func (h *Handler) renderBlock(ctx context.Context, rd *graph.DocumentBlockRenderer, block string, props map[string]any, action any) (docrender.IntegrationOutput, error) {
	el, err := rd.Render(ctx, block, props, action, integrationCallTimeout, maxIntegrationOutput)
	if err != nil {
		return docrender.IntegrationOutput{}, err
	}
	out, err := contentkit.Render(el, contentkit.Options{Markdown: markdownHTML, Frame: h.mayFrame})
	if err != nil {
		return docrender.IntegrationOutput{}, err
	}
	return docrender.IntegrationOutput{HTML: out.HTML, Markdown: out.Markdown}, nil
}

// markdownHTML is a ContentKit markdown element as the reader site renders
// a page's Markdown (script URLs and raw HTML dropped).
func markdownHTML(src string) template.HTML {
	return docrender.Render(markdown.ToDocument(src, nil), docrender.Resolver{}).HTML
}

// mayFrame: the page's Content-Security-Policy (default-src 'self', no
// frame-src) lets a frame load only from the page's own origin: a path on
// it, or the service's public URL. Other webframes are shown as links, so
// a page never holds a frame its policy refuses.
func (h *Handler) mayFrame(u *url.URL) bool {
	if u.Scheme == "" && u.Host == "" {
		return strings.HasPrefix(u.Path, "/") && !strings.HasPrefix(u.Path, "//")
	}
	pub, err := url.Parse(h.Res.Config.PublicURL)
	return err == nil && pub.Host != "" && strings.EqualFold(u.Scheme, pub.Scheme) && strings.EqualFold(u.Host, pub.Host)
}

// withIntegrationBlocks is doc with each code block whose syntax an
// integration installed in the site's organization declares (GitBook's
// manifest `markdown: {codeblock, body}`) standing as that integration's
// block: props {body: the code}, and the code block as its stored child,
// shown when the integration does not render. doc itself is not changed
// (documents are shared by the resolvers' caches): changed nodes are
// copied with their ancestors.
func (h *Handler) withIntegrationBlocks(d *siteData, doc *markdown.Document) *markdown.Document {
	org := deref(d.rc.lookup.Organization)
	if doc == nil || org == "" || !graph.HasCodeSyntax(doc) {
		return doc
	}
	st := d.integrations
	if st == nil {
		st = &integrationState{}
		d.integrations = st
	}
	if !st.loaded {
		st.loaded = true
		m, err := h.Res.CodeblockBlocks(d.rc.ctx, org)
		if err != nil {
			h.Log.Warn("reader site: the organization's code block integrations", "err", err)
		}
		st.codeblocks = m
	}
	return graph.WithCodeblockBlocks(doc, st.codeblocks)
}
