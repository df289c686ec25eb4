package sample_test

import (
	"encoding/json"
	"strings"
	"testing"

	"docsapi/apitest"
	"docsapi/sample"
)

// The sample is made through the resolvers, published, and reads back
// through the API like content a user wrote: its pages in order, each
// body's blocks, and its site published with the space in it.
func TestCreate(t *testing.T) {
	env := apitest.New(t)
	made, err := sample.Create(t.Context(), env.Server.Resolver, env.Org, env.Admin.ID)
	if err != nil {
		t.Fatal(err)
	}
	if made.Published == "" {
		t.Errorf("the sample site has no published address: %+v", made)
	}
	var list struct {
		Pages []struct{ Title, Path string }
	}
	json.Unmarshal(env.Must(200, "GET", "/v1/spaces/"+made.Space+"/content/pages", env.Admin.Token, nil).Body, &list)
	var titles []string
	for _, p := range list.Pages {
		titles = append(titles, p.Title+"@"+p.Path)
	}
	if got := strings.Join(titles, ", "); got != "Welcome@welcome, Writing pages@writing-pages, Publishing@publishing" {
		t.Errorf("sample pages: %s", got)
	}
	doc := string(env.Must(200, "GET", "/v1/spaces/"+made.Space+"/content/path/writing-pages?format=document", env.Admin.Token, nil).Body)
	for _, block := range []string{`"heading-2"`, `"list-ordered"`, `"list-unordered"`, `"list-tasks"`, `"blockquote"`, `"hint"`, `"code"`, `"table"`, `"divider"`} {
		if !strings.Contains(doc, `"type":`+block) {
			t.Errorf("the blocks page has no %s block", block)
		}
	}
	site := string(env.Must(200, "GET", "/v1/orgs/"+env.Org+"/sites/"+made.Site, env.Admin.Token, nil).Body)
	if !strings.Contains(site, `"published"`) {
		t.Errorf("the sample site is not published: %s", site)
	}
	spaces := string(env.Must(200, "GET", "/v1/orgs/"+env.Org+"/sites/"+made.Site+"/site-spaces", env.Admin.Token, nil).Body)
	if !strings.Contains(spaces, made.Space) {
		t.Errorf("the sample site does not hold the sample space: %s", spaces)
	}
}
