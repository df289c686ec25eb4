package rest_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"docsapi/apitest"
	"docsapi/storage"
)

// outline renders GET .../structure compactly: site spaces by their
// space's title, sections as Title(spaces), groups as {Title: sections},
// defaults marked with *.
func outline(t *testing.T, c *siteEnv, site string) string {
	t.Helper()
	var st struct {
		Type      string            `json:"type"`
		Structure []json.RawMessage `json:"structure"`
	}
	c.Must(200, "GET", site+"/structure", c.Admin.Token, nil).Decode(t, &st)
	type siteSpace struct {
		Default bool `json:"default"`
		Space   struct {
			Title string `json:"title"`
		} `json:"space"`
	}
	type section struct {
		Object     string      `json:"object"`
		Title      string      `json:"title"`
		Default    bool        `json:"default"`
		SiteSpaces []siteSpace `json:"siteSpaces"`
		Sections   []section   `json:"sections"`
	}
	star := func(b bool) string {
		if b {
			return "*"
		}
		return ""
	}
	spaces := func(list []siteSpace) string {
		var out []string
		for _, ss := range list {
			out = append(out, ss.Space.Title+star(ss.Default))
		}
		return strings.Join(out, ",")
	}
	var sec func(s section) string
	sec = func(s section) string {
		if s.Object == "site-section-group" {
			var parts []string
			for _, m := range s.Sections {
				parts = append(parts, sec(m))
			}
			return "{" + s.Title + ": " + strings.Join(parts, " ") + "}"
		}
		return s.Title + star(s.Default) + "(" + spaces(s.SiteSpaces) + ")"
	}
	var parts []string
	if st.Type == "siteSpaces" {
		var list []siteSpace
		for _, raw := range st.Structure {
			var ss siteSpace
			json.Unmarshal(raw, &ss)
			list = append(list, ss)
		}
		return st.Type + ": " + spaces(list)
	}
	for _, raw := range st.Structure {
		var s section
		json.Unmarshal(raw, &s)
		parts = append(parts, sec(s))
	}
	return st.Type + ": " + strings.Join(parts, " ")
}

func wantOutline(t *testing.T, c *siteEnv, site, want string) {
	t.Helper()
	if got := outline(t, c, site); got != want {
		t.Fatalf("structure\n got %s\nwant %s", got, want)
	}
}

// structureIDs lists site spaces and sections by their space's or own title.
func structureIDs(t *testing.T, c *siteEnv, site string) (siteSpaces, sections map[string]string) {
	t.Helper()
	siteSpaces, sections = map[string]string{}, map[string]string{}
	for _, ss := range items(t, c.Must(200, "GET", site+"/site-spaces?limit=1000", c.Admin.Token, nil)) {
		siteSpaces[ss["space"].(map[string]any)["title"].(string)] = ss["id"].(string)
	}
	for _, s := range items(t, c.Must(200, "GET", site+"/sections?limit=1000", c.Admin.Token, nil)) {
		sections[s["title"].(string)] = s["id"].(string)
	}
	return
}

// everySectionOnce checks the invariant: the sections list and the
// structure hold the same sections, each once.
func everySectionOnce(t *testing.T, c *siteEnv, site string) {
	t.Helper()
	listed := items(t, c.Must(200, "GET", site+"/sections?limit=1000", c.Admin.Token, nil))
	body := string(c.Must(200, "GET", site+"/structure", c.Admin.Token, nil).Body)
	for _, s := range listed {
		if n := strings.Count(body, `"id":"`+s["id"].(string)+`"`); n != 1 {
			t.Errorf("section %s appears %d times in the structure", s["title"], n)
		}
	}
	var groups int
	for _, g := range items(t, c.Must(200, "GET", site+"/section-groups?limit=1000", c.Admin.Token, nil)) {
		groups += len(g["sections"].([]any))
	}
	if n := strings.Count(body, `"object":"site-section"`); n != len(listed) {
		t.Errorf("%d sections in the structure, %d listed", n, len(listed))
	}
	_ = groups
}

