package storage

import (
	"context"
	"fmt"
	"reflect"
	"testing"
)

// TestLinksOfPagesAnswerAsEachPage: the links and the backlinks of many
// pages read at once are, page by page, ListLinks' and Backlinks' answers
// (targets resolved when written, relative links resolved in the
// revision, through their alternative path, files by name, broken ones),
// for every status, limits and a second page; the batch reads its pages'
// links in one join whatever their number.
func TestLinksOfPagesAnswerAsEachPage(t *testing.T) {
	ls := backlinksSpace(t, 600)
	ctx := context.Background()
	pages, err := ls.db.RevisionPages(ctx, ls.active)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, p := range pages {
		ids = append(ids, p.ID)
	}
	ids = append(ids, ids[3]) // a page asked twice is answered twice
	// A few pages (an IN list of their ids) and more than an IN list
	// takes (the revision's links, keeping theirs); each answer of the
	// first and every seventh of the others is compared.
	few := ids[:60]
	show := func(v any) string { return fmt.Sprintf("%+v", v) }
	same := func(a, b Page[LinkUsage]) bool {
		return a.Count == b.Count && len(a.Items) == len(b.Items) && (len(a.Items) == 0 || reflect.DeepEqual(a.Items, b.Items)) &&
			reflect.DeepEqual(a.Next, b.Next)
	}
	for _, status := range []string{"", "ok", "broken", "in-app"} {
		for _, pq := range []PageQuery{{Limit: 20}, {Limit: 1}, {Limit: 0}} {
			for _, ids := range [][]string{few, ids} {
				ls.db.linkGroups = linkGroupCache{} // cold: the batch reads
				batch, err := ls.db.ListLinksOfPages(ctx, ls.active, ids, status, pq)
				if err != nil {
					t.Fatal(err)
				}
				ls.db.linkGroups = linkGroupCache{} // and each page reads its own
				for i, id := range ids {
					if len(ids) > len(few) && i%7 != 0 {
						continue
					}
					p, stats, err := ls.db.ListLinks(ctx, ls.active, id, status, pq)
					if err != nil {
						t.Fatal(err)
					}
					if !same(batch[i].Page, p) || batch[i].Stats != stats {
						t.Errorf("links of %s (%q, limit %d): batch %s %+v, alone %s %+v", id, status, pq.Limit, show(batch[i].Page), batch[i].Stats, show(p), stats)
					}
					if p.Next != nil { // the next page, from the batch's cursor
						next := PageQuery{Limit: pq.Limit, After: batch[i].Page.Next}
						b2, err := ls.db.ListLinksOfPages(ctx, ls.active, []string{id}, status, next)
						p2, _, err2 := ls.db.ListLinks(ctx, ls.active, id, status, next)
						if err != nil || err2 != nil || !same(b2[0].Page, p2) {
							t.Errorf("links of %s, next page: %s %v, alone %s %v", id, show(b2), err, show(p2), err2)
						}
					}
				}
			}
		}
	}
	nonEmpty := 0
	for _, pq := range []PageQuery{{Limit: 20}, {Limit: 1}, {Limit: 0}} {
		ls.db.linkGroups = linkGroupCache{}
		batch, err := ls.db.BacklinksOfPages(ctx, ls.active, ids, pq)
		if err != nil {
			t.Fatal(err)
		}
		for i, id := range ids {
			if i%3 != 0 {
				continue
			}
			p, err := ls.db.Backlinks(ctx, ls.active, "page", id, pq)
			if err != nil {
				t.Fatal(err)
			}
			if p.Items == nil {
				p.Items = batch[i].Items // no items: nil or empty alike
			}
			if !reflect.DeepEqual(batch[i], p) {
				t.Errorf("backlinks of %s (limit %d): batch %s, alone %s", id, pq.Limit, show(batch[i]), show(p))
			}
			if p.Count > 0 {
				nonEmpty++
			}
			for p.Next != nil && pq.Limit > 0 {
				next := PageQuery{Limit: pq.Limit, After: p.Next}
				b2, err := ls.db.BacklinksOfPages(ctx, ls.active, []string{id}, next)
				if p, err = ls.db.Backlinks(ctx, ls.active, "page", id, next); err != nil {
					t.Fatal(err)
				}
				if p.Items == nil {
					p.Items = b2[0].Items
				}
				if !reflect.DeepEqual(b2[0], p) {
					t.Errorf("backlinks of %s, next page: batch %s, alone %s", id, show(b2[0]), show(p))
				}
			}
		}
	}
	if nonEmpty < 150 {
		t.Errorf("only %d answers with backlinks: the fixture links too little to compare", nonEmpty)
	}
}
