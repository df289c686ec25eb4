package rest_test

import (
	"testing"
)

// Revision urls.published and urls.public: set while a published site holds
// the space — published unless the space is private, public only when it
// is public — at the site's revision preview path; git is never set (no
// Git Sync). GraphQL answers the same.
func TestRevisionURLs(t *testing.T) {
	c := newSiteEnv(t)
	admin := c.Admin.Token
	public := c.space(admin, map[string]any{"title": "Public"})
	unlisted := c.space(admin, map[string]any{"title": "Unlisted"})
	private := c.space(admin, map[string]any{"title": "Private"}) // the default
	c.Must(200, "PATCH", "/v1/spaces/"+public, admin, map[string]any{"visibility": "public"})
	c.Must(200, "PATCH", "/v1/spaces/"+unlisted, admin, map[string]any{"visibility": "unlisted"})
	site := c.site(map[string]any{"title": "Docs", "visibility": "public", "spaces": []string{public, unlisted, private}})
	content := func(space string) map[string]any {
		return c.Must(200, "GET", "/v1/spaces/"+space+"/content", admin, nil).JSON()
	}
	urls := func(rev map[string]any) map[string]any { return rev["urls"].(map[string]any) }

	if u := urls(content(public)); u["published"] != nil || u["public"] != nil || u["app"] == nil {
		t.Errorf("unpublished site: %v", u)
	}
	c.Must(200, "POST", site+"/publish", admin, nil)
	siteSpaceURL := map[string]string{}
	for _, it := range c.Must(200, "GET", site+"/published", admin, nil).JSON()["structure"].(map[string]any)["structure"].([]any) {
		ss := it.(map[string]any)
		siteSpaceURL[ss["space"].(map[string]any)["id"].(string)] = ss["urls"].(map[string]any)["published"].(string)
	}
	rev := content(public)
	want := siteSpaceURL[public] + "/~/revisions/" + rev["id"].(string)
	if u := urls(rev); u["published"] != want || u["public"] != want {
		t.Errorf("public space: %v, want %s", u, want)
	}
	if _, ok := rev["git"]; ok {
		t.Errorf("git without Git Sync: %v", rev["git"])
	}
	rev = content(unlisted)
	if u := urls(rev); u["published"] != siteSpaceURL[unlisted]+"/~/revisions/"+rev["id"].(string) || u["public"] != nil {
		t.Errorf("unlisted space: %v", u)
	}
	if u := urls(content(private)); u["published"] != nil || u["public"] != nil {
		t.Errorf("private space: %v", u)
	}
	data := gqlData(t, c.Env, admin, `query($s: ID!) { spaceContent(spaceId: $s) { id urls { app published public } git { oid } } }`, map[string]any{"s": public})
	g := data["spaceContent"].(map[string]any)
	if g["git"] != nil {
		t.Errorf("GraphQL git %v", g["git"])
	}
	sameJSON(t, "revision urls", urls(content(public)), g["urls"])
	c.Must(200, "POST", site+"/unpublish", admin, nil)
	if u := urls(content(public)); u["published"] != nil {
		t.Errorf("after unpublish: %v", u)
	}
}
