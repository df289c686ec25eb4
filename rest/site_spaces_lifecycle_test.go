package rest_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"docsapi/apitest"
	"docsapi/graph"
)

// A space transferred to another organization (alone or with its
// collection) or purged from the trash leaves the sites of its old
// organization: its site spaces go, a section left without site spaces
// goes, and the successor rule picks the defaults.
func TestSpacesLeaveSites(t *testing.T) {
	c := newSiteEnv(t)
	admin := c.Admin.Token
	sister, _ := c.NewOrg("Sister", "owner@sister.test")
	c.addMember(sister, c.Admin.ID, "admin")
	col := c.collection(admin, map[string]any{"title": "Guides"})
	space := map[string]string{}
	for _, title := range []string{"AA", "BB", "CC", "DD", "XX", "YY"} {
		space[title] = c.space(admin, map[string]any{"title": title})
	}
	space["EE"] = c.space(admin, map[string]any{"title": "EE", "parent": col})
	site := c.site(map[string]any{"title": "Docs", "spaces": []string{space["AA"], space["BB"]}})
	for _, title := range []string{"CC", "DD", "EE"} {
		c.Must(201, "POST", site+"/sections", admin, map[string]any{"spaceId": space[title], "title": title})
	}
	_, sec := structureIDs(t, c, site)
	c.Must(201, "POST", site+"/section-groups", admin, map[string]any{"title": "G", "sections": []string{sec["DD"]}})
	c.Must(200, "PATCH", site, admin, map[string]any{"defaultSiteSection": sec["EE"]})
	wantOutline(t, c, site, "sections: AA(AA*,BB) CC(CC*) EE*(EE*) {G: DD(DD*)}")
	rootSite := c.site(map[string]any{"title": "Root", "spaces": []string{space["XX"], space["YY"], space["AA"]}})
	transfer := func(path string) {
		t.Helper()
		c.Must(200, "POST", path+"/transfer", admin, map[string]any{"organization": sister})
	}
	purge := func(id string) {
		t.Helper()
		c.Must(205, "DELETE", "/v1/spaces/"+id, admin, nil)
		c.Clock.Advance(graph.TrashRetention + 1)
		if n, err := c.Server.Resolver.PurgeTrash(context.Background()); err != nil || n != 1 {
			t.Fatalf("purge: %d %v", n, err)
		}
	}

	// The default site space of a section leaves: the next one takes over.
	transfer("/v1/spaces/" + space["AA"])
	wantOutline(t, c, site, "sections: AA(BB*) CC(CC*) EE*(EE*) {G: DD(DD*)}")
	wantOutline(t, c, rootSite, "siteSpaces: XX*,YY")
	// The only site space of a section leaves: the section goes.
	transfer("/v1/spaces/" + space["CC"])
	wantOutline(t, c, site, "sections: AA(BB*) EE*(EE*) {G: DD(DD*)}")
	// Purged from the trash: the same, and a group keeps its place emptied.
	purge(space["DD"])
	wantOutline(t, c, site, "sections: AA(BB*) EE*(EE*) {G: }")
	// With its collection, out of the default section: the first
	// remaining section becomes the default.
	transfer("/v1/collections/" + col)
	wantOutline(t, c, site, "sections: AA*(BB*) {G: }")
	everySectionOnce(t, c, site)
	// The last section goes: the site has no sections, so no groups either.
	purge(space["BB"])
	wantOutline(t, c, site, "siteSpaces: ")
	if n := len(items(t, c.Must(200, "GET", site+"/section-groups", admin, nil))); n != 0 {
		t.Errorf("%d groups left in a site without sections", n)
	}
	// The root default leaves a site without sections.
	transfer("/v1/spaces/" + space["XX"])
	wantOutline(t, c, rootSite, "siteSpaces: YY*")

	// Nothing of the old organization's sites points at the transferred spaces.
	for _, id := range []string{space["AA"], space["CC"], space["EE"], space["XX"]} {
		c.Run(t, []apitest.Scenario{{Name: "no site holds it", Method: "GET", Path: c.sites() + "?space=" + id, Token: admin, Status: 200, Contains: []string{`"count":0`}}})
	}
	c.Run(t, []apitest.Scenario{
		{Name: "site spaces counted again", Method: "GET", Path: rootSite, Token: admin, Status: 200, Contains: []string{`"siteSpaces":1`}},
		// The structure is still editable (its version moved on with the removals).
		{Name: "structure still changes", Method: "POST", Path: site + "/site-spaces", Token: admin, Body: map[string]any{"spaceId": space["YY"]}, Status: 201},
		// The transferred space is free to join the sites of its new organization.
		{Name: "a site of the new organization takes it", Method: "POST", Path: "/v1/orgs/" + sister + "/sites", Token: admin,
			Body: map[string]any{"title": "Sister docs", "spaces": []string{space["AA"]}}, Status: 201, Contains: []string{`"siteSpaces":1`}},
	})
	wantOutline(t, c, site, "siteSpaces: YY*")
}