func ptrTo(kind, id string) map[string]any { return map[string]any{"type": kind, "id": id} }

func TestSiteStructureOrdering(t *testing.T) {
	c := newSiteEnv(t)
	admin := c.Admin.Token
	var ids []string
	for _, title := range []string{"AA", "BB", "CC", "DD", "EE"} {
		ids = append(ids, c.space(admin, map[string]any{"title": title}))
	}
	site := c.site(map[string]any{"title": "Docs", "spaces": ids[:3]})
	wantOutline(t, c, site, "siteSpaces: AA*,BB,CC")
	ss, _ := structureIDs(t, c, site)
	sort := func(body map[string]any) apitest.Response { return c.Do("PATCH", site+"/structure/sort", admin, body) }

	// The sort and the deprecated site-space move are one mechanism.
	if r := sort(map[string]any{"item": ptrTo("site-space", ss["CC"]), "position": map[string]any{"before": ptrTo("site-space", ss["AA"])}}); r.Status != 200 {
		t.Fatalf("sort: %d %s", r.Status, r.Body)
	} else {
		apitest.Keys(t, r.JSON(), siteSpaceKeys...)
	}
	wantOutline(t, c, site, "siteSpaces: CC,AA*,BB")
	c.Must(200, "POST", site+"/site-spaces/"+ss["BB"]+"/move", admin, map[string]any{"position": map[string]any{"before": map[string]any{"type": "site-space", "siteSpace": ss["AA"]}}})
	wantOutline(t, c, site, "siteSpaces: CC,BB,AA*")
	c.Must(200, "POST", site+"/site-spaces/"+ss["CC"]+"/move", admin, nil) // no position: the end
	wantOutline(t, c, site, "siteSpaces: BB,AA*,CC")
	c.Must(200, "PATCH", site+"/structure/sort", admin, map[string]any{"item": ptrTo("site-space", ss["CC"]),
		"position": map[string]any{"after": ptrTo("site-space", ss["BB"]), "before": ptrTo("site-space", ss["AA"])}})
	wantOutline(t, c, site, "siteSpaces: BB,CC,AA*")
	// The stored order is what every list returns.
	wantSiteSpaces(t, c.Must(200, "GET", site+"/site-spaces", admin, nil), ss["BB"], ss["CC"], ss["AA"])

	// The first section gathers the root site spaces into a default section.
	r := c.Must(201, "POST", site+"/sections", admin, map[string]any{"spaceId": ids[3], "title": "API", "icon": "gear"})
	apitest.Keys(t, r.JSON(), append(sectionKeys, "icon")...)
	wantOutline(t, c, site, "sections: AA*(BB,CC,AA*) API(DD*)")
	c.Must(201, "POST", site+"/sections", admin, map[string]any{"spaceId": ids[4], "title": "Guides"})
	_, sec := structureIDs(t, c, site)
	g := c.Must(201, "POST", site+"/section-groups", admin, map[string]any{"title": "Reference", "sections": []string{sec["API"]}}).JSON()
	apitest.Keys(t, g, "object", "id", "title", "sections", "urls")
	group := g["id"].(string)
	wantOutline(t, c, site, "sections: AA*(BB,CC,AA*) Guides(EE*) {Reference: API(DD*)}") // a new group goes to the end
	everySectionOnce(t, c, site)

	c.Run(t, []apitest.Scenario{
		{Name: "a section joins a group by pointing at a section in it", Method: "PATCH", Path: site + "/structure/sort", Token: admin,
			Body: map[string]any{"item": ptrTo("site-section", sec["Guides"]), "position": map[string]any{"before": ptrTo("site-section", sec["API"])}}, Status: 200,
			Contains: []string{`"sectionGroup":"` + group + `"`}},
		{Name: "a group moves among root items", Method: "PATCH", Path: site + "/structure/sort", Token: admin,
			Body: map[string]any{"item": ptrTo("site-section-group", group), "position": map[string]any{"before": ptrTo("site-section", sec["AA"])}}, Status: 200,
			Contains: []string{`"object":"site-section-group"`}},
	})
	wantOutline(t, c, site, "sections: {Reference: Guides(EE*) API(DD*)} AA*(BB,CC,AA*)")
	c.Must(200, "POST", site+"/section-groups/"+group+"/move", admin, map[string]any{"position": map[string]any{"after": map[string]any{"type": "site-section", "id": sec["AA"]}}})
	wantOutline(t, c, site, "sections: AA*(BB,CC,AA*) {Reference: Guides(EE*) API(DD*)}")
	c.Must(200, "POST", site+"/sections/"+sec["API"]+"/move", admin, map[string]any{"position": map[string]any{"before": map[string]any{"type": "site-section", "siteSection": sec["Guides"]}}})
	wantOutline(t, c, site, "sections: AA*(BB,CC,AA*) {Reference: API(DD*) Guides(EE*)}")
	everySectionOnce(t, c, site)

	// Leaving and joining groups.
	c.Must(205, "DELETE", site+"/section-groups/"+group+"/sections/"+sec["API"], admin, nil)
	wantOutline(t, c, site, "sections: AA*(BB,CC,AA*) {Reference: Guides(EE*)} API(DD*)")
	c.Must(204, "DELETE", site+"/section-groups/"+group+"/sections/"+sec["API"], admin, nil)
	r = c.Must(201, "POST", site+"/section-groups/"+group+"/sections", admin, map[string]any{"sectionId": sec["API"]})
	if n := len(r.JSON()["sections"].([]any)); n != 2 {
		t.Errorf("group holds %d sections", n)
	}
	wantOutline(t, c, site, "sections: AA*(BB,CC,AA*) {Reference: Guides(EE*) API(DD*)}")
	// A section pointing at a group goes back to the root.
	c.Must(200, "PATCH", site+"/structure/sort", admin, map[string]any{"item": ptrTo("site-section", sec["Guides"]), "position": map[string]any{"before": ptrTo("site-section-group", group)}})
	wantOutline(t, c, site, "sections: AA*(BB,CC,AA*) Guides(EE*) {Reference: API(DD*)}")
	everySectionOnce(t, c, site)
	wantIDs(t, c.Must(200, "GET", site+"/sections", admin, nil), sec["AA"], sec["Guides"], sec["API"])
	// Lists page through the stored order.
	page1 := c.Must(200, "GET", site+"/sections?limit=2", admin, nil)
	wantIDs(t, page1, sec["AA"], sec["Guides"])
	next := page1.JSON()["next"].(map[string]any)["page"].(string)
	wantIDs(t, c.Must(200, "GET", site+"/sections?limit=2&page="+next, admin, nil), sec["API"])

	ptrBody := func(item, before map[string]any) map[string]any {
		return map[string]any{"item": item, "position": map[string]any{"before": before}}
	}
	c.Run(t, []apitest.Scenario{
		{Name: "a site space cannot leave its section", Method: "PATCH", Path: site + "/structure/sort", Token: admin,
			Body: ptrBody(ptrTo("site-space", ss["AA"]), ptrTo("site-space", "x")), Status: 400, Contains: names("position.before")},
		{Name: "a site space next to a section", Method: "PATCH", Path: site + "/structure/sort", Token: admin,
			Body: ptrBody(ptrTo("site-space", ss["AA"]), ptrTo("site-section", sec["API"])), Status: 400, Contains: names("position.before")},
		{Name: "a group inside a group", Method: "PATCH", Path: site + "/structure/sort", Token: admin,
			Body: ptrBody(ptrTo("site-section-group", group), ptrTo("site-section", sec["API"])), Status: 400, Contains: names("position.before")},
		{Name: "an item pointing at itself", Method: "PATCH", Path: site + "/structure/sort", Token: admin,
			Body: ptrBody(ptrTo("site-section", sec["AA"]), ptrTo("site-section", sec["AA"])), Status: 400, Contains: names("position.before")},
		{Name: "before and after not adjacent", Method: "PATCH", Path: site + "/structure/sort", Token: admin,
			Body:   map[string]any{"item": ptrTo("site-space", ss["AA"]), "position": map[string]any{"after": ptrTo("site-space", ss["CC"]), "before": ptrTo("site-space", ss["BB"])}},
			Status: 400, Contains: names("position")},
		{Name: "before and after in different containers", Method: "PATCH", Path: site + "/structure/sort", Token: admin,
			Body:   map[string]any{"item": ptrTo("site-section", sec["Guides"]), "position": map[string]any{"after": ptrTo("site-section", sec["AA"]), "before": ptrTo("site-section", sec["API"])}},
			Status: 400, Contains: names("position")},
		{Name: "unknown item", Method: "PATCH", Path: site + "/structure/sort", Token: admin, Body: ptrBody(ptrTo("site-section", "nope"), nil), Status: 404},
		{Name: "bad item type", Method: "PATCH", Path: site + "/structure/sort", Token: admin, Body: ptrBody(ptrTo("page", "x"), nil), Status: 400, Contains: names("item.type")},
		{Name: "deprecated section move takes section pointers only", Method: "POST", Path: site + "/sections/" + sec["API"] + "/move", Token: admin,
			Body: map[string]any{"position": map[string]any{"before": map[string]any{"type": "site-space", "siteSection": ss["AA"]}}}, Status: 400, Contains: names("position.before.type")},
		{Name: "deprecated move of an unknown site space", Method: "POST", Path: site + "/site-spaces/nope/move", Token: admin, Status: 404},
		{Name: "unknown site", Method: "PATCH", Path: c.sites() + "/nope/structure/sort", Token: admin, Body: ptrBody(ptrTo("site-section", "x"), nil), Status: 404},
	})
	wantOutline(t, c, site, "sections: AA*(BB,CC,AA*) Guides(EE*) {Reference: API(DD*)}")

	// Deleting a group puts its sections where it was.
	c.Must(200, "PATCH", site+"/structure/sort", admin, map[string]any{"item": ptrTo("site-section-group", group), "position": map[string]any{"after": ptrTo("site-section", sec["AA"])}})
	c.Must(201, "POST", site+"/section-groups/"+group+"/sections", admin, map[string]any{"sectionId": sec["Guides"]})
	wantOutline(t, c, site, "sections: AA*(BB,CC,AA*) {Reference: API(DD*) Guides(EE*)}")
	c.Must(205, "DELETE", site+"/section-groups/"+group, admin, nil)
	c.Must(204, "DELETE", site+"/section-groups/"+group, admin, nil)
	wantOutline(t, c, site, "sections: AA*(BB,CC,AA*) API(DD*) Guides(EE*)")
	everySectionOnce(t, c, site)

	// GraphQL sorts through the same operation and answers the union.
	data := gqlData(t, c.Env, admin, `mutation($o: ID!, $s: ID!, $in: SortSiteStructureInput!) { sortSiteStructure(organizationId: $o, siteId: $s, input: $in) {
		__typename ... on SiteSection { id title sectionGroup } } }`,
		map[string]any{"o": c.Org, "s": site[strings.LastIndex(site, "/")+1:], "in": map[string]any{
			"item": map[string]any{"type": "SITE_SECTION", "id": sec["Guides"]}, "position": map[string]any{"before": map[string]any{"type": "SITE_SECTION", "id": sec["AA"]}}}})
	if it := data["sortSiteStructure"].(map[string]any); it["__typename"] != "SiteSection" || it["title"] != "Guides" {
		t.Errorf("graphql sort %v", it)
	}
	wantOutline(t, c, site, "sections: Guides(EE*) AA*(BB,CC,AA*) API(DD*)")
	g2 := gqlData(t, c.Env, admin, `query($o: ID!, $s: ID!) { siteStructure(organizationId: $o, siteId: $s) { type structure { ... on SiteSection { title } } } }`,
		map[string]any{"o": c.Org, "s": site[strings.LastIndex(site, "/")+1:]})
	if st := g2["siteStructure"].(map[string]any); st["type"] != "SECTIONS" || len(st["structure"].([]any)) != 3 {
		t.Errorf("graphql structure %v", st)
	}
}

