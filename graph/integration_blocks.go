package graph

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"docsapi/apierr"
	"docsapi/contentkit"
	"docsapi/delivery"
	"docsapi/docwalk"
	"docsapi/markdown"
	"docsapi/pdf"
	"docsapi/storage"
)

// Integration blocks of a published page (0.130.0 DocumentBlockIntegration:
// data.integration, data.block, data.props, data.action) are rendered by
// their integration for the reader site, through the same path as GET
// /v1/integrations/{name}/render: the organization's installation, which
// must cover the page's space (renderInstallation), and the ui_render
// event signed and sent to the integration's runtime (sendRender), with a
// ContentKit document context. The organization is the site's, as the
// reader site's resolution found it, never anything the visitor sends.
//
// Unlike an API render, a reader's render is not recorded as an event: a
// page view must not write (every committed write moves the counters that
// validate every cached answer, the reader site's pages included).

// ErrNoRuntime: the integration has nothing to send a render to
// (development mode off, or it forwards only its owner's requests).
var ErrNoRuntime = errors.New("the integration has no reachable runtime")

// DocumentBlockRenderer renders one integration's blocks for the pages of
// one space.
type DocumentBlockRenderer struct {
	r                              *Resolver
	it                             storage.Integration
	orgID, spaceID, installationID string
}

// DocumentBlocks is the renderer of integration name's blocks on pages of
// spaceID, through orgID's installation: a 404 when the integration is
// unknown or not installed there (or not on the space), ErrNoRuntime when
// nothing can render.
func (r *Resolver) DocumentBlocks(ctx context.Context, orgID, spaceID, name string) (*DocumentBlockRenderer, error) {
	if orgID == "" || spaceID == "" || checkIntegrationName("integration", name) != nil {
		return nil, apierr.NotFound("integration")
	}
	it, err := r.Store.IntegrationByName(ctx, name, "")
	if err != nil {
		return nil, notFoundAs(err, "integration")
	}
	inst, err := r.renderInstallation(ctx, it, orgID, "space", spaceID)
	if err != nil {
		return nil, err
	}
	if it.DevTunnelURL == nil || (!it.DevAll && orgID != it.OrganizationID) || r.Deliveries == nil {
		return nil, ErrNoRuntime
	}
	return &DocumentBlockRenderer{r: r, it: it, orgID: orgID, spaceID: spaceID, installationID: inst}, nil
}

// CacheKey names the output of block with props and action: (installation,
// integration version, block, props), and the space of the render's
// context, so a new version or another installation never reads an older
// output.
func (b *DocumentBlockRenderer) CacheKey(block string, props map[string]any, action any) string {
	p, _ := json.Marshal([]any{props, action}) // map keys sorted: one key per props
	sum := sha256.Sum256(p)
	return b.installationID + "\x00" + strconv.Itoa(b.it.Version) + "\x00" + b.spaceID + "\x00" + block + "\x00" + hex.EncodeToString(sum[:16])
}

// Render asks the runtime for block's ContentKit output with props (and
// the block's stored action, if any), waiting at most timeout and reading
// at most maxBytes, and returns its root element.
func (b *DocumentBlockRenderer) Render(ctx context.Context, block string, props map[string]any, action any, timeout time.Duration, maxBytes int) (map[string]any, error) {
	if block == "" {
		return nil, apierr.Invalid("block", "is required")
	}
	if props == nil {
		props = map[string]any{}
	}
	fields := map[string]any{"componentId": block, "props": props,
		"context": map[string]any{"type": "document", "spaceId": b.spaceID, "editable": false, "theme": "light"}}
	if action != nil {
		fields["action"] = action
	}
	ev := b.r.newEvent(b.it, b.orgID, b.installationID, "ui_render", fields)
	res, err := b.r.sendRender(ctx, b.it, ev, timeout, delivery.CSPHeader(b.it.CSP))
	if err == nil && len(res.Body) > maxBytes {
		return nil, fmt.Errorf("integration %q answered more than %d bytes", b.it.Name, maxBytes)
	}
	out, failure := renderOutput(res, err)
	if failure != "" {
		return nil, fmt.Errorf("integration %q runtime: %s", b.it.Name, failure)
	}
	el, _ := out["element"].(map[string]any)
	if el == nil {
		return nil, fmt.Errorf("integration %q answered no element", b.it.Name)
	}
	return el, nil
}

