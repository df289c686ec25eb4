package storage_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"docsapi/storage"
	"docsapi/storage/storagetest"
)

// Finding published sites, site redirects and site events, on
// both engines.
func TestPublishedSitesRedirectsEvents(t *testing.T) {
	db := openDB(t, storagetest.Target(t))
	ctx := context.Background()
	b, err := db.CreateOrganizationWithAdmin(ctx, "Acme", "admin@acme.test", "Admin", "hash")
	if err != nil {
		t.Fatal(err)
	}
	org := b.Organization.ID
	host, proxy := "docs.example.com", "example.com/docs_v1"
	published := true
	site := storage.Site{OrganizationID: org, Type: "basic", Title: "Docs", Basename: "docs", Visibility: "public", AgentsContext: "included", AdaptiveSchema: "{}", VisitorSecret: "s"}
	if err := db.CreateSite(ctx, &site, nil, nil, nil); err != nil {
		t.Fatal(err)
	}
	proxied := storage.Site{OrganizationID: org, Type: "basic", Title: "Proxied", Basename: "proxied", Visibility: "public", AgentsContext: "included", AdaptiveSchema: "{}", VisitorSecret: "s"}
	if err := db.CreateSite(ctx, &proxied, nil, nil, nil); err != nil {
		t.Fatal(err)
	}
	hostP, proxyP := &host, &proxy
	if err := db.UpdateSite(ctx, org, site.ID, storage.SitePatch{Hostname: &hostP}); err != nil {
		t.Fatal(err)
	}
	if err := db.UpdateSite(ctx, org, proxied.ID, storage.SitePatch{Proxy: &proxyP, Published: &published}); err != nil {
		t.Fatal(err)
	}
	// Unpublished sites are not found by host.
	if got, err := db.SitesAtHost(ctx, "DOCS.example.com"); err != nil || len(got) != 0 {
		t.Fatalf("unpublished: %v %v", got, err)
	}
	if err := db.UpdateSite(ctx, org, site.ID, storage.SitePatch{Published: &published}); err != nil {
		t.Fatal(err)
	}
	if got, err := db.SitesAtHost(ctx, "DOCS.example.com"); err != nil || len(got) != 1 || got[0].ID != site.ID {
		t.Fatalf("by hostname: %v %v", got, err)
	}
	if got, err := db.SitesAtHost(ctx, "example.com"); err != nil || len(got) != 1 || got[0].ID != proxied.ID {
		t.Fatalf("by proxy: %v %v", got, err)
	}
	// The proxy's "_" is not a LIKE wildcard.
	if got, _ := db.SitesAtHost(ctx, "example_com"); len(got) != 0 {
		t.Fatalf("wildcard: %v", got)
	}
	if s, err := db.SiteByBasename(ctx, org, "proxied"); err != nil || s.ID != proxied.ID {
		t.Fatalf("by basename: %v %v", s.ID, err)
	}
	if _, err := db.OrganizationIDByHostname(ctx, "acme"); !errors.Is(err, storage.ErrNotFound) {
		t.Fatalf("organization without hostname: %v", err)
	}

	// The visitor fallback URL.
	fallback := "https://login.example.com/"
	if err := db.SetSiteFallbackURL(ctx, org, site.ID, &fallback); err != nil {
		t.Fatal(err)
	}
	if u, err := db.SiteFallbackURL(ctx, site.ID); err != nil || u == nil || *u != fallback {
		t.Fatalf("fallback URL: %v %v", u, err)
	}
	if err := db.SetSiteFallbackURL(ctx, "other", site.ID, nil); !errors.Is(err, storage.ErrNotFound) {
		t.Fatalf("another organization's site: %v", err)
	}

	// Customizations: the site's and a site space's, replaced in place.
	for _, settings := range []string{`{"a":1}`, `{"a":2}`} {
		if err := db.SetSiteCustomization(ctx, site.ID, "", settings); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.SetSiteCustomization(ctx, site.ID, "ss1", `{"title":"V"}`); err != nil {
		t.Fatal(err)
	}
	if got, err := db.SiteCustomizations(ctx, site.ID); err != nil || len(got) != 2 || got[""] != `{"a":2}` || got["ss1"] != `{"title":"V"}` {
		t.Fatalf("customizations: %v %v", got, err)
	}
	if ok, err := db.DeleteSiteCustomization(ctx, site.ID, "ss1"); !ok || err != nil {
		t.Fatalf("delete: %v %v", ok, err)
	}

	// Redirects: unique sources per site.
	r := storage.SiteRedirect{SiteID: site.ID, Source: "/old", Destination: `{"kind":"site-space","siteSpaceId":"x"}`}
	if err := db.CreateSiteRedirect(ctx, &r); err != nil {
		t.Fatal(err)
	}
	dup := storage.SiteRedirect{SiteID: site.ID, Source: "/old", Destination: "{}"}
	if err := db.CreateSiteRedirect(ctx, &dup); !errors.Is(err, storage.ErrRedirectSourceTaken) {
		t.Fatalf("duplicate source: %v", err)
	}
	other := storage.SiteRedirect{SiteID: proxied.ID, Source: "/old", Destination: "{}"}
	if err := db.CreateSiteRedirect(ctx, &other); err != nil {
		t.Fatalf("same source in another site: %v", err)
	}
	newSource := "/new"
	if err := db.UpdateSiteRedirect(ctx, site.ID, r.ID, &newSource, nil); err != nil {
		t.Fatal(err)
	}
	if got, err := db.SiteRedirectBySource(ctx, site.ID, "/new"); err != nil || got.ID != r.ID || got.Destination != r.Destination {
		t.Fatalf("by source: %+v %v", got, err)
	}
	if err := db.UpdateSiteRedirect(ctx, site.ID, "nope", &newSource, nil); !errors.Is(err, storage.ErrNotFound) {
		t.Fatalf("update unknown: %v", err)
	}
	if p, err := db.ListSiteRedirects(ctx, site.ID, storage.PageQuery{Limit: 10}); err != nil || len(p.Items) != 1 {
		t.Fatalf("list: %+v %v", p, err)
	}
	if ok, err := db.DeleteSiteRedirect(ctx, site.ID, r.ID); !ok || err != nil {
		t.Fatalf("delete: %v %v", ok, err)
	}

	// Events: read back by time range.
	now := time.Now().UTC().Truncate(time.Millisecond)
	page := "p1"
	events := []storage.SiteEvent{
		{SiteID: site.ID, Type: "page_view", At: now.Add(-time.Hour), VisitorID: "v1", SessionID: "s1", PageID: &page, Claims: "{}", Event: "{}"},
		{SiteID: site.ID, Type: "search_open", At: now, VisitorID: "v2", SessionID: "s2", Claims: `{"plan":"pro"}`, Event: "{}"},
	}
	if err := db.AddSiteEvents(ctx, events); err != nil {
		t.Fatal(err)
	}
	got, err := db.SiteEventsBetween(ctx, site.ID, now.Add(-30*time.Minute), now.Add(time.Minute), 100)
	if err != nil || len(got) != 1 || got[0].Type != "search_open" || got[0].PageID != nil || got[0].Claims != `{"plan":"pro"}` || !got[0].At.Equal(now) {
		t.Fatalf("events: %+v %v", got, err)
	}
}