func TestSiteStructureEdits(t *testing.T) {
	c := newSiteEnv(t)
	admin, creator := c.Admin.Token, c.ByRole["create"].Token
	var ids []string
	for _, title := range []string{"AA", "BB", "CC", "DD"} {
		ids = append(ids, c.space(admin, map[string]any{"title": title}))
	}
	private := c.space(admin, map[string]any{"title": "Secret"})
	c.Must(200, "PATCH", "/v1/spaces/"+private, admin, map[string]any{"defaultLevel": nil})
	site := c.site(map[string]any{"title": "Docs", "spaces": ids[:2]})
	ss, _ := structureIDs(t, c, site)
	var added string
	c.Run(t, []apitest.Scenario{
		{Name: "add at the root", Method: "POST", Path: site + "/site-spaces", Token: creator, Body: map[string]any{"spaceId": ids[2]}, Status: 201,
			Check: func(r apitest.Response) {
				obj := r.JSON()
				apitest.Keys(t, obj, siteSpaceKeys...)
				added = obj["id"].(string)
				if obj["path"] != "cc" || obj["default"] != false || obj["title"] != "CC" {
					t.Errorf("added %v", obj)
				}
			}},
	})
	c.Run(t, []apitest.Scenario{
		{Name: "the same space again gets another path", Method: "POST", Path: site + "/site-spaces", Token: admin, Body: map[string]any{"spaceId": ids[2]}, Status: 201,
			Contains: []string{`"path":"cc-2"`}},
		{Name: "a space the caller cannot see", Method: "POST", Path: site + "/site-spaces", Token: creator, Body: map[string]any{"spaceId": private}, Status: 400, Contains: names("spaceId")},
		{Name: "missing spaceId", Method: "POST", Path: site + "/site-spaces", Token: admin, Body: map[string]any{}, Status: 400, Contains: names("spaceId")},
		{Name: "unknown section", Method: "POST", Path: site + "/site-spaces", Token: admin, Body: map[string]any{"spaceId": ids[2], "sectionId": "nope"}, Status: 400, Contains: names("sectionId")},
		{Name: "reviewer cannot add", Method: "POST", Path: site + "/site-spaces", Token: c.ByRole["review"].Token, Body: map[string]any{"spaceId": ids[2]}, Status: 403},
		{Name: "path", Method: "PATCH", Path: site + "/site-spaces/" + added, Token: creator, Body: map[string]any{"path": "v3"}, Status: 200, Contains: []string{`"path":"v3"`}},
		{Name: "path taken among siblings", Method: "PATCH", Path: site + "/site-spaces/" + added, Token: admin, Body: map[string]any{"path": "aa"}, Status: 409, Contains: []string{"path:"}},
		{Name: "path too long", Method: "PATCH", Path: site + "/site-spaces/" + added, Token: admin, Body: map[string]any{"path": strings.Repeat("p", 101)}, Status: 400, Contains: names("path")},
		{Name: "path empty", Method: "PATCH", Path: site + "/site-spaces/" + added, Token: admin, Body: map[string]any{"path": ""}, Status: 400, Contains: names("path")},
		{Name: "condition", Method: "PATCH", Path: site + "/site-spaces/" + added, Token: admin, Body: map[string]any{"condition": "visitor.claims.plan === 'pro'"}, Status: 200,
			Contains: []string{`"condition":"visitor.claims.plan === 'pro'"`}},
		{Name: "omitted condition stays", Method: "PATCH", Path: site + "/site-spaces/" + added, Token: admin, Body: map[string]any{"path": "v4"}, Status: 200,
			Contains: []string{`"condition":"visitor.claims.plan === 'pro'"`}},
		{Name: "condition that does not parse", Method: "PATCH", Path: site + "/site-spaces/" + added, Token: admin, Body: map[string]any{"condition": "visitor.claims.plan ==="}, Status: 400,
			Contains: []string{`condition: does not parse as a JavaScript expression at line 1, column 24`}},
		{Name: "condition of statements", Method: "PATCH", Path: site + "/site-spaces/" + added, Token: admin, Body: map[string]any{"condition": "a;\nb"}, Status: 400,
			Contains: []string{`at line 1, column 2`}},
		{Name: "condition too long", Method: "PATCH", Path: site + "/site-spaces/" + added, Token: admin, Body: map[string]any{"condition": strings.Repeat("1", 1025)}, Status: 400, Contains: names("condition")},
		{Name: "condition empty", Method: "PATCH", Path: site + "/site-spaces/" + added, Token: admin, Body: map[string]any{"condition": ""}, Status: 400, Contains: names("condition")},
		{Name: "null removes the condition", Method: "PATCH", Path: site + "/site-spaces/" + added, Token: admin, Body: map[string]any{"condition": nil}, Status: 200,
			Check: func(r apitest.Response) {
				if _, ok := r.JSON()["condition"]; ok {
					t.Errorf("condition kept: %s", r.Body)
				}
			}},
		{Name: "another space", Method: "PATCH", Path: site + "/site-spaces/" + added, Token: admin, Body: map[string]any{"spaceId": ids[3]}, Status: 200, Contains: []string{`"title":"DD"`}},
		{Name: "unknown site space", Method: "PATCH", Path: site + "/site-spaces/nope", Token: admin, Body: map[string]any{"path": "x"}, Status: 404},
		{Name: "default filter", Method: "GET", Path: site + "/site-spaces?default=true", Token: admin, Status: 200, Check: func(r apitest.Response) { wantSiteSpaces(t, r, ss["AA"]) }},
		{Name: "non-default filter", Method: "GET", Path: site + "/site-spaces?default=false", Token: admin, Status: 200, Contains: []string{`"count":3`}},
	})
	wantOutline(t, c, site, "siteSpaces: AA*,BB,DD,CC")

	// The default site space of the root and its successor.
	c.Must(200, "PATCH", site, admin, map[string]any{"defaultSiteSpace": ss["BB"]})
	wantOutline(t, c, site, "siteSpaces: AA,BB*,DD,CC")
	c.Must(205, "DELETE", site+"/site-spaces/"+ss["BB"], admin, nil)
	wantOutline(t, c, site, "siteSpaces: AA*,DD,CC")
	c.Must(204, "DELETE", site+"/site-spaces/"+ss["BB"], admin, nil)
	c.Run(t, []apitest.Scenario{
		{Name: "unknown default site space", Method: "PATCH", Path: site, Token: admin, Body: map[string]any{"defaultSiteSpace": "nope"}, Status: 400, Contains: names("defaultSiteSpace")},
		{Name: "unknown default section", Method: "PATCH", Path: site, Token: admin, Body: map[string]any{"defaultSiteSection": "nope"}, Status: 400, Contains: names("defaultSiteSection")},
	})

	// Sections: edits, defaults and their successors.
	c.Must(201, "POST", site+"/sections", admin, map[string]any{"spaceId": ids[1]})
	_, sec := structureIDs(t, c, site)
	wantOutline(t, c, site, "sections: AA*(AA*,DD,CC) BB(BB*)")
	b := sec["BB"]
	c.Run(t, []apitest.Scenario{
		{Name: "title, path, icon, description", Method: "PATCH", Path: site + "/sections/" + b, Token: creator,
			Body: map[string]any{"title": "Beta", "path": "beta", "icon": "flask", "description": "The beta docs"}, Status: 200,
			Contains: []string{`"title":"Beta"`, `"path":"beta"`, `"icon":"flask"`, `"description":"The beta docs"`, `"default":false`}},
		{Name: "null removes icon and description", Method: "PATCH", Path: site + "/sections/" + b, Token: admin, Body: map[string]any{"icon": nil, "description": nil}, Status: 200,
			Check: func(r apitest.Response) { apitest.Keys(t, r.JSON(), sectionKeys...) }},
		{Name: "section path taken", Method: "PATCH", Path: site + "/sections/" + b, Token: admin, Body: map[string]any{"path": "aa"}, Status: 409, Contains: []string{"path:"}},
		{Name: "section title too short", Method: "PATCH", Path: site + "/sections/" + b, Token: admin, Body: map[string]any{"title": "X"}, Status: 400, Contains: names("title")},
		{Name: "description too long", Method: "PATCH", Path: site + "/sections/" + b, Token: admin, Body: map[string]any{"description": strings.Repeat("d", 257)}, Status: 400, Contains: names("description")},
		{Name: "icon too long", Method: "PATCH", Path: site + "/sections/" + b, Token: admin, Body: map[string]any{"icon": strings.Repeat("i", 51)}, Status: 400, Contains: names("icon")},
		{Name: "section condition that does not parse", Method: "PATCH", Path: site + "/sections/" + b, Token: admin, Body: map[string]any{"condition": "(("}, Status: 400, Contains: []string{"condition: does not parse"}},
		{Name: "default site space of another section", Method: "PATCH", Path: site + "/sections/" + b, Token: admin, Body: map[string]any{"defaultSiteSpace": ss["AA"]}, Status: 400, Contains: names("defaultSiteSpace")},
		{Name: "the only site space of a section stays", Method: "DELETE", Path: site + "/site-spaces/" + items(t, c.Must(200, "GET", site+"/sections", admin, nil))[1]["siteSpaces"].([]any)[0].(map[string]any)["id"].(string),
			Token: admin, Status: 409},
		{Name: "unknown section", Method: "PATCH", Path: site + "/sections/nope", Token: admin, Body: map[string]any{"title": "Xy"}, Status: 404},
		{Name: "section needs spaceId", Method: "POST", Path: site + "/sections", Token: admin, Body: map[string]any{"title": "Xy"}, Status: 400, Contains: names("spaceId")},
		{Name: "section title too long", Method: "POST", Path: site + "/sections", Token: admin, Body: map[string]any{"spaceId": ids[0], "title": strings.Repeat("t", 129)}, Status: 400, Contains: names("title")},
		{Name: "group title required", Method: "POST", Path: site + "/section-groups", Token: admin, Body: map[string]any{"title": ""}, Status: 400, Contains: names("title")},
		{Name: "group title too long", Method: "POST", Path: site + "/section-groups", Token: admin, Body: map[string]any{"title": strings.Repeat("t", 101)}, Status: 400, Contains: names("title")},
		{Name: "group of an unknown section", Method: "POST", Path: site + "/section-groups", Token: admin, Body: map[string]any{"title": "G", "sections": []string{"nope"}}, Status: 400, Contains: names("sections[0]")},
		{Name: "unknown group", Method: "PATCH", Path: site + "/section-groups/nope", Token: admin, Body: map[string]any{"title": "G"}, Status: 404},
		{Name: "add an unknown section to a group", Method: "POST", Path: site + "/section-groups/nope/sections", Token: admin, Body: map[string]any{"sectionId": b}, Status: 404},
	})
	// Variants of a section and its default.
	r := c.Must(201, "POST", site+"/site-spaces", admin, map[string]any{"spaceId": ids[2], "sectionId": b}).JSON()
	if r["section"] != b {
		t.Errorf("added to %v", r["section"])
	}
	wantOutline(t, c, site, "sections: AA*(AA*,DD,CC) Beta(BB*,CC)")
	c.Must(200, "PATCH", site+"/sections/"+b, admin, map[string]any{"defaultSiteSpace": r["id"]})
	wantOutline(t, c, site, "sections: AA*(AA*,DD,CC) Beta(BB,CC*)")
	// No sectionId: the default section.
	c.Must(201, "POST", site+"/site-spaces", admin, map[string]any{"spaceId": ids[1]})
	wantOutline(t, c, site, "sections: AA*(AA*,DD,CC,BB) Beta(BB,CC*)")
	// The site's default section and default site space.
	c.Must(200, "PATCH", site, admin, map[string]any{"defaultSiteSection": b, "defaultSiteSpace": items(t, c.Must(200, "GET", site+"/sections", admin, nil))[1]["siteSpaces"].([]any)[0].(map[string]any)["id"]})
	wantOutline(t, c, site, "sections: AA(AA*,DD,CC,BB) Beta*(BB*,CC)")
	if r := c.Do("PATCH", site, admin, map[string]any{"defaultSiteSpace": ss["AA"]}); r.Status != 400 {
		t.Errorf("default site space outside the default section: %d %s", r.Status, r.Body)
	}
	// Deleting the default section: the first remaining one takes over.
	c.Must(205, "DELETE", site+"/sections/"+b, admin, nil)
	c.Must(204, "DELETE", site+"/sections/"+b, admin, nil)
	wantOutline(t, c, site, "sections: AA*(AA*,DD,CC,BB)")
	// Without sections, the site's root is empty again.
	c.Must(205, "DELETE", site+"/sections/"+sec["AA"], admin, nil)
	wantOutline(t, c, site, "siteSpaces: ")
	if r := c.Do("POST", site+"/section-groups", admin, map[string]any{"title": "Lonely"}); r.Status != 409 {
		t.Errorf("group in a site without sections: %d %s", r.Status, r.Body)
	}
	c.Must(201, "POST", site+"/site-spaces", admin, map[string]any{"spaceId": ids[0]})
	wantOutline(t, c, site, "siteSpaces: AA*")
}

