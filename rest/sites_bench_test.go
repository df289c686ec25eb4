package rest_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"docsapi/apitest"
	"docsapi/storage"
)

// BenchmarkPublishedSite reads GET .../published of a visitor-auth site
// with adaptive content on, 50 sections of 10 site spaces each (500), a
// condition on every section and site space, through the whole HTTP stack
// with a visitor token (signature, claims checked against the schema,
// 550 conditions evaluated).
//
//	go test -run '^$' -bench PublishedSite -benchtime 200x ./rest
func BenchmarkPublishedSite(b *testing.B) {
	env := apitest.New(b)
	admin := env.Admin.Token
	org := "/v1/orgs/" + env.Org
	var spaces []storage.Space
	for i := range 50 {
		id := env.Must(201, "POST", org+"/spaces", admin, map[string]any{"title": fmt.Sprintf("Space %d", i)}).JSON()["id"].(string)
		sp, err := env.DB.Space(context.Background(), id)
		if err != nil {
			b.Fatal(err)
		}
		spaces = append(spaces, sp)
	}
	r := env.Must(201, "POST", org+"/sites", admin, map[string]any{"title": "Big", "type": "ultimate", "visibility": "visitor-auth"})
	siteID := r.JSON()["id"].(string)
	site := org + "/sites/" + siteID
	env.Must(200, "PUT", site+"/adaptive-schema", admin, map[string]any{"jsonSchema": adaptiveSchema})
	env.Must(200, "PATCH", site, admin, map[string]any{"adaptiveContent": map[string]any{"enabled": true}})
	env.Must(200, "POST", site+"/publish", admin, nil)

	// The structure is written in one plan (building it through 550 API
	// calls would only slow the setup down).
	st, err := env.DB.SiteStructure(context.Background(), siteID)
	if err != nil {
		b.Fatal(err)
	}
	conds := []string{"visitor.claims.plans.includes('pro')", "visitor.claims.unsigned.isBetaUser === true",
		"visitor.claims.plans.some(p => p !== 'free')", "visitor.claims.account.tier === 'gold'"}
	for i := range 50 {
		sec := storage.SiteSection{ID: storage.NewID(), Title: fmt.Sprintf("Section %d", i), Path: fmt.Sprintf("s%d", i), Position: i + 1,
			Condition: &conds[i%2*2]}
		for j := range 10 {
			ss := storage.SiteSpace{ID: storage.NewID(), SectionID: &sec.ID, SpaceID: spaces[(i+j)%50].ID, Path: fmt.Sprintf("v%d", j), Position: j + 1}
			if j > 0 {
				ss.Condition = &conds[j%4]
			} else {
				sec.DefaultSiteSpaceID = &ss.ID
			}
			st.SiteSpaces = append(st.SiteSpaces, ss)
		}
		st.Sections = append(st.Sections, sec)
	}
	st.DefaultSectionID = &st.Sections[0].ID
	if err := env.DB.SaveSiteStructure(context.Background(), siteID, st); err != nil {
		b.Fatal(err)
	}
	secret := gqlSecret(b, env, siteID)
	token, _ := jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.MapClaims{"exp": time.Now().Add(time.Hour).Unix(),
		"plans": []string{"free", "pro"}, "unsigned": map[string]any{"isBetaUser": true}}).SignedString([]byte(secret))
	_, other := env.NewOrg("Other", "admin@other.test")
	stranger := other.Token
	check := env.Do("GET", site+"/published", stranger, nil, "X-Visitor-Token", token)
	if check.Status != 200 || strings.Count(string(check.Body), `"object":"site-space"`) == 0 {
		b.Fatalf("published: %d %.300s", check.Status, check.Body)
	}
	b.ResetTimer()
	for range b.N {
		if r := env.Do("GET", site+"/published", stranger, nil, "X-Visitor-Token", token); r.Status != 200 {
			b.Fatal(r.Status)
		}
	}
	b.ReportMetric(float64(len(check.Body)), "bytes/answer")
	b.ReportMetric(float64(strings.Count(string(check.Body), `"object":"site-space"`)), "siteSpacesShown")
}

// gqlSecret reads a site's visitor key as the admin.
func gqlSecret(b *testing.B, env *apitest.Env, siteID string) string {
	data, errs := env.GraphQL(env.Admin.Token, `query($o: ID!, $s: ID!) { siteVisitorAuth(organizationId: $o, siteId: $s) { secret } }`,
		map[string]any{"o": env.Org, "s": siteID})
	if len(errs) > 0 {
		b.Fatal(errs)
	}
	return data["siteVisitorAuth"].(map[string]any)["secret"].(string)
}
