package graph

import (
	"context"
	"slices"
	"sort"

	"docsapi/apierr"
	"docsapi/auth"
	"docsapi/graph/model"
	"docsapi/storage"
)

// siteReader is who reads a site's published content and what they see:
// a member with READ sees every site space; anyone else (the site's
// apiToken, another organization's renderer on a public site) reads as the
// site's audience, with its visitor's claims.
type siteReader struct {
	org     storage.Organization
	site    storage.Site
	visible func(*string) bool
}

func (r *Resolver) siteReaderOf(ctx context.Context, orgID, siteID, action string) (siteReader, error) {
	c, err := readerOf(ctx)
	if err != nil {
		return siteReader{}, err
	}
	if c.Kind != auth.KindSite {
		s, site, err := r.siteScope(ctx, orgID, siteID, "read", action)
		if err == nil {
			return siteReader{org: s.Org, site: site, visible: func(*string) bool { return true }}, nil
		}
		if st := apierr.Status(err); st != 403 && st != 404 {
			return siteReader{}, err
		}
	}
	a, err := r.audienceOf(ctx, orgID, siteID, nil, nil)
	if err != nil {
		return siteReader{}, err
	}
	return siteReader{org: a.org, site: a.site, visible: visibleTo(a.site, a.claims)}, nil
}

// shownSiteSpaces are the live site spaces a reader sees (in a shown
// section), and the default one of each section (of the root without
// sections).
func shownSiteSpaces(site storage.Site, st storage.SiteStructure, visible func(*string) bool) (shown []storage.SiteSpace, defaults []string) {
	sections := map[string]storage.SiteSection{}
	for _, sec := range st.Sections {
		if visible(sec.Condition) {
			sections[sec.ID] = sec
		}
	}
	firstOf := map[string]string{}
	for _, ss := range st.SiteSpaces {
		key := ""
		if ss.SectionID != nil {
			if _, ok := sections[*ss.SectionID]; !ok {
				continue
			}
			key = *ss.SectionID
		}
		if ss.Space.DeletedAt != nil || !visible(ss.Condition) {
			continue
		}
		shown = append(shown, ss)
		if _, ok := firstOf[key]; !ok {
			firstOf[key] = ss.ID
		}
	}
	for key, first := range firstOf {
		def := st.DefaultSiteSpaceID
		if key != "" {
			def = sections[key].DefaultSiteSpaceID
		}
		if def != nil && slices.ContainsFunc(shown, func(ss storage.SiteSpace) bool { return ss.ID == *def }) {
			first = *def
		}
		defaults = append(defaults, first)
	}
	return shown, defaults
}

// searchSite searches the site spaces the scope names among those the
// reader sees; ids the reader does not see are 400s naming the field.
func (r *Resolver) searchSite(ctx context.Context, orgID, siteID string, in model.SearchSiteContentInput, page *string, limit *int) (*model.SearchSpaceList, error) {
	rd, err := r.siteReaderOf(ctx, orgID, siteID, "searching the site")
	if err != nil {
		return nil, err
	}
	offset, size, err := searchPage(page, limit, in.Query)
	if err != nil {
		return nil, err
	}
	st, err := r.Store.SiteStructure(ctx, rd.site.ID)
	if err != nil {
		return nil, err
	}
	shown, defaults := shownSiteSpaces(rd.site, st, rd.visible)
	byID := map[string]storage.SiteSpace{}
	for _, ss := range shown {
		byID[ss.ID] = ss
	}
	pick := func(field string, ids []string) ([]string, error) {
		for i, id := range ids {
			if _, ok := byID[id]; !ok {
				return nil, apierr.Invalid(field, "item %d: no site space %q in this site", i, id)
			}
		}
		return ids, nil
	}
	mode, field := "default", "scope"
	var chosen []string
	switch {
	case in.Scope != nil:
		mode, field = in.Scope.Mode, "scope.mode"
		switch mode {
		case "default":
			extra, err := pick("scope.includedSiteSpaces", in.Scope.IncludedSiteSpaces)
			if err != nil {
				return nil, err
			}
			chosen = append(defaults, extra...)
		case "specific":
			if len(in.Scope.SiteSpaceIds) == 0 {
				return nil, apierr.Invalid("scope.siteSpaceIds", "is required for mode specific")
			}
			if chosen, err = pick("scope.siteSpaceIds", in.Scope.SiteSpaceIds); err != nil {
				return nil, err
			}
		}
	case in.Mode != nil:
		mode, field = *in.Mode, "mode"
		switch mode {
		case "specific":
			if len(in.SiteSpaceIds) == 0 {
				return nil, apierr.Invalid("siteSpaceIds", "is required for mode specific")
			}
			if chosen, err = pick("siteSpaceIds", in.SiteSpaceIds); err != nil {
				return nil, err
			}
		case "current":
			if in.SiteSpaceID == nil {
				return nil, apierr.Invalid("siteSpaceId", "is required for mode current")
			}
			if _, err := pick("siteSpaceId", []string{*in.SiteSpaceID}); err != nil {
				return nil, err
			}
			chosen = append(defaults, *in.SiteSpaceID)
		}
	case len(in.SiteSpaceIds) > 0:
		mode = "specific"
		if chosen, err = pick("siteSpaceIds", in.SiteSpaceIds); err != nil {
			return nil, err
		}
	default:
		chosen = defaults
	}
	switch mode {
	case "all":
		chosen = nil
		for _, ss := range shown {
			chosen = append(chosen, ss.ID)
		}
	case "default", "specific", "current":
	default:
		return nil, apierr.Invalid(field, "must be default, specific or all")
	}
	titles := map[string]string{}
	var spaceIDs []string
	for _, id := range chosen {
		ss := byID[id]
		if _, dup := titles[ss.SpaceID]; !dup {
			titles[ss.SpaceID] = ss.Space.Title
			spaceIDs = append(spaceIDs, ss.SpaceID)
		}
	}
	sort.Strings(spaceIDs)
	return r.searchSpaces(ctx, spaceIDs, titles, in.Query, offset, size)
}