// wantSiteSpaces checks the ids of a site-space list, in order.
func wantSiteSpaces(t *testing.T, r apitest.Response, want ...string) {
	t.Helper()
	if got := ids(items(t, r)); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("site spaces %v, want %v", got, want)
	}
}

// Concurrent structure changes are each applied once: a change made from a
// structure that changed meanwhile is re-applied on the new one.
func TestSiteStructureConcurrentChanges(t *testing.T) {
	c := newSiteEnv(t)
	admin := c.Admin.Token
	space := c.space(admin, map[string]any{"title": "Shared"})
	site := c.site(map[string]any{"title": "Docs"})
	done := make(chan int, 8)
	for range 8 {
		go func() { done <- c.Do("POST", site+"/site-spaces", admin, map[string]any{"spaceId": space}).Status }()
	}
	for range 8 {
		if status := <-done; status != 201 {
			t.Errorf("concurrent add: %d", status)
		}
	}
	list := items(t, c.Must(200, "GET", site+"/site-spaces?limit=100", admin, nil))
	paths := map[string]bool{}
	defaults := 0
	for _, ss := range list {
		paths[ss["path"].(string)] = true
		if ss["default"] == true {
			defaults++
		}
	}
	if len(list) != 8 || len(paths) != 8 || defaults != 1 {
		t.Errorf("%d site spaces, %d distinct paths, %d defaults", len(list), len(paths), defaults)
	}
	// A plan made from a structure that changed since is refused (what
	// another process's change meets).
	siteID := site[strings.LastIndex(site, "/")+1:]
	old, err := c.DB.SiteStructure(context.Background(), siteID)
	if err != nil {
		t.Fatal(err)
	}
	c.Must(201, "POST", site+"/site-spaces", admin, map[string]any{"spaceId": space})
	if err := c.DB.SaveSiteStructure(context.Background(), siteID, old); !errors.Is(err, storage.ErrStale) {
		t.Errorf("stale plan: %v", err)
	}
}