// A space in the trash stays linked where it was and is marked the same way
// in every management answer: its space's deletedAt, no urls.published, its
// default flag kept. The published structure leaves it out; a restore
// brings it back as it was.
func TestTrashedSpacesInSites(t *testing.T) {
	c := newSiteEnv(t)
	admin := c.Admin.Token
	aa, bb, cc := c.space(admin, map[string]any{"title": "AA"}), c.space(admin, map[string]any{"title": "BB"}), c.space(admin, map[string]any{"title": "CC"})
	site := c.site(map[string]any{"title": "Docs", "spaces": []string{aa, bb}})
	c.Must(201, "POST", site+"/sections", admin, map[string]any{"spaceId": cc, "title": "CC"})
	c.Must(200, "POST", site+"/publish", admin, nil)
	c.Must(205, "DELETE", "/v1/spaces/"+aa, admin, nil)
	c.Must(205, "DELETE", "/v1/spaces/"+cc, admin, nil)

	// check finds every site space of an answer and checks how each is marked.
	check := func(what string, body []byte) {
		t.Helper()
		var seen int
		var walk func(v any)
		walk = func(v any) {
			switch v := v.(type) {
			case map[string]any:
				if v["object"] == "site-space" {
					seen++
					sp := v["space"].(map[string]any)
					trashed := sp["deletedAt"] != nil // absent in REST, null in GraphQL
					published := v["urls"].(map[string]any)["published"] != nil
					if want := sp["id"] == aa || sp["id"] == cc; trashed != want || published == want {
						t.Errorf("%s: site space of %s: deletedAt %v, urls.published %v", what, sp["title"], trashed, published)
					}
					if sp["id"] == aa && v["default"] != true {
						t.Errorf("%s: the trashed default lost its flag: %v", what, v)
					}
				}
				if v["object"] == "site-section" && v["title"] == "CC" {
					if _, published := v["urls"].(map[string]any)["published"]; published {
						t.Errorf("%s: a section with only trashed spaces has a published URL", what)
					}
				}
				for _, x := range v {
					walk(x)
				}
			case []any:
				for _, x := range v {
					walk(x)
				}
			}
		}
		var v any
		apitest.Response{Body: body}.Decode(t, &v)
		walk(v)
		if seen == 0 {
			t.Errorf("%s: no site space", what)
		}
	}
	for _, p := range []string{"/structure", "/site-spaces", "/sections"} {
		check(p, c.Must(200, "GET", site+p, admin, nil).Body)
	}
	check("site-spaces?default=true", c.Must(200, "GET", site+"/site-spaces?default=true", admin, nil).Body)
	data := gqlData(t, c.Env, admin, `query($o: ID!, $s: ID!) { siteSpaces(organizationId: $o, siteId: $s) { items { object default space { id title deletedAt } urls { published } } } }`,
		map[string]any{"o": c.Org, "s": site[strings.LastIndex(site, "/")+1:]})
	check("graphql siteSpaces", mustJSON(t, data))
	c.Run(t, []apitest.Scenario{
		{Name: "the site counts every linked site space", Method: "GET", Path: site, Token: admin, Status: 200, Contains: []string{`"siteSpaces":3`}},
		{Name: "the site is still found by the trashed space", Method: "GET", Path: c.sites() + "?space=" + aa, Token: admin, Status: 200, Contains: []string{`"count":1`}},
	})
	published := string(c.Must(200, "GET", site+"/published", admin, nil).Body)
	if strings.Contains(published, aa) || strings.Contains(published, cc) || !strings.Contains(published, bb) {
		t.Errorf("published structure shows trashed spaces: %s", published)
	}
	wantOutline(t, c, site, "sections: AA*(AA*,BB) CC(CC*)")
	c.Must(200, "POST", "/v1/spaces/"+aa+"/restore", admin, nil)
	for _, ss := range items(t, c.Must(200, "GET", site+"/site-spaces?default=true", admin, nil)) {
		if sp := ss["space"].(map[string]any); sp["id"] == aa && (sp["deletedAt"] != nil || ss["urls"].(map[string]any)["published"] == nil) {
			t.Errorf("restored default: %v", ss)
		}
	}
}

