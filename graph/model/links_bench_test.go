package model

import (
	"encoding/json"
	"io"
	"strconv"
	"testing"
)

// BenchmarkLinkListJSON: a links page of 50 targets, each linked from 2
// pages, in a revision of 200 pages (every location carries the revision).
func BenchmarkLinkListJSON(b *testing.B) {
	org := &Organization{Object: "organization", ID: "o1", Title: "Acme"}
	space := &Space{Object: "space", ID: "s1", Type: SpaceTypeDocument, Title: "Docs"}
	rev := &Revision{Object: "revision", ID: "r1", Pages: []*RevisionPage{}}
	for i := range 200 {
		slug := "page-" + strconv.Itoa(i)
		rev.Pages = append(rev.Pages, &RevisionPage{ID: "p" + strconv.Itoa(i), Title: "Page", Kind: "sheet", Type: "document",
			Urls: &PageUrls{App: "http://127.0.0.1:8080/app/spaces/s1/" + slug}, Slug: &slug, Path: &slug, Pages: []*RevisionPage{}, Layout: &PageLayout{Width: "default"}})
	}
	vc := &VersionContext{Type: "revision", Revision: rev}
	at := func(i int) *ContentLocation {
		return &ContentLocation{Kind: "page", Organization: org, Space: space, VersionContext: vc, Page: rev.Pages[i%200]}
	}
	list := &LinkList{Count: 50}
	for i := range 50 {
		list.Items = append(list.Items, &ContentReferenceUsage{Status: "ok", Relation: "reference", TargetReference: at(i), LocationReferences: []*ContentLocation{at(i + 1), at(i + 2)}})
	}
	b.Run("encoding/json", func(b *testing.B) {
		for b.Loop() {
			enc := json.NewEncoder(io.Discard)
			enc.SetEscapeHTML(false)
			enc.Encode(list)
		}
	})
	b.Run("AppendJSON", func(b *testing.B) {
		var buf []byte
		for b.Loop() {
			buf = list.AppendJSON(buf[:0])
		}
	})
}
