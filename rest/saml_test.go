package rest_test

import (
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/base64"
	"encoding/pem"
	"net/http"
	"strings"
	"testing"
	"time"

	"docsapi/apitest"
	"docsapi/internal/samltest"
)

// testCertificate and testRSACertificate are the shared helpers'.
var (
	testCertificate    = samltest.Certificate
	testRSACertificate = samltest.RSACertificate
)

var providerKeys = []string{"object", "id", "label", "ssoURL", "entityID", "certificate", "defaultRole", "createdAt", "status", "service", "urls"}

func TestSAMLProviders(t *testing.T) {
	env := apitest.New(t)
	admin := env.Admin.Token
	org := "/v1/orgs/" + env.Org
	reader := env.NewUser("reader@acme.test", env.Org, "read")
	creator := env.NewUser("creator@acme.test", env.Org, "create")
	otherOrg, other := env.NewOrg("Other", "admin@other.test")
	team := env.Must(201, "PUT", org+"/teams", admin, map[string]any{"title": "Engineering"}).JSON()["id"].(string)
	otherTeam := env.Must(201, "PUT", "/v1/orgs/"+otherOrg+"/teams", other.Token, map[string]any{"title": "Theirs"}).JSON()["id"].(string)
	_, _, certPEM := testRSACertificate(t)
	ecKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	_, ecPEM := testCertificate(t, ecKey, &ecKey.PublicKey, time.Now().Add(-time.Hour), time.Now().Add(time.Hour))
	edPub, edKey, _ := ed25519.GenerateKey(rand.Reader)
	_, edPEM := testCertificate(t, edKey, edPub, time.Now().Add(-time.Hour), time.Now().Add(time.Hour))
	rsaKey, _, _ := testRSACertificate(t)
	_, expiredPEM := testCertificate(t, rsaKey, &rsaKey.PublicKey, time.Now().Add(-48*time.Hour), time.Now().Add(-24*time.Hour))
	_, futurePEM := testCertificate(t, rsaKey, &rsaKey.PublicKey, time.Now().Add(24*time.Hour), time.Now().Add(48*time.Hour))
	keyPEM := string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: []byte("not really")}))
	brokenPEM := string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: []byte("not DER")}))

	full := map[string]any{
		"label": "Okta", "entityID": "https://idp.example.com/metadata", "certificate": certPEM,
		"ssoURL": "https://idp.example.com/sso", "defaultTeam": team, "defaultRole": "edit",
	}
	var pendingID, activeID string
	env.Run(t, []apitest.Scenario{
		{Name: "create with a label only: pending, defaultRole from the organization", Method: "POST", Path: org + "/saml", Token: admin,
			Body: map[string]any{"label": "Pending"}, Status: 201, Check: func(r apitest.Response) {
				p := r.JSON()
				apitest.Keys(t, p, providerKeys...)
				pendingID = p["id"].(string)
				if p["object"] != "saml-provider" || p["status"] != "pending" || p["ssoURL"] != "about:blank" || p["entityID"] != "" || p["certificate"] != "" || p["defaultRole"] != nil {
					t.Errorf("pending provider: %v", p)
				}
				loc := env.HTTP.URL + org + "/saml/" + pendingID
				if r.Header.Get("Location") != loc || p["urls"].(map[string]any)["location"] != loc {
					t.Errorf("Location %q, urls %v, want %s", r.Header.Get("Location"), p["urls"], loc)
				}
				svc := p["service"].(map[string]any)
				apitest.Keys(t, svc, "acsURL", "startURL", "entityID")
				base := env.HTTP.URL + "/sso/saml/" + pendingID
				if svc["acsURL"] != base+"/acs" || svc["startURL"] != base+"/start" || svc["entityID"] != base+"/metadata" {
					t.Errorf("service URLs %v", svc)
				}
			}},
		{Name: "create fully configured: active, with team and role", Method: "POST", Path: org + "/saml", Token: admin, Body: full, Status: 201,
			Check: func(r apitest.Response) {
				p := r.JSON()
				apitest.Keys(t, p, append(providerKeys, "defaultTeam")...)
				activeID = p["id"].(string)
				if p["status"] != "active" || p["defaultRole"] != "edit" || p["certificate"] != certPEM || p["ssoURL"] != full["ssoURL"] {
					t.Errorf("active provider: %v", p)
				}
				dt := p["defaultTeam"].(map[string]any)
				if dt["object"] != "team" || dt["id"] != team || dt["title"] != "Engineering" {
					t.Errorf("defaultTeam %v", dt)
				}
			}},
		{Name: "an ECDSA certificate is accepted", Method: "POST", Path: org + "/saml", Token: admin,
			Body: map[string]any{"label": "EC", "certificate": ecPEM, "defaultRole": nil}, Status: 201, Contains: []string{`"defaultRole":null`}},
		{Name: "two certificates (key rotation) are accepted", Method: "POST", Path: org + "/saml", Token: admin,
			Body: map[string]any{"label": "Rotating", "certificate": certPEM + ecPEM}, Status: 201},
		{Name: "creating needs admin", Method: "POST", Path: org + "/saml", Token: creator.Token, Body: map[string]any{"label": "X"}, Status: 403},
		{Name: "creating needs a token", Method: "POST", Path: org + "/saml", Body: map[string]any{"label": "X"}, Status: 401},
		{Name: "another organization's admin", Method: "POST", Path: org + "/saml", Token: other.Token, Body: map[string]any{"label": "X"}, Status: 404},
	})

	invalid := []struct {
		name, field string
		body        map[string]any
		says        string
	}{
		{"label missing", "label", map[string]any{"entityID": "x"}, "label: is required"},
		{"label empty", "label", map[string]any{"label": ""}, "label: must not be empty"},
		{"label over 30", "label", map[string]any{"label": strings.Repeat("a", 31)}, "at most 30"},
		{"label not a string", "label", map[string]any{"label": 5}, "label: must be a string"},
		{"entityID over 1024", "entityID", map[string]any{"label": "L", "entityID": strings.Repeat("e", 1025)}, "at most 1024"},
		{"certificate over 10000", "certificate", map[string]any{"label": "L", "certificate": strings.Repeat("c", 10001)}, "at most 10000"},
		{"certificate not PEM", "certificate", map[string]any{"label": "L", "certificate": "MIIB...not pem"}, "must be a PEM-encoded X.509 certificate"},
		{"certificate a private key", "certificate", map[string]any{"label": "L", "certificate": keyPEM}, "PRIVATE KEY"},
		{"certificate not X.509", "certificate", map[string]any{"label": "L", "certificate": brokenPEM}, "not a valid X.509 certificate"},
		{"certificate with trailing text", "certificate", map[string]any{"label": "L", "certificate": certPEM + "garbage"}, "text after its last PEM block"},
		{"certificate expired", "certificate", map[string]any{"label": "L", "certificate": expiredPEM}, "expired on"},
		{"certificate not yet valid", "certificate", map[string]any{"label": "L", "certificate": futurePEM}, "not valid before"},
		{"certificate Ed25519", "certificate", map[string]any{"label": "L", "certificate": edPEM}, "Ed25519 key"},
		{"ssoURL not a URL", "ssoURL", map[string]any{"label": "L", "ssoURL": "idp/sso"}, "ssoURL: must be an absolute http or https URL"},
		{"ssoURL over 2048", "ssoURL", map[string]any{"label": "L", "ssoURL": "https://idp.test/" + strings.Repeat("a", 2040)}, "at most 2048"},
		{"defaultTeam unknown", "defaultTeam", map[string]any{"label": "L", "defaultTeam": "nosuchteam"}, "not a team of this organization"},
		{"defaultTeam of another organization", "defaultTeam", map[string]any{"label": "L", "defaultTeam": otherTeam}, "not a team of this organization"},
		{"defaultRole not a role", "defaultRole", map[string]any{"label": "L", "defaultRole": "owner"}, "defaultRole: must be one of"},
	}
	var scenarios []apitest.Scenario
	for _, c := range invalid {
		scenarios = append(scenarios, apitest.Scenario{Name: "create: " + c.name, Method: "POST", Path: org + "/saml", Token: admin, Body: c.body, Status: 400, Contains: []string{c.says}})
		if c.field != "label" || c.body["label"] != nil {
			scenarios = append(scenarios, apitest.Scenario{Name: "update: " + c.name, Method: "PATCH", Path: org + "/saml/" + pendingID, Token: admin, Body: c.body, Status: 400, Contains: []string{c.says}})
		}
	}
	env.Run(t, scenarios)

	env.Run(t, []apitest.Scenario{
		{Name: "get", Method: "GET", Path: org + "/saml/" + activeID, Token: admin, Status: 200, Contains: []string{`"status":"active"`}},
		{Name: "get needs admin", Method: "GET", Path: org + "/saml/" + activeID, Token: creator.Token, Status: 403},
		{Name: "get unknown id", Method: "GET", Path: org + "/saml/nosuchprovider", Token: admin, Status: 404},
		{Name: "get from another organization", Method: "GET", Path: "/v1/orgs/" + otherOrg + "/saml/" + activeID, Token: other.Token, Status: 404},
		{Name: "list", Method: "GET", Path: org + "/saml", Token: admin, Status: 200, Check: func(r apitest.Response) {
			l := r.JSON()
			ids := map[any]bool{}
			for _, it := range l["items"].([]any) {
				p := it.(map[string]any)
				if p["id"] == activeID {
					apitest.Keys(t, p, append(providerKeys, "defaultTeam")...)
				}
				ids[p["id"]] = true
			}
			if l["count"].(float64) != 4 || len(ids) != 4 || !ids[pendingID] || !ids[activeID] {
				t.Errorf("list: %s", r.Body)
			}
		}},
		{Name: "list pages", Method: "GET", Path: org + "/saml?limit=1", Token: admin, Status: 200, Contains: []string{`"next":{"page":`, `"count":4`}},
		{Name: "list limit over 1000", Method: "GET", Path: org + "/saml?limit=1001", Token: admin, Status: 400, Contains: []string{"limit"}},
		{Name: "list needs admin", Method: "GET", Path: org + "/saml", Token: reader.Token, Status: 403},
		{Name: "other organization's list", Method: "GET", Path: org + "/saml", Token: other.Token, Status: 404},
		{Name: "update configures: becomes active", Method: "PATCH", Path: org + "/saml/" + pendingID, Token: admin,
			Body:   map[string]any{"label": "Now active", "entityID": "https://idp2.test/", "ssoURL": "https://idp2.test/sso", "certificate": certPEM, "defaultTeam": team},
			Status: 200, Check: func(r apitest.Response) {
				p := r.JSON()
				if p["status"] != "active" || p["label"] != "Now active" || p["defaultTeam"].(map[string]any)["id"] != team || p["defaultRole"] != nil {
					t.Errorf("after update: %v", p)
				}
			}},
		{Name: "update unsets entityID: pending again; clears team and role", Method: "PATCH", Path: org + "/saml/" + pendingID, Token: admin,
			Body: map[string]any{"entityID": "", "defaultTeam": nil, "defaultRole": nil}, Status: 200, Check: func(r apitest.Response) {
				p := r.JSON()
				apitest.Keys(t, p, providerKeys...)
				if p["status"] != "pending" || p["entityID"] != "" || p["label"] != "Now active" || p["ssoURL"] != "https://idp2.test/sso" {
					t.Errorf("after unsetting: %v", p)
				}
			}},
		{Name: "update with an empty body object changes nothing", Method: "PATCH", Path: org + "/saml/" + pendingID, Token: admin, Body: map[string]any{}, Status: 200},
		{Name: "update needs admin", Method: "PATCH", Path: org + "/saml/" + pendingID, Token: creator.Token, Body: map[string]any{"label": "x"}, Status: 403},
		{Name: "update unknown id", Method: "PATCH", Path: org + "/saml/nosuchprovider", Token: admin, Body: map[string]any{"label": "x"}, Status: 404},
		{Name: "update from another organization", Method: "PATCH", Path: "/v1/orgs/" + otherOrg + "/saml/" + pendingID, Token: other.Token, Body: map[string]any{"label": "x"}, Status: 404},
		{Name: "update needs a body", Method: "PATCH", Path: org + "/saml/" + pendingID, Token: admin, Status: 400},
	})

	t.Run("login list: active providers only, for any authenticated caller", func(t *testing.T) {
		for _, tok := range []string{admin, reader.Token, other.Token} {
			r := env.Must(200, "GET", org+"/sso", tok, nil)
			var body struct {
				Items []map[string]any `json:"items"`
			}
			r.Decode(t, &body)
			if len(body.Items) != 1 || body.Items[0]["id"] != activeID || body.Items[0]["label"] != "Okta" {
				t.Fatalf("logins: %s", r.Body)
			}
			apitest.Keys(t, body.Items[0], "id", "label", "startURL")
			if body.Items[0]["startURL"] != env.HTTP.URL+"/sso/saml/"+activeID+"/start" {
				t.Errorf("startURL %v", body.Items[0]["startURL"])
			}
		}
		env.Must(200, "GET", "/v1/orgs/"+otherOrg+"/sso", admin, nil)
		if r := env.Must(404, "GET", "/v1/orgs/nosuchorg/sso", admin, nil); !strings.Contains(string(r.Body), "organization") {
			t.Errorf("unknown organization: %s", r.Body)
		}
		env.Must(401, "GET", org+"/sso", "", nil)
	})

	t.Run("defaultRole defaults to the organization's", func(t *testing.T) {
		env.Must(200, "PATCH", org, admin, map[string]any{"defaultRole": "comment"})
		p := env.Must(201, "POST", org+"/saml", admin, map[string]any{"label": "Defaults"}).JSON()
		if p["defaultRole"] != "comment" {
			t.Errorf("defaultRole %v", p["defaultRole"])
		}
		env.Must(205, "DELETE", org+"/saml/"+p["id"].(string), admin, nil)
	})

	t.Run("deleting a team clears it as default team", func(t *testing.T) {
		env.Must(205, "DELETE", org+"/teams/"+team, admin, nil)
		p := env.Must(200, "GET", org+"/saml/"+activeID, admin, nil).JSON()
		if _, has := p["defaultTeam"]; has {
			t.Errorf("defaultTeam still set: %v", p["defaultTeam"])
		}
	})

	env.Run(t, []apitest.Scenario{
		{Name: "delete needs admin", Method: "DELETE", Path: org + "/saml/" + activeID, Token: creator.Token, Status: 403},
		{Name: "delete from another organization", Method: "DELETE", Path: "/v1/orgs/" + otherOrg + "/saml/" + activeID, Token: other.Token, Status: 204},
		{Name: "delete", Method: "DELETE", Path: org + "/saml/" + activeID, Token: admin, Status: http.StatusResetContent},
		{Name: "delete again: did not exist", Method: "DELETE", Path: org + "/saml/" + activeID, Token: admin, Status: http.StatusNoContent},
		{Name: "gone", Method: "GET", Path: org + "/saml/" + activeID, Token: admin, Status: 404},
		{Name: "gone from the login list", Method: "GET", Path: org + "/sso", Token: admin, Status: 200, Contains: []string{`{"items":[]}`}},
	})
}