// 201 answers of site spaces, sections, groups and share links carry a
// Location header: their urls.location.
func TestSiteItemLocations(t *testing.T) {
	c := newSiteEnv(t)
	admin := c.Admin.Token
	aa, bb := c.space(admin, map[string]any{"title": "AA"}), c.space(admin, map[string]any{"title": "BB"})
	site := c.site(map[string]any{"title": "Docs", "spaces": []string{aa}})
	base := c.HTTP.URL + site
	var section string
	located := func(kind string, id *string) func(r apitest.Response) {
		return func(r apitest.Response) {
			obj := r.JSON()
			want := base + "/" + kind + "/" + obj["id"].(string)
			if loc := obj["urls"].(map[string]any)["location"]; loc != want || r.Header.Get("Location") != want {
				t.Errorf("%s: urls.location %v, Location %q, want %s", kind, loc, r.Header.Get("Location"), want)
			}
			if id != nil {
				*id = obj["id"].(string)
			}
		}
	}
	c.Run(t, []apitest.Scenario{
		{Name: "site space", Method: "POST", Path: site + "/site-spaces", Token: admin, Body: map[string]any{"spaceId": bb}, Status: 201, Check: located("site-spaces", nil)},
		{Name: "section", Method: "POST", Path: site + "/sections", Token: admin, Body: map[string]any{"spaceId": bb, "title": "Beta"}, Status: 201, Check: located("sections", &section)},
		{Name: "share link", Method: "POST", Path: site + "/share-links", Token: admin, Body: map[string]any{"name": "Partners"}, Status: 201,
			Check: func(r apitest.Response) {
				located("share-links", nil)(r)
				apitest.Keys(t, r.JSON()["urls"].(map[string]any), "location", "published")
			}},
	})
	c.Run(t, []apitest.Scenario{
		{Name: "section group", Method: "POST", Path: site + "/section-groups", Token: admin, Body: map[string]any{"title": "Reference", "sections": []string{section}}, Status: 201,
			Check: func(r apitest.Response) {
				located("section-groups", nil)(r)
				apitest.Keys(t, r.JSON()["urls"].(map[string]any), "location")
			}},
	})
	// Lists and GraphQL give the same URLs.
	for _, s := range items(t, c.Must(200, "GET", site+"/sections", admin, nil)) {
		if !strings.HasPrefix(s["urls"].(map[string]any)["location"].(string), base+"/sections/") {
			t.Errorf("listed section urls: %v", s["urls"])
		}
	}
	data := gqlData(t, c.Env, admin, `query($o: ID!, $s: ID!) { siteSectionGroups(organizationId: $o, siteId: $s) { items { id urls { location } sections { urls { location } siteSpaces { urls { location } } } } } }`,
		map[string]any{"o": c.Org, "s": site[strings.LastIndex(site, "/")+1:]})
	g := data["siteSectionGroups"].(map[string]any)["items"].([]any)[0].(map[string]any)
	if g["urls"].(map[string]any)["location"] != base+"/section-groups/"+g["id"].(string) {
		t.Errorf("graphql group urls: %v", g["urls"])
	}
	sec := g["sections"].([]any)[0].(map[string]any)
	if sec["urls"].(map[string]any)["location"] != base+"/sections/"+section ||
		!strings.HasPrefix(sec["siteSpaces"].([]any)[0].(map[string]any)["urls"].(map[string]any)["location"].(string), base+"/site-spaces/") {
		t.Errorf("graphql section urls: %v", sec)
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
