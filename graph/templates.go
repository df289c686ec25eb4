package graph

import (
	"context"

	"docsapi/apierr"
	"docsapi/graph/model"
	"docsapi/importer"
	"docsapi/storage"
)

// contentTemplate is a built-in template: pages added to a space.
type contentTemplate struct {
	model.ContentTemplate
	Pages []*importer.Page
}

// templates is the built-in set (documented in README "Content").
var templates = []contentTemplate{
	{ContentTemplate: model.ContentTemplate{ID: "blank", Title: "Blank", Description: "A single empty page."},
		Pages: []*importer.Page{{Title: "Untitled", Slug: "untitled"}}},
	{ContentTemplate: model.ContentTemplate{ID: "getting-started", Title: "Getting started", Description: "An introduction, a quick start and a FAQ for a product."},
		Pages: []*importer.Page{
			{Title: "Introduction", Slug: "introduction", Markdown: "Welcome! This space documents the product.\n\n## What you will find\n\n- [Quick start](quick-start.md): set up in five minutes.\n- [FAQ](faq.md): answers to common questions.\n"},
			{Title: "Quick start", Slug: "quick-start", Markdown: "## Install\n\n```sh\ncurl -fsSL https://example.com/install.sh | sh\n```\n\n## First steps\n\n1. Create an account.\n2. Create a project.\n3. Invite your team.\n"},
			{Title: "FAQ", Slug: "faq", Markdown: "## Where do I get help?\n\nAsk your administrator, or read the [introduction](introduction.md).\n"},
		}},
	{ContentTemplate: model.ContentTemplate{ID: "knowledge-base", Title: "Knowledge base", Description: "A team knowledge base with onboarding, processes and tools."},
		Pages: []*importer.Page{
			{Title: "Knowledge base", Slug: "knowledge-base", Markdown: "Everything the team knows, in one place.\n", Children: []*importer.Page{
				{Title: "Onboarding", Slug: "onboarding", Markdown: "- [ ] Get your accounts\n- [ ] Meet the team\n- [ ] Read the [processes](processes.md)\n"},
				{Title: "Processes", Slug: "processes", Markdown: "## Releases\n\nWe release every week.\n\n## Incidents\n\n> [!WARNING]\n> Page the on-call engineer first.\n"},
				{Title: "Tools", Slug: "tools", Markdown: "| Tool | Use |\n|---|---|\n| Chat | daily talk |\n| Docs | this space |\n"},
			}},
		}},
}

func (r *Resolver) applyTemplate(ctx context.Context, spaceID string, in model.ApplyTemplateInput) (bool, error) {
	cs, err := r.contentSpace(ctx, spaceID, true)
	if err != nil {
		return false, err
	}
	var tpl *contentTemplate
	for i := range templates {
		if templates[i].ID == in.ID {
			tpl = &templates[i]
		}
	}
	if tpl == nil {
		ids := ""
		for i, t := range templates {
			if i > 0 {
				ids += ", "
			}
			ids += t.ID
		}
		return false, apierr.Invalid("id", "unknown template %q; templates are %s", in.ID, ids)
	}
	_, err = r.writeRevision(ctx, cs, func(t *storage.Tree) error {
		t.Pages = append(t.Pages, treePages(tpl.Pages)...)
		return nil
	})
	return err == nil, err
}

func templateList() []*model.ContentTemplate {
	out := make([]*model.ContentTemplate, 0, len(templates))
	for i := range templates {
		t := templates[i].ContentTemplate
		out = append(out, &t)
	}
	return out
}