func TestSAMLProvidersGraphQL(t *testing.T) {
	env := apitest.New(t)
	reader := env.NewUser("reader@acme.test", env.Org, "read")
	_, other := env.NewOrg("Other", "admin@other.test")
	_, _, certPEM := testRSACertificate(t)
	const create = `mutation($org: ID!, $in: CreateSAMLProviderInput!) { createSAMLProvider(organizationId: $org, input: $in) {
	  object id label status defaultRole certificate service { acsURL startURL entityID } urls { location } } }`
	data, errs := env.GraphQL(env.Admin.Token, create, map[string]any{"org": env.Org, "in": map[string]any{
		"label": "Okta", "entityID": "https://idp.test/", "ssoURL": "https://idp.test/sso", "certificate": certPEM, "defaultRole": "COMMENT"}})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	p := data["createSAMLProvider"].(map[string]any)
	id := p["id"].(string)
	rest := env.Must(200, "GET", "/v1/orgs/"+env.Org+"/saml/"+id, env.Admin.Token, nil).JSON()
	if p["status"] != "ACTIVE" || p["defaultRole"] != "COMMENT" || rest["defaultRole"] != "comment" ||
		p["service"].(map[string]any)["startURL"] != rest["service"].(map[string]any)["startURL"] || p["urls"].(map[string]any)["location"] != rest["urls"].(map[string]any)["location"] {
		t.Errorf("GraphQL %v, REST %v", p, rest)
	}

	_, errs = env.GraphQL(env.Admin.Token, create, map[string]any{"org": env.Org, "in": map[string]any{"label": "Bad", "certificate": "nope"}})
	if len(errs) != 1 || errs[0].Code() != "BAD_REQUEST" || errs[0].Extensions["field"] != "certificate" {
		t.Errorf("bad certificate: %v", errs)
	}
	_, errs = env.GraphQL(reader.Token, create, map[string]any{"org": env.Org, "in": map[string]any{"label": "X"}})
	if len(errs) != 1 || errs[0].Code() != "FORBIDDEN" {
		t.Errorf("reader creates: %v", errs)
	}

	data, errs = env.GraphQL(env.Admin.Token, `mutation($org: ID!, $id: ID!) { updateSAMLProvider(organizationId: $org, samlProviderId: $id, input: {ssoURL: ""}) { status ssoURL } }`,
		map[string]any{"org": env.Org, "id": id})
	if len(errs) > 0 || data["updateSAMLProvider"].(map[string]any)["status"] != "PENDING" {
		t.Errorf("update: %v %v", data, errs)
	}
	data, errs = env.GraphQL(env.Admin.Token, `query($org: ID!) { samlProviders(organizationId: $org) { count items { id } } }`, map[string]any{"org": env.Org})
	if len(errs) > 0 || data["samlProviders"].(map[string]any)["count"].(float64) != 1 {
		t.Errorf("list: %v %v", data, errs)
	}
	_, errs = env.GraphQL(other.Token, `query($org: ID!, $id: ID!) { samlProvider(organizationId: $org, samlProviderId: $id) { id } }`, map[string]any{"org": env.Org, "id": id})
	if len(errs) != 1 || errs[0].Code() != "NOT_FOUND" {
		t.Errorf("other organization: %v", errs)
	}
	env.Must(200, "PATCH", "/v1/orgs/"+env.Org+"/saml/"+id, env.Admin.Token, map[string]any{"ssoURL": "https://idp.test/sso"})
	data, errs = env.GraphQL(other.Token, `query($org: ID!) { ssoProviderLogins(organizationId: $org) { items { id label startURL } } }`, map[string]any{"org": env.Org})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	items := data["ssoProviderLogins"].(map[string]any)["items"].([]any)
	if len(items) != 1 || items[0].(map[string]any)["id"] != id {
		t.Errorf("logins: %v", items)
	}
	data, errs = env.GraphQL(env.Admin.Token, `mutation($org: ID!, $id: ID!) { deleteSAMLProvider(organizationId: $org, samlProviderId: $id) { deleted } }`, map[string]any{"org": env.Org, "id": id})
	if len(errs) > 0 || data["deleteSAMLProvider"].(map[string]any)["deleted"] != true {
		t.Errorf("delete: %v %v", data, errs)
	}
}

