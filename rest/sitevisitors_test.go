package rest_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"docsapi/apitest"
)

// visitorToken signs claims for a site's visitor key (HS256).
func visitorToken(t *testing.T, secret string, claims jwt.MapClaims) string {
	t.Helper()
	s, err := jwt.NewWithClaims(jwt.SigningMethodHS256, claims).SignedString([]byte(secret))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// visitorSecret reads a site's visitor key through GraphQL (admin).
func visitorSecret(t *testing.T, c *siteEnv, siteID string) string {
	t.Helper()
	d := gqlData(t, c.Env, c.Admin.Token, `query($o: ID!, $s: ID!) { siteVisitorAuth(organizationId: $o, siteId: $s) { algorithm secret rotatedAt } }`,
		map[string]any{"o": c.Org, "s": siteID})["siteVisitorAuth"].(map[string]any)
	if d["algorithm"] != "HS256" || len(d["secret"].(string)) < 43 {
		t.Fatalf("visitor auth %v", d)
	}
	return d["secret"].(string)
}

var adaptiveSchema = map[string]any{
	"$schema": "http://json-schema.org/draft-07/schema#",
	"type":    "object",
	"properties": map[string]any{
		"unsigned": map[string]any{"type": "object", "description": "Unsigned claims of the site visitor.", "additionalProperties": false,
			"properties": map[string]any{"isBetaUser": map[string]any{"type": "boolean", "description": "Opted into the beta"}}},
		"plans":   map[string]any{"type": "array", "description": "Plans bought", "items": map[string]any{"type": "string", "enum": []string{"free", "pro", "team"}, "description": "A plan"}},
		"country": map[string]any{"type": "string", "description": "Country code"},
		"seats":   map[string]any{"type": "number", "description": "Seats"},
		"account": map[string]any{"type": "object", "description": "Account", "additionalProperties": false,
			"properties": map[string]any{"tier": map[string]any{"type": "string", "enum": []string{"gold", "silver"}, "description": "Tier"}}},
	},
	"additionalProperties": false,
}

func TestVisitorAuthAndConditions(t *testing.T) {
	c := newSiteEnv(t)
	admin := c.Admin.Token
	var spaces []string
	for _, title := range []string{"Guide", "Guide Beta", "API", "Pro API"} {
		spaces = append(spaces, c.space(admin, map[string]any{"title": title}))
	}
	site := c.site(map[string]any{"title": "Members", "type": "ultimate", "visibility": "visitor-auth", "spaces": spaces[:2]})
	siteID := site[strings.LastIndex(site, "/")+1:]
	c.Must(201, "POST", site+"/sections", admin, map[string]any{"spaceId": spaces[2], "title": "API"})
	_, sec := structureIDs(t, c, site)
	c.Must(201, "POST", site+"/site-spaces", admin, map[string]any{"spaceId": spaces[3], "sectionId": sec["API"]})
	ss, _ := structureIDs(t, c, site)
	c.Must(200, "PATCH", site+"/site-spaces/"+ss["Guide Beta"], admin, map[string]any{"condition": "visitor.claims.unsigned.isBetaUser === true"})
	c.Must(200, "PATCH", site+"/site-spaces/"+ss["Pro API"], admin, map[string]any{"condition": "visitor.claims.plans.includes('pro')"})
	c.Must(200, "PATCH", site+"/sections/"+sec["API"], admin, map[string]any{"condition": "visitor.claims.plans.some(p => p !== 'free')"})
	c.Must(200, "POST", site+"/publish", admin, nil)
	secret := visitorSecret(t, c, siteID)
	gqlRefusal(t, c.Env, c.ByRole["create"].Token, `query($o: ID!, $s: ID!) { siteVisitorAuth(organizationId: $o, siteId: $s) { secret } }`,
		map[string]any{"o": c.Org, "s": siteID}, "FORBIDDEN", 403)

	exp := time.Now().Add(time.Hour).Unix()
	stranger := c.OtherAdm.Token
	published := func(token, visitor string) apitest.Response {
		if visitor == "" {
			return c.Do("GET", site+"/published", token, nil)
		}
		return c.Do("GET", site+"/published", token, nil, "X-Visitor-Token", visitor)
	}
	// shown lists the published structure: sections and site spaces by title.
	shown := func(r apitest.Response) string {
		t.Helper()
		if r.Status != 200 {
			t.Fatalf("published: %d %s", r.Status, r.Body)
		}
		var body struct {
			Structure struct {
				Type      string `json:"type"`
				Structure []struct {
					Title      string `json:"title"`
					SiteSpaces []struct {
						Default bool   `json:"default"`
						Title   string `json:"title"`
					} `json:"siteSpaces"`
				} `json:"structure"`
			} `json:"structure"`
		}
		json.Unmarshal(r.Body, &body)
		var parts []string
		for _, s := range body.Structure.Structure {
			var names []string
			for _, ss := range s.SiteSpaces {
				n := ss.Title
				if ss.Default {
					n += "*"
				}
				names = append(names, n)
			}
			parts = append(parts, s.Title+"("+strings.Join(names, ",")+")")
		}
		return strings.Join(parts, " ")
	}
	valid := visitorToken(t, secret, jwt.MapClaims{"exp": exp, "plans": []string{"free"}})

	// Visitor authentication.
	for _, tc := range []struct {
		name, token, contains string
	}{
		{"no token", "", "needs a visitor token"},
		{"expired", visitorToken(t, secret, jwt.MapClaims{"exp": time.Now().Add(-time.Hour).Unix()}), "expired"},
		{"no expiry", visitorToken(t, secret, jwt.MapClaims{"plans": []string{"pro"}}), "exp is required"},
		{"wrong signature", visitorToken(t, "another-key", jwt.MapClaims{"exp": exp}), "not signed with the site's visitor key"},
		{"not a JWT", "abc.def", "malformed"},
	} {
		r := published(stranger, tc.token)
		if r.Status != 403 || !strings.Contains(string(r.Body), tc.contains) {
			t.Errorf("%s: %d %s", tc.name, r.Status, r.Body)
		}
	}
	// Adaptive content off: any claims, no conditions.
	if got := shown(published(stranger, visitorToken(t, secret, jwt.MapClaims{"exp": exp, "anything": 1}))); got != "Guide(Guide*,Guide Beta) API(API*,Pro API)" {
		t.Errorf("adaptive content off: %s", got)
	}

	// The adaptive schema and its template conditions.
	c.Run(t, []apitest.Scenario{
		{Name: "default schema", Method: "GET", Path: site + "/adaptive-schema", Token: c.ByRole["read"].Token, Status: 200,
			Contains: []string{`"object":"site-adaptive-schema"`, `"jsonSchema":{"additionalProperties":false,"properties":{},"type":"object"}`}},
		{Name: "put", Method: "PUT", Path: site + "/adaptive-schema", Token: c.ByRole["create"].Token, Body: map[string]any{"jsonSchema": adaptiveSchema}, Status: 200,
			Check: func(r apitest.Response) { apitest.Keys(t, r.JSON(), "object", "jsonSchema", "updatedAt") }},
		{Name: "reviewer cannot put", Method: "PUT", Path: site + "/adaptive-schema", Token: c.ByRole["review"].Token, Body: map[string]any{"jsonSchema": adaptiveSchema}, Status: 403},
		{Name: "jsonSchema required", Method: "PUT", Path: site + "/adaptive-schema", Token: admin, Body: map[string]any{}, Status: 400, Contains: names("jsonSchema")},
		{Name: "not an object schema", Method: "PUT", Path: site + "/adaptive-schema", Token: admin,
			Body: map[string]any{"jsonSchema": map[string]any{"type": "array", "properties": map[string]any{}, "additionalProperties": false}}, Status: 400, Contains: names("jsonSchema")},
		{Name: "a claim without description", Method: "PUT", Path: site + "/adaptive-schema", Token: admin,
			Body:   map[string]any{"jsonSchema": map[string]any{"type": "object", "properties": map[string]any{"x": map[string]any{"type": "boolean"}}, "additionalProperties": false}},
			Status: 400, Contains: []string{"jsonSchema: is not an adaptive schema of the documented shape"}},
		{Name: "additional properties allowed", Method: "PUT", Path: site + "/adaptive-schema", Token: admin,
			Body: map[string]any{"jsonSchema": map[string]any{"type": "object", "properties": map[string]any{}, "additionalProperties": true}}, Status: 400, Contains: names("jsonSchema")},
		{Name: "another draft", Method: "PUT", Path: site + "/adaptive-schema", Token: admin,
			Body:   map[string]any{"jsonSchema": map[string]any{"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object", "properties": map[string]any{}, "additionalProperties": false}},
			Status: 400, Contains: names("jsonSchema")},
		{Name: "template conditions", Method: "GET", Path: site + "/adaptive-schema/template-conditions", Token: c.ByRole["read"].Token, Status: 200,
			Contains: []string{`{"description":"Visitors whose unsigned isBetaUser is true","condition":"visitor.claims.unsigned.isBetaUser === true"}`,
				`"condition":"visitor.claims.plans.includes('free')"`, `"condition":"visitor.claims.account.tier === 'gold'"`,
				`"condition":"visitor.claims.account.tier === 'silver'"`, `"condition":"visitor.claims.seats > 0"`, `"condition":"Boolean(visitor.claims.country)"`}},
		{Name: "adaptive content on", Method: "PATCH", Path: site, Token: admin, Body: map[string]any{"adaptiveContent": map[string]any{"enabled": true}}, Status: 200},
	})

	// Claims are checked against the schema; conditions hide and show items.
	for _, tc := range []struct {
		name   string
		claims jwt.MapClaims
		want   string
	}{
		{"a free visitor", jwt.MapClaims{"plans": []string{"free"}}, "Guide(Guide*)"},
		{"a beta visitor", jwt.MapClaims{"plans": []string{"free"}, "unsigned": map[string]any{"isBetaUser": true}}, "Guide(Guide*,Guide Beta)"},
		{"a pro visitor", jwt.MapClaims{"plans": []string{"free", "pro"}}, "Guide(Guide*) API(API*,Pro API)"},
		{"a team visitor", jwt.MapClaims{"plans": []string{"team"}, "account": map[string]any{"tier": "gold"}}, "Guide(Guide*) API(API*)"},
		{"no claims: conditions that throw are false", jwt.MapClaims{}, "Guide(Guide*)"},
	} {
		tc.claims["exp"] = exp
		if got := shown(published(stranger, visitorToken(t, secret, tc.claims))); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.name, got, tc.want)
		}
	}
	for _, tc := range []struct {
		name   string
		claims jwt.MapClaims
	}{
		{"a value outside the enum", jwt.MapClaims{"plans": []string{"gold"}}},
		{"an undeclared claim", jwt.MapClaims{"role": "admin"}},
		{"a wrong type", jwt.MapClaims{"seats": "many"}},
	} {
		tc.claims["exp"] = exp
		r := published(stranger, visitorToken(t, secret, tc.claims))
		if r.Status != 403 || !strings.Contains(string(r.Body), "claims do not match the site's adaptive schema") {
			t.Errorf("%s: %d %s", tc.name, r.Status, r.Body)
		}
	}
	// A hidden default: the first shown site space stands in.
	c.Must(200, "PATCH", site+"/sections/"+sec["API"], admin, map[string]any{"defaultSiteSpace": ss["Pro API"]})
	c.Must(200, "PATCH", site+"/sections/"+sec["API"], admin, map[string]any{"condition": nil})
	if got := shown(published(stranger, valid)); got != "Guide(Guide*) API(API*)" {
		t.Errorf("hidden default: %s", got)
	}
	// GraphQL takes the token as an argument.
	q := `query($o: ID!, $s: ID!, $v: String) { publishedContentSite(organizationId: $o, siteId: $s, visitorToken: $v) { structure { structure { ... on SiteSection { title siteSpaces { title } } } } } }`
	g := gqlData(t, c.Env, stranger, q, map[string]any{"o": c.Org, "s": siteID, "v": valid})
	if n := len(g["publishedContentSite"].(map[string]any)["structure"].(map[string]any)["structure"].([]any)); n != 2 {
		t.Errorf("graphql published %v", g)
	}
	gqlRefusal(t, c.Env, stranger, q, map[string]any{"o": c.Org, "s": siteID}, "FORBIDDEN", 403)

	// Rotating the key retires tokens signed with the old one.
	rotated := gqlData(t, c.Env, admin, `mutation($o: ID!, $s: ID!) { rotateSiteVisitorKey(organizationId: $o, siteId: $s) { secret } }`,
		map[string]any{"o": c.Org, "s": siteID})["rotateSiteVisitorKey"].(map[string]any)["secret"].(string)
	if rotated == secret {
		t.Fatal("the key did not change")
	}
	if r := published(stranger, valid); r.Status != 403 {
		t.Errorf("old token after rotation: %d", r.Status)
	}
	if r := published(stranger, visitorToken(t, rotated, jwt.MapClaims{"exp": exp})); r.Status != 200 {
		t.Errorf("new token: %d %s", r.Status, r.Body)
	}
}