// CodeblockBlock is the integration block a Markdown code block stands for:
// an integration declares it in its manifest (a block's `markdown:
// {codeblock, body}`, 0.130.0 IntegrationBlockMarkdown), so that the block
// is written as a code block of that syntax whose text is the `body` prop.
type CodeblockBlock struct {
	Integration, Block, Body string
}

// maxCodeblockInstallations bounds the installations read for the mapping.
const maxCodeblockInstallations = 100

// CodeblockBlocks maps code block syntaxes to the blocks declaring them, of
// the integrations installed in orgID (one query; the oldest installation
// wins a syntax two declare). Whether an installation covers a page's
// space is decided when the block is rendered (DocumentBlocks).
func (r *Resolver) CodeblockBlocks(ctx context.Context, orgID string) (map[string]CodeblockBlock, error) {
	p, err := r.Store.ListOrganizationInstallations(ctx, orgID, "", "", storage.PageQuery{Limit: maxCodeblockInstallations})
	if err != nil {
		return nil, err
	}
	out := map[string]CodeblockBlock{}
	for _, oi := range p.Items {
		var blocks []struct {
			ID       string `json:"id"`
			Markdown *struct {
				Codeblock string `json:"codeblock"`
				Body      string `json:"body"`
			} `json:"markdown"`
		}
		if json.Unmarshal(oi.Integration.Blocks, &blocks) != nil {
			continue
		}
		for _, b := range blocks {
			if b.ID == "" || b.Markdown == nil || b.Markdown.Codeblock == "" || b.Markdown.Body == "" {
				continue
			}
			if _, taken := out[b.Markdown.Codeblock]; !taken {
				out[b.Markdown.Codeblock] = CodeblockBlock{Integration: oi.Integration.Name, Block: b.ID, Body: b.Markdown.Body}
			}
		}
	}
	return out, nil
}

// maxBlockDepth bounds the nesting searched for code blocks.
const maxBlockDepth = 64

// HasCodeSyntax tells whether doc has a code block with a syntax (only
// then can one stand for an integration block).
func HasCodeSyntax(doc *markdown.Document) bool {
	return doc != nil && hasSyntax(doc.Nodes, 0)
}

func hasSyntax(nodes []*markdown.Node, depth int) bool {
	if depth > maxBlockDepth {
		return false
	}
	for _, n := range nodes {
		if n == nil {
			continue
		}
		if s, _ := n.Data["syntax"].(string); n.Type == "code" && s != "" {
			return true
		}
		if hasSyntax(n.Nodes, depth+1) || n.Fragments != nil && hasSyntax(*n.Fragments, depth+1) {
			return true
		}
	}
	return false
}

// WithCodeblockBlocks is doc with each code block whose syntax m names
// standing as that integration's block: props {body: the code}, and the
// code block as its stored child, shown when the integration does not
// render. doc itself is not changed (documents are shared by caches):
// changed nodes are copied with their ancestors.
func WithCodeblockBlocks(doc *markdown.Document, m map[string]CodeblockBlock) *markdown.Document {
	if doc == nil || len(m) == 0 {
		return doc
	}
	nodes, changed := swapCodeblocks(doc.Nodes, m, 0)
	if !changed {
		return doc
	}
	out := *doc
	out.Nodes = nodes
	return &out
}