// Identity-provider metadata carries its certificate as bare base64 DER (an
// X509Certificate element, often wrapped): accepted as well as PEM, stored
// as PEM, and logins verify against it.
func TestSAMLProviderCertificateAsBase64DER(t *testing.T) {
	env := apitest.New(t)
	org := "/v1/orgs/" + env.Org
	ip := newTestIdP(t, env, env.HTTP.URL+"/idp-der")
	block, _ := pem.Decode([]byte(ip.CertPEM))
	b64 := base64.StdEncoding.EncodeToString(block.Bytes)
	var wrapped strings.Builder // as metadata XML shows it: indented lines of 64
	for i := 0; i < len(b64); i += 64 {
		wrapped.WriteString("\n        " + b64[i:min(i+64, len(b64))])
	}
	var provider map[string]any
	env.Run(t, []apitest.Scenario{
		{Name: "bare base64 DER, wrapped and indented", Method: "POST", Path: org + "/saml", Token: env.Admin.Token, Status: 201,
			Body: map[string]any{"label": "From metadata", "entityID": ip.EntityID(), "ssoURL": ip.SSOURL(), "certificate": wrapped.String() + "\n"},
			Check: func(r apitest.Response) {
				provider = r.JSON()
				if provider["status"] != "active" || provider["certificate"] != ip.CertPEM {
					t.Errorf("provider %v", provider)
				}
			}},
		{Name: "base64 that is no certificate", Method: "POST", Path: org + "/saml", Token: env.Admin.Token, Status: 400,
			Body: map[string]any{"label": "L", "certificate": base64.StdEncoding.EncodeToString([]byte("not DER"))}, Contains: []string{"certificate: is not a valid X.509 certificate"}},
		{Name: "neither PEM nor base64", Method: "POST", Path: org + "/saml", Token: env.Admin.Token, Status: 400,
			Body: map[string]any{"label": "L", "certificate": "MIIB...not pem"}, Contains: []string{"certificate: must be a PEM-encoded X.509 certificate", "base64 DER"}},
	})
	patched := env.Must(200, "PATCH", org+"/saml/"+provider["id"].(string), env.Admin.Token, map[string]any{"certificate": b64}).JSON()
	if patched["certificate"] != ip.CertPEM {
		t.Errorf("patched with one line of base64: %v", patched["certificate"])
	}
	acs, resp := ip.answer(start(t, provider), "der@example.com", nil)
	if status, body := post(t, acs, resp, "application/json"); status != 200 {
		t.Errorf("login through a provider configured with base64 DER: %d %s", status, body)
	}
	data := gqlData(t, env, env.Admin.Token, `mutation($o: ID!, $in: CreateSAMLProviderInput!) { createSAMLProvider(organizationId: $o, input: $in) { status certificate } }`,
		map[string]any{"o": env.Org, "in": map[string]any{"label": "GraphQL", "entityID": "https://idp.test/", "ssoURL": "https://idp.test/sso", "certificate": b64}})
	if p := data["createSAMLProvider"].(map[string]any); p["status"] != "ACTIVE" || p["certificate"] != ip.CertPEM {
		t.Errorf("GraphQL provider %v", p)
	}
}
