package site_test

import (
	"encoding/json"
	"strings"
	"testing"
)

// A section moved into a section group is still a tab of the site (named
// with its group) and its pages still answer at their URLs.
func TestSectionGroups(t *testing.T) {
	f := newReaderFixture(t, "public")
	admin := f.Admin.Token
	var st struct {
		Structure []struct {
			ID, Path, Title string
			SiteSpaces      []struct{ Space struct{ ID string } }
		}
	}
	json.Unmarshal(f.Must(200, "GET", f.site+"/structure", admin, nil).Body, &st)
	apiSection := ""
	for _, sec := range st.Structure {
		for _, ss := range sec.SiteSpaces {
			if ss.Space.ID == f.api {
				apiSection = sec.ID
			}
		}
	}
	if apiSection == "" {
		t.Fatalf("no API section in %s", f.Must(200, "GET", f.site+"/structure", admin, nil).Body)
	}
	f.Must(201, "POST", f.site+"/section-groups", admin, map[string]any{"title": "Developers", "sections": []string{apiSection}})
	// The group's section still opens (at the path its section has).
	c := f.client(t)
	ref := get(t, c, f.base+"/"+f.apiPath+"/reference")
	if ref.status != 200 || !strings.Contains(ref.body, "<h1>Reference</h1>") {
		t.Fatalf("the grouped section's page: %d %s", ref.status, ref.body)
	}
	if !strings.Contains(ref.body, "Developers: API") {
		t.Errorf("no tab naming the group:\n%s", ref.body)
	}
	install := get(t, c, f.base+"/install")
	if install.status != 200 || !strings.Contains(install.body, "Developers: API") || !strings.Contains(install.body, `href="`+f.basePath+"/"+f.apiPath) {
		t.Errorf("the group's section is not a tab of the default section's pages: %d", install.status)
	}
	if sitemap := get(t, c, f.base+"/sitemap.xml"); !strings.Contains(sitemap.body, "/"+f.apiPath+"/reference</loc>") && !strings.Contains(sitemap.body, "/"+f.apiPath+"</loc>") {
		t.Errorf("sitemap lacks the grouped section:\n%s", sitemap.body)
	}
}
