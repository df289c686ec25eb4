package graph

import (
	"context"
	"strings"

	"docsapi/apierr"
	"docsapi/graph/model"
	"docsapi/storage"
)

const maxSearchQuery = 512

// searchPage reads the offset-based cursor of search lists (ranking is not
// stable under writes, so search pages by rank position).
func searchPage(page *string, limit *int, query string) (offset, size int, err error) {
	if err := checkLen("query", strings.TrimSpace(query), 1, maxSearchQuery); err != nil {
		return 0, 0, err
	}
	pq, err := pageQuery(page, limit)
	if err != nil {
		return 0, 0, err
	}
	if pq.After != nil {
		if pq.After.ID != searchCursor || pq.After.N < 0 {
			return 0, 0, apierr.Invalid("page", "is a page cursor of another list")
		}
		offset = int(pq.After.N)
	}
	return offset, pq.Limit, nil
}

func nextSearchPage(offset, size, count int) *model.Next {
	if offset+size >= count || size == 0 {
		return nil
	}
	return &model.Next{Page: storage.Cursor{N: int64(offset + size), ID: searchCursor, List: searchCursor}.Encode()}
}

// searchCursor is the ID and List of search cursors (an offset in N).
const searchCursor = "search"

func (r *Resolver) pageHitModel(h storage.PageHit) *model.SearchPageResult {
	m := &model.SearchPageResult{ID: h.Page.ID, Title: h.Page.Title, Path: h.Page.Path,
		Urls: model.SearchUrls{App: r.appURL(h.SpaceID, h.Page.Path)}, Sections: []*model.SearchSectionResult{}}
	for _, s := range h.Sections {
		p := h.Page.Path
		if s.SectionID != "" {
			p += "#" + s.SectionID
		}
		m.Sections = append(m.Sections, &model.SearchSectionResult{ID: s.SectionID, Title: s.Title, Path: p, Body: s.Excerpt,
			Urls: model.SearchUrls{App: r.appURL(h.SpaceID, p)}})
	}
	return m
}

func (r *Resolver) searchSpace(ctx context.Context, spaceID, query string, page *string, limit *int) (*model.SearchPageList, error) {
	if _, err := r.contentSpace(ctx, spaceID, false); err != nil {
		return nil, err
	}
	offset, size, err := searchPage(page, limit, query)
	if err != nil {
		return nil, err
	}
	hits, count, err := r.Store.SearchPages(ctx, spaceID, query, offset, size)
	if err != nil {
		return nil, err
	}
	out := &model.SearchPageList{Count: count, Items: []*model.SearchPageResult{}, Next: nextSearchPage(offset, size, count)}
	for _, h := range hits {
		out.Items = append(out.Items, r.pageHitModel(h))
	}
	return out, nil
}

// searchOrganization searches the spaces of the organization the caller
// can see.
func (r *Resolver) searchOrganization(ctx context.Context, orgID, query string, page *string, limit *int) (*model.SearchSpaceList, error) {
	_, a, err := r.orgContent(ctx, orgID)
	if err != nil {
		return nil, err
	}
	offset, size, err := searchPage(page, limit, query)
	if err != nil {
		return nil, err
	}
	// Only the spaces the caller sees, selected in SQL.
	ids, titles, err := r.Store.SearchableSpaces(ctx, storage.SpaceFilter{OrganizationID: orgID, Visible: a.visibleSpaces()})
	if err != nil {
		return nil, err
	}
	return r.searchSpaces(ctx, ids, titles, query, offset, size)
}

// searchSpaces ranks spaceIDs (sorted) by their best page for query; titles
// names each space in the answer.
func (r *Resolver) searchSpaces(ctx context.Context, spaceIDs []string, titles map[string]string, query string, offset, size int) (*model.SearchSpaceList, error) {
	hits, count, err := r.Store.SearchSpaces(ctx, spaceIDs, query, offset, size, 10)
	if err != nil {
		return nil, err
	}
	out := &model.SearchSpaceList{Count: count, Items: []*model.SearchSpaceResult{}, Next: nextSearchPage(offset, size, count)}
	for _, h := range hits {
		sr := &model.SearchSpaceResult{ID: h.SpaceID, Title: titles[h.SpaceID], Pages: []*model.SearchPageResult{}}
		for _, p := range h.Pages {
			sr.Pages = append(sr.Pages, r.pageHitModel(p))
		}
		out.Items = append(out.Items, sr)
	}
	return out, nil
}
