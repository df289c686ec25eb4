package graph

import (
	"docsapi/apierr"
	"docsapi/graph/model"
	"docsapi/storage"
	"encoding/json"
)

// Page metadata a front-end app may set through createPage and updatePage:
// layout, cover and variables, in the published interface's shapes.

// layoutFlags are the boolean switches of a page layout.
var layoutFlags = []string{"cover", "title", "description", "tableOfContents", "outline", "pagination", "metadata"}

// checkLayout validates a partial layout {width, coverSize, <flags>}; keys
// left out keep the page's current (or default) value.
func checkLayout(in map[string]any) error {
	for key, v := range in {
		field := "layout." + key
		switch key {
		case "width":
			s, ok := v.(string)
			if !ok || !model.PageWidth(s).IsValid() {
				return apierr.Invalid(field, "must be one of %s", model.PageWidths.List())
			}
		case "coverSize":
			s, ok := v.(string)
			if !ok || !model.PageCoverSize(s).IsValid() {
				return apierr.Invalid(field, "must be one of %s", model.PageCoverSizes.List())
			}
		default:
			known := false
			for _, f := range layoutFlags {
				known = known || f == key
			}
			if !known {
				return apierr.Invalid(field, "is not a layout setting (width, coverSize, %v)", layoutFlags)
			}
			if _, ok := v.(bool); !ok {
				return apierr.Invalid(field, "must be a boolean")
			}
		}
	}
	return nil
}

// mergeLayout applies a partial layout over the stored one.
func mergeLayout(cur, in map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range cur {
		out[k] = v
	}
	for k, v := range in {
		out[k] = v
	}
	return out
}

// checkCover validates {ref?, refDark?, yPos?}: each ref a file of the
// revision ({kind: file, file}) or a URL ({kind: url, url}); null clears the
// cover (an empty object).
func checkCover(in map[string]any, files []*storage.File) error {
	for key, v := range in {
		field := "cover." + key
		switch key {
		case "ref", "refDark":
			ref, ok := v.(map[string]any)
			if !ok {
				return apierr.Invalid(field, "must be an object {kind: file, file} or {kind: url, url}")
			}
			switch ref["kind"] {
			case "file":
				id, _ := ref["file"].(string)
				found := false
				for _, f := range files {
					found = found || f.ID == id
				}
				if !found {
					return apierr.Invalid(field+".file", "no file %q in this revision", id)
				}
			case "url":
				u, _ := ref["url"].(string)
				if err := checkURL(field+".url", u, 2048); err != nil {
					return err
				}
			default:
				return apierr.Invalid(field+".kind", "must be file or url")
			}
		case "yPos":
			switch v.(type) {
			case float64, int, int64, json.Number:
			default:
				return apierr.Invalid(field, "must be a number")
			}
		default:
			return apierr.Invalid(field, "is not a cover setting (ref, refDark, yPos)")
		}
	}
	return nil
}

// checkPageVariables validates a page's variables with the same rules as
// space variables (checkVariable); null values are refused here since the
// map replaces the page's variables.
func checkPageVariables(in map[string]any) error {
	if len(in) > maxVariables {
		return apierr.Invalid("variables", "a page has at most %d variables", maxVariables)
	}
	for name, v := range in {
		if v == nil {
			return apierr.Invalid("variables."+name, "must be a string, a number or a boolean")
		}
		if err := checkVariable(name, v); err != nil {
			return err
		}
	}
	return nil
}

// checkPageSettings refuses layout, cover and variables on pages that have
// none (groups and links) and checks their shapes.
func checkPageSettings(pageType string, layout, cover, variables map[string]any) error {
	if pageType != "document" && pageType != "computed" {
		for field, v := range map[string]map[string]any{"layout": layout, "cover": cover, "variables": variables} {
			if v != nil {
				return apierr.Invalid(field, "only document and computed pages have one")
			}
		}
	}
	if layout != nil {
		if err := checkLayout(layout); err != nil {
			return err
		}
	}
	if variables != nil {
		return checkPageVariables(variables)
	}
	return nil
}

// applyPageSettings sets them on p inside a content change: layout keys
// merge over the current layout, a cover replaces the current one (an empty
// object removes it), variables replace the page's variables. files gives
// the revision's files, asked for only to check a cover (a partial page
// edit reads the file list only then).
func applyPageSettings(files func() []*storage.File, p *storage.TreePage, layout, cover, variables map[string]any) error {
	if layout != nil {
		p.Meta.Layout = mergeLayout(p.Meta.Layout, layout)
	}
	if cover != nil {
		if err := checkCover(cover, files()); err != nil {
			return err
		}
		p.Meta.Cover = cover
		if len(cover) == 0 {
			p.Meta.Cover = nil
		}
	}
	if variables != nil {
		p.Meta.Variables = variables
	}
	return nil
}