// swapCodeblocks is nodes with the code blocks m names as integration
// blocks; changed false (and nodes itself) when there are none.
func swapCodeblocks(nodes []*markdown.Node, m map[string]CodeblockBlock, depth int) ([]*markdown.Node, bool) {
	if depth > maxBlockDepth {
		return nodes, false
	}
	var out []*markdown.Node
	for i, n := range nodes {
		repl := n
		if n != nil {
			syntax, _ := n.Data["syntax"].(string)
			if cb, ok := m[syntax]; ok && n.Type == "code" {
				repl = &markdown.Node{Object: "block", Type: "integration", Key: n.Key, Nodes: []*markdown.Node{n},
					Data: map[string]any{"integration": cb.Integration, "block": cb.Block, "props": map[string]any{cb.Body: docwalk.CodeText(n)}}}
			} else {
				kids, kc := swapCodeblocks(n.Nodes, m, depth+1)
				var frags []*markdown.Node
				fc := false
				if n.Fragments != nil {
					frags, fc = swapCodeblocks(*n.Fragments, m, depth+1)
				}
				if kc || fc {
					c := *n
					c.Nodes = kids
					if fc {
						c.Fragments = &frags
					}
					repl = &c
				}
			}
		}
		if repl != n && out == nil {
			out = append(make([]*markdown.Node, 0, len(nodes)), nodes[:i]...)
		}
		if out != nil {
			out = append(out, repl)
		}
	}
	if out == nil {
		return nodes, false
	}
	return out, true
}

// Bounds of the integration blocks of one PDF export (the PDF of a
// revision is rendered once and kept, so its blocks are asked once).
const (
	maxPDFIntegrationBlocks = 64
	pdfIntegrationCall      = 3 * time.Second
	pdfIntegrationBudget    = 10 * time.Second
	// MaxIntegrationAnswer bounds a runtime's answer to a block render.
	MaxIntegrationAnswer = 256 << 10
)

// pdfIntegrations gives the pages of a PDF of spaceID (in orgID) their
// integration blocks: code blocks an installed integration declares become
// its blocks, and the returned function renders them (their Markdown read
// back into blocks), bounded as the reader site's are; nil when no page
// has one.
func (r *Resolver) pdfIntegrations(ctx context.Context, orgID, spaceID string, pages []pdf.Page) func(*markdown.Node) (*markdown.Document, bool) {
	var m map[string]CodeblockBlock
	loaded, some := false, false
	for i := range pages {
		if pages[i].Document != nil || !strings.Contains(pages[i].Markdown, "```") && !strings.Contains(pages[i].Markdown, "~~~") {
			continue
		}
		doc := markdown.ToDocument(pages[i].Markdown, nil)
		if !HasCodeSyntax(doc) {
			continue
		}
		if !loaded {
			loaded = true
			var err error
			if m, err = r.CodeblockBlocks(ctx, orgID); err != nil || len(m) == 0 {
				return nil
			}
		}
		if out := WithCodeblockBlocks(doc, m); out != doc {
			pages[i].Document, some = out, true
		}
	}
	if !some {
		return nil
	}
	renderers := map[string]*DocumentBlockRenderer{}
	blocks := 0
	deadline := time.Now().Add(pdfIntegrationBudget)
	return func(n *markdown.Node) (*markdown.Document, bool) {
		name, _ := n.Data["integration"].(string)
		block, _ := n.Data["block"].(string)
		props, _ := n.Data["props"].(map[string]any)
		if blocks >= maxPDFIntegrationBlocks || !time.Now().Before(deadline) {
			return nil, false
		}
		blocks++
		rd, known := renderers[name]
		if !known {
			rd, _ = r.DocumentBlocks(ctx, orgID, spaceID, name)
			renderers[name] = rd
		}
		if rd == nil {
			return nil, false
		}
		callCtx, cancel := context.WithDeadline(ctx, deadline)
		defer cancel()
		el, err := rd.Render(callCtx, block, props, n.Data["action"], pdfIntegrationCall, MaxIntegrationAnswer)
		if err != nil {
			return nil, false
		}
		out, err := contentkit.Render(el, contentkit.Options{})
		if err != nil {
			return nil, false
		}
		return markdown.ToDocument(out.Markdown, nil), true
	}
}
