package graph

import (
	"context"
	"net/url"
	"slices"
	"sort"
	"strings"

	"docsapi/apierr"
	"docsapi/graph/model"
	"docsapi/importer"
	"docsapi/storage"
)

// contentTemplate is a built-in template: pages added to a space, the
// revision variables and reusable contents it brings, and the content
// references its Markdown can name.
type contentTemplate struct {
	model.ContentTemplate
	Pages            []*importer.Page
	Refs             []templateRef
	Variables        map[string]any
	ReusableContents []map[string]any
}

// templateRef is a content reference a template takes in
// params.contentRefs. Its Markdown names it as {{ref:NAME}}: a file
// reference becomes the file's name (a file link), a page reference the
// page's path from the root (a page link), a URL reference the URL. A line
// naming a reference the caller did not give is left out.
type templateRef struct {
	Name  string
	Kinds []string // file | page | url
}

// templates is the built-in set (documented in README "Content").
var templates = []contentTemplate{
	{ContentTemplate: model.ContentTemplate{ID: "blank", Title: "Blank", Description: "A single empty page."},
		Pages: []*importer.Page{{Title: "Untitled", Slug: "untitled"}}},
	{ContentTemplate: model.ContentTemplate{ID: "getting-started", Title: "Getting started",
		Description: "An introduction, a quick start and a FAQ for a product. params.contentRefs: logo (a file shown on the introduction), support (a page or URL the FAQ points to). Sets the variables product and version when the space has none of that name."},
		Refs:      []templateRef{{Name: "logo", Kinds: []string{"file"}}, {Name: "support", Kinds: []string{"page", "url"}}},
		Variables: map[string]any{"product": "Product", "version": "1.0"},
		Pages: []*importer.Page{
			{Title: "Introduction", Slug: "introduction", Markdown: "![Logo]({{ref:logo}})\n\nWelcome! This space documents the product.\n\n## What you will find\n\n- [Quick start](quick-start.md): set up in five minutes.\n- [FAQ](faq.md): answers to common questions.\n"},
			{Title: "Quick start", Slug: "quick-start", Markdown: "## Install\n\n```sh\ncurl -fsSL https://example.com/install.sh | sh\n```\n\n## First steps\n\n1. Create an account.\n2. Create a project.\n3. Invite your team.\n"},
			{Title: "FAQ", Slug: "faq", Markdown: "## Where do I get help?\n\nAsk your administrator, or read the [introduction](introduction.md).\n\nStill stuck? Read [support]({{ref:support}}).\n"},
		}},
	{ContentTemplate: model.ContentTemplate{ID: "knowledge-base", Title: "Knowledge base", Description: "A team knowledge base with onboarding, processes and tools, and a reusable \"Team contacts\" content."},
		ReusableContents: []map[string]any{{"title": "Team contacts", reusableBodyKey: "Who to ask, and how:\n\n- Support: support@example.com\n- **On-call**: the #incidents channel\n"}},
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
	refs, err := tpl.refsOf(in.Params)
	if err != nil {
		return false, err
	}
	_, err = r.writeRevision(ctx, cs, func(t *storage.Tree) error {
		values, err := refValues(t, refs)
		if err != nil {
			return err
		}
		pages := treePages(tpl.Pages)
		(&storage.Tree{Pages: pages}).Walk(func(p, _ *storage.TreePage) bool {
			p.Markdown = substituteRefs(p.Markdown, values)
			return true
		})
		t.Pages = append(t.Pages, pages...)
		tpl.addRevisionData(t)
		return nil
	})
	return err == nil, err
}

// refsOf reads params.contentRefs: each name must be one the template
// takes, each value a content reference of a kind that name accepts.
func (tpl *contentTemplate) refsOf(params map[string]any) (map[string]map[string]any, error) {
	raw, ok := params["contentRefs"]
	if !ok || raw == nil {
		return nil, nil
	}
	given, ok := raw.(map[string]any)
	if !ok {
		return nil, apierr.Invalid("params.contentRefs", "must be an object of reference name to content reference")
	}
	out := map[string]map[string]any{}
	for name, v := range given {
		field := "params.contentRefs." + name
		var decl *templateRef
		for i := range tpl.Refs {
			if tpl.Refs[i].Name == name {
				decl = &tpl.Refs[i]
			}
		}
		if decl == nil {
			return nil, apierr.Invalid(field, "template %s takes no reference %q; %s", tpl.ID, name, tpl.refNames())
		}
		ref, ok := v.(map[string]any)
		kind, _ := ref["kind"].(string)
		if !ok || !slices.Contains(decl.Kinds, kind) {
			return nil, apierr.Invalid(field, "must be a content reference of kind %s", strings.Join(decl.Kinds, " or "))
		}
		id, _ := ref[kind].(string)
		if kind == "url" {
			if err := checkURL(field+".url", id, maxImportURLLen); err != nil {
				return nil, err
			}
		} else if id == "" {
			return nil, apierr.Invalid(field+"."+kind, "is required")
		}
		out[name] = ref
	}
	return out, nil
}

func (tpl *contentTemplate) refNames() string {
	if len(tpl.Refs) == 0 {
		return "it takes none"
	}
	var names []string
	for _, r := range tpl.Refs {
		names = append(names, r.Name+" ("+strings.Join(r.Kinds, ", ")+")")
	}
	return "it takes " + strings.Join(names, ", ")
}

// refValues resolves the given references against the tree the template
// is applied to: files by id (their name), pages by id (their path from
// the root). A file or page the space does not have is a 400.
func refValues(t *storage.Tree, refs map[string]map[string]any) (map[string]string, error) {
	names := make([]string, 0, len(refs))
	for name := range refs {
		names = append(names, name)
	}
	sort.Strings(names) // the first bad reference, in a stable order
	out := map[string]string{}
	for _, name := range names {
		ref := refs[name]
		kind := ref["kind"].(string)
		id, _ := ref[kind].(string)
		field := "params.contentRefs." + name + "." + kind
		switch kind {
		case "url":
			out[name] = id
		case "file":
			for _, f := range t.Files {
				if f.ID == id {
					out[name] = url.PathEscape(f.Name)
				}
			}
		case "page":
			if p, _, _ := t.Find(id); p != nil && p.Path != "" {
				out[name] = "/" + p.Path
			}
		}
		if out[name] == "" {
			return nil, apierr.Invalid(field, "%s %q does not exist in the space", kind, id)
		}
	}
	return out, nil
}

// substituteRefs replaces {{ref:NAME}} with the reference's value and
// leaves out the lines naming references without one.
func substituteRefs(md string, values map[string]string) string {
	if !strings.Contains(md, "{{ref:") {
		return md
	}
	lines := strings.SplitAfter(md, "\n")
	out := lines[:0]
	for _, line := range lines {
		keep := true
		for strings.Contains(line, "{{ref:") && keep {
			start := strings.Index(line, "{{ref:")
			end := strings.Index(line[start:], "}}")
			if end < 0 {
				break
			}
			name := line[start+len("{{ref:") : start+end]
			v, ok := values[name]
			if !ok {
				keep = false
				break
			}
			line = line[:start] + v + line[start+end+2:]
		}
		if keep {
			out = append(out, line)
		}
	}
	// A left-out line may leave two blank lines in a row.
	return strings.TrimLeft(strings.ReplaceAll(strings.Join(out, ""), "\n\n\n", "\n\n"), "\n")
}

// addRevisionData gives the revision the template's variables (names the
// space already has keep their values) and reusable contents (new ids).
func (tpl *contentTemplate) addRevisionData(t *storage.Tree) {
	for k, v := range tpl.Variables {
		if _, ok := t.Variables[k]; !ok {
			if t.Variables == nil {
				t.Variables = map[string]any{}
			}
			t.Variables[k] = v
		}
	}
	for _, rc := range tpl.ReusableContents {
		c := map[string]any{"id": storage.NewID()}
		for k, v := range rc {
			c[k] = v
		}
		t.ReusableContents = append(t.ReusableContents, c)
	}
}

func templateList() []*model.ContentTemplate {
	out := make([]*model.ContentTemplate, 0, len(templates))
	for i := range templates {
		t := templates[i].ContentTemplate
		out = append(out, &t)
	}
	return out
}
