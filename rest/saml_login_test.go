package rest_test

import (
	"context"
	"crypto"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/xml"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/crewjam/saml"
	dsig "github.com/russellhaering/goxmldsig"

	"docsapi/apitest"
	"docsapi/internal/samltest"
	"docsapi/storage"
)

// testIdP is the shared test identity provider (internal/samltest) with
// the environment it configures providers in.
type testIdP struct {
	*samltest.IdP
	t   *testing.T
	env *apitest.Env
}

func newTestIdP(t *testing.T, env *apitest.Env, entityID string) *testIdP {
	return &testIdP{IdP: samltest.New(t, entityID), t: t, env: env}
}

// provider creates an active provider for this identity provider.
func (ip *testIdP) provider(label, team, role string) map[string]any {
	body := map[string]any{"label": label, "entityID": ip.EntityID(), "ssoURL": ip.SSOURL(),
		"certificate": ip.CertPEM, "defaultRole": role}
	if team != "" {
		body["defaultTeam"] = team
	}
	return ip.env.Must(201, "POST", "/v1/orgs/"+ip.env.Org+"/saml", ip.env.Admin.Token, body).JSON()
}

// noRedirects is a client that shows redirects instead of following them.
var noRedirects = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

// start opens the provider's startURL as a browser would and returns the
// identity provider URL it redirects to.
func start(t *testing.T, provider map[string]any) *url.URL {
	t.Helper()
	res, err := noRedirects.Get(provider["service"].(map[string]any)["startURL"].(string))
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusFound {
		t.Fatalf("start: status %d", res.StatusCode)
	}
	to, err := url.Parse(res.Header.Get("Location"))
	if err != nil {
		t.Fatal(err)
	}
	return to
}

// answer plays the identity provider for the request in redirect: the user
// email signs in; alter may change the assertion before it is signed.
func (ip *testIdP) answer(redirect *url.URL, email string, alter func(req *saml.IdpAuthnRequest)) (acsURL, samlResponse string) {
	ip.t.Helper()
	acsURL, samlResponse, _ = ip.Answer(redirect, email, alter)
	return acsURL, samlResponse
}

// post sends the identity provider's answer to the ACS as the browser's
// auto-submitted form would.
func post(t *testing.T, acsURL, samlResponse, accept string) (int, []byte) {
	t.Helper()
	req, _ := http.NewRequest("POST", acsURL, strings.NewReader(url.Values{"SAMLResponse": {samlResponse}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", accept)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	return res.StatusCode, body
}

type session struct {
	Object, Token, ExpiresAt, Organization string
	User                                   map[string]any
	Joined                                 bool
}

func TestSAMLLogin(t *testing.T) {
	env := apitest.New(t)
	org := "/v1/orgs/" + env.Org
	team := env.Must(201, "PUT", org+"/teams", env.Admin.Token, map[string]any{"title": "Engineering"}).JSON()["id"].(string)
	ip := newTestIdP(t, env, "https://idp.test/saml")
	provider := ip.provider("Okta", team, "edit")

	t.Run("the start redirect carries a signed AuthnRequest", func(t *testing.T) {
		to := start(t, provider)
		if !strings.HasPrefix(to.String(), "https://idp.test/saml/sso?SAMLRequest=") || to.Query().Get("SigAlg") != dsig.RSASHA256SignatureMethod {
			t.Fatalf("redirect %s", to)
		}
		var md saml.EntityDescriptor
		res, err := http.Get(provider["service"].(map[string]any)["entityID"].(string))
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if err := xml.Unmarshal(raw, &md); err != nil || md.EntityID != provider["service"].(map[string]any)["entityID"] {
			t.Fatalf("metadata %v: %s", err, raw)
		}
		spd := md.SPSSODescriptors[0]
		if len(spd.AssertionConsumerServices) != 1 || spd.AssertionConsumerServices[0].Location != provider["service"].(map[string]any)["acsURL"] ||
			spd.AuthnRequestsSigned == nil || !*spd.AuthnRequestsSigned {
			t.Errorf("metadata service descriptor %+v", spd)
		}
		var certB64 string
		for _, kd := range spd.KeyDescriptors {
			if kd.Use == "signing" {
				certB64 = kd.KeyInfo.X509Data.X509Certificates[0].Data
			}
		}
		der, _ := base64.StdEncoding.DecodeString(certB64)
		cert, err := x509.ParseCertificate(der)
		if err != nil {
			t.Fatalf("service provider certificate: %v", err)
		}
		signed, sig, _ := strings.Cut(to.RawQuery, "&Signature=")
		sig, _ = url.QueryUnescape(sig)
		sigBytes, _ := base64.StdEncoding.DecodeString(sig)
		digest := sha256.Sum256([]byte(signed))
		if err := rsa.VerifyPKCS1v15(cert.PublicKey.(*rsa.PublicKey), crypto.SHA256, digest[:], sigBytes); err != nil {
			t.Errorf("AuthnRequest signature does not verify with the published certificate: %v", err)
		}
	})

	var first session
	t.Run("a good response signs in and provisions the member with the default role and team", func(t *testing.T) {
		acs, resp := ip.answer(start(t, provider), "Jane@Example.com", nil)
		if acs != provider["service"].(map[string]any)["acsURL"] {
			t.Fatalf("the identity provider posts to %s", acs)
		}
		status, body := post(t, acs, resp, "application/json")
		if status != 200 {
			t.Fatalf("ACS: %d %s", status, body)
		}
		var raw map[string]any
		json.Unmarshal(body, &raw)
		apitest.Keys(t, raw, "object", "token", "expiresAt", "organization", "user", "joined")
		json.Unmarshal(body, &first)
		if first.Object != "sso-session" || !strings.HasPrefix(first.Token, "dapi_") || first.Organization != env.Org || !first.Joined ||
			first.User["email"] != "jane@example.com" || first.User["displayName"] != "Jane Doe" {
			t.Fatalf("session %s", body)
		}
		if exp, _ := time.Parse(time.RFC3339, first.ExpiresAt); exp.Sub(time.Now()) < 11*time.Hour || exp.Sub(time.Now()) > 13*time.Hour {
			t.Errorf("expiresAt %s", first.ExpiresAt)
		}
		uid := first.User["id"].(string)
		m := env.Must(200, "GET", org+"/members/"+uid, first.Token, nil).JSON()
		if m["role"] != "edit" || m["sso"] != true || m["lastSeenAt"] == nil || m["teams"].(float64) != 1 {
			t.Errorf("member %v", m)
		}
		tm := env.Must(200, "GET", org+"/teams/"+team+"/members", env.Admin.Token, nil)
		if !strings.Contains(string(tm.Body), uid) {
			t.Errorf("not in the default team: %s", tm.Body)
		}
		// The join is in the audit log, from the browser's address.
		audit := items(t, env.Must(200, "GET", org+"/audit-log?action=member.added&targetId="+uid, env.Admin.Token, nil))
		if len(audit) != 1 || audit[0]["fields"].(map[string]any)["email"] != "jane@example.com" ||
			audit[0]["actor"].(map[string]any)["address"] != "127.0.0.1" || audit[0]["actor"].(map[string]any)["user"] != nil {
			t.Errorf("audit log of the join: %v", audit)
		}
		tok, err := env.DB.TokenByHash(context.Background(), hashOf(first.Token))
		if err != nil || tok.Kind != "session" || tok.ExpiresAt == nil || tok.OrganizationID == nil || *tok.OrganizationID != env.Org {
			t.Errorf("stored token %+v %v", tok, err)
		}
	})

	t.Run("the session token is listed with its expiry", func(t *testing.T) {
		list := items(t, env.Must(200, "GET", "/v1/user/tokens", first.Token, nil))
		if len(list) != 1 || list[0]["label"] != "SAML sign-in" || list[0]["expiresAt"] != first.ExpiresAt || list[0]["readOnly"] != false {
			t.Fatalf("tokens of the signed-in user %v (session expires %s)", list, first.ExpiresAt)
		}
	})

	t.Run("a replay is refused", func(t *testing.T) {
		acs, resp := ip.answer(start(t, provider), "replay@example.com", nil)
		if status, body := post(t, acs, resp, "application/json"); status != 200 {
			t.Fatalf("first post: %d %s", status, body)
		}
		status, body := post(t, acs, resp, "application/json")
		if status != 401 || !strings.Contains(string(body), "answers no login in progress") {
			t.Errorf("replay: %d %s", status, body)
		}
	})

	t.Run("an existing member keeps their role and gets no team", func(t *testing.T) {
		u := env.NewUser("reader@example.com", env.Org, "read")
		acs, resp := ip.answer(start(t, provider), u.Email, nil)
		status, body := post(t, acs, resp, "application/json")
		var s session
		json.Unmarshal(body, &s)
		if status != 200 || s.Joined || s.User["id"] != u.ID {
			t.Fatalf("login: %d %s", status, body)
		}
		m := env.Must(200, "GET", org+"/members/"+u.ID, env.Admin.Token, nil).JSON()
		if m["role"] != "read" || m["sso"] != true || m["teams"].(float64) != 0 {
			t.Errorf("member %v", m)
		}
		if audit := items(t, env.Must(200, "GET", org+"/audit-log?targetId="+u.ID, env.Admin.Token, nil)); len(audit) != 0 {
			t.Errorf("a member's sign-in is in the audit log: %v", audit)
		}
	})

	refused := []struct {
		name  string
		ip    *testIdP
		alter func(req *saml.IdpAuthnRequest)
		says  string
	}{
		{"a response signed by another key", newTestIdP(t, env, "https://idp.test/saml"), nil, "signature"},
		{"a wrong audience", ip, func(req *saml.IdpAuthnRequest) {
			req.Assertion.Conditions.AudienceRestrictions[0].Audience.Value = "https://someone-else.test/metadata"
		}, "AudienceRestriction"},
		{"an expired assertion", ip, func(req *saml.IdpAuthnRequest) {
			req.Assertion.Conditions.NotBefore = time.Now().Add(-20 * time.Minute)
			req.Assertion.Conditions.NotOnOrAfter = time.Now().Add(-10 * time.Minute)
		}, "Conditions is expired"},
		{"an assertion not yet valid", ip, func(req *saml.IdpAuthnRequest) {
			req.Assertion.Conditions.NotBefore = time.Now().Add(10 * time.Minute)
		}, "not yet valid"},
		{"a stale response", ip, func(req *saml.IdpAuthnRequest) {
			past := time.Now().Add(-time.Hour)
			req.Now = past
			req.Assertion.IssueInstant = past
			req.Assertion.Conditions.NotBefore = past.Add(-time.Minute)
			req.Assertion.Conditions.NotOnOrAfter = past.Add(time.Minute)
			req.Assertion.Subject.SubjectConfirmations[0].SubjectConfirmationData.NotOnOrAfter = past.Add(time.Minute)
		}, "expired"},
		{"a wrong recipient", ip, func(req *saml.IdpAuthnRequest) {
			req.Assertion.Subject.SubjectConfirmations[0].SubjectConfirmationData.Recipient = "https://someone-else.test/acs"
		}, "Recipient"},
		{"another issuer", ip, func(req *saml.IdpAuthnRequest) { req.Assertion.Issuer.Value = "https://impostor.test/" }, "issuer"},
	}
	for _, c := range refused {
		t.Run(c.name+" is refused", func(t *testing.T) {
			email := "refused-" + strings.ReplaceAll(c.name, " ", "-") + "@example.com"
			acs, resp := c.ip.answer(start(t, provider), email, c.alter)
			status, body := post(t, acs, resp, "application/json")
			if status != 401 || !strings.Contains(string(body), c.says) {
				t.Errorf("%d %s", status, body)
			}
			if _, err := env.DB.UserByEmail(context.Background(), email); err != storage.ErrNotFound {
				t.Errorf("a refused login created the user: %v", err)
			}
		})
	}

	t.Run("a response for another provider's request is refused", func(t *testing.T) {
		other := ip.provider("Okta copy", "", "read")
		acs, resp := ip.answer(start(t, other), "crossed@example.com", nil)
		status, body := post(t, strings.Replace(acs, other["id"].(string), provider["id"].(string), 1), resp, "application/json")
		if status != 401 || !strings.Contains(string(body), "answers no login in progress") {
			t.Errorf("%d %s", status, body)
		}
	})

	t.Run("tampering after signing is refused", func(t *testing.T) {
		acs, resp := ip.answer(start(t, provider), "honest@example.com", func(req *saml.IdpAuthnRequest) {
			// Sign in the clear so that the test can edit the signed XML.
			req.AssertionEl = nil
			if err := req.MakeAssertionEl(); err != nil {
				t.Fatal(err)
			}
			req.AssertionEl = req.Assertion.Element()
		})
		raw, _ := base64.StdEncoding.DecodeString(resp)
		forged := strings.ReplaceAll(string(raw), "honest@example.com", "admin@acme.test")
		status, body := post(t, acs, base64.StdEncoding.EncodeToString([]byte(forged)), "application/json")
		if status != 401 || strings.Count(forged, "admin@acme.test") < 2 || !strings.Contains(string(body), "validate signature") {
			t.Errorf("%d %s", status, body)
		}
	})

	t.Run("a browser gets an HTML page showing the token once", func(t *testing.T) {
		acs, resp := ip.answer(start(t, provider), "browser@example.com", nil)
		status, body := post(t, acs, resp, "text/html,application/xhtml+xml,*/*;q=0.8")
		if status != 200 || !strings.Contains(string(body), "<code id=\"token\">dapi_") || !strings.Contains(string(body), "browser@example.com") {
			t.Errorf("%d %s", status, body)
		}
		status, body = post(t, acs, resp, "text/html")
		if status != 401 || !strings.Contains(string(body), "Sign-in failed") {
			t.Errorf("replay in a browser: %d %s", status, body)
		}
	})

	t.Run("login endpoint errors", func(t *testing.T) {
		pending := env.Must(201, "POST", org+"/saml", env.Admin.Token, map[string]any{"label": "Pending"}).JSON()
		for _, c := range []struct {
			url    string
			status int
		}{
			{env.HTTP.URL + "/sso/saml/nosuchprovider/start", 404},
			{pending["service"].(map[string]any)["startURL"].(string), 409},
			{env.HTTP.URL + "/sso/saml/nosuchprovider/metadata", 404},
		} {
			res, err := noRedirects.Get(c.url)
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			if res.StatusCode != c.status {
				t.Errorf("GET %s: %d, want %d", c.url, res.StatusCode, c.status)
			}
		}
		acs := provider["service"].(map[string]any)["acsURL"].(string)
		if status, body := post(t, acs, "", "application/json"); status != 400 || !strings.Contains(string(body), "SAMLResponse") {
			t.Errorf("no SAMLResponse: %d %s", status, body)
		}
		if status, body := post(t, acs, "bm90IHhtbA==", "application/json"); status != 401 {
			t.Errorf("not XML: %d %s", status, body)
		}
		unsolicited := base64.StdEncoding.EncodeToString([]byte(`<samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" ID="x" InResponseTo="id-unknown"/>`))
		if status, body := post(t, acs, unsolicited, "application/json"); status != 401 {
			t.Errorf("unknown request: %d %s", status, body)
		}
	})

	t.Run("SSO enforcement", func(t *testing.T) {
		reader := env.NewUser("plain@acme.test", env.Org, "read")
		env.Must(200, "PATCH", org, env.Admin.Token, map[string]any{"sso": true})
		r := env.Must(403, "GET", org, reader.Token, nil)
		if !strings.Contains(string(r.Body), "single sign-on") {
			t.Errorf("refusal: %s", r.Body)
		}
		_, errs := env.GraphQL(reader.Token, `query($id: ID!) { organization(id: $id) { id } }`, map[string]any{"id": env.Org})
		if len(errs) != 1 || errs[0].Code() != "FORBIDDEN" {
			t.Errorf("GraphQL: %v", errs)
		}
		env.Must(200, "GET", org+"/sso", reader.Token, nil) // the way to sign in stays readable
		env.Must(200, "GET", org, env.Admin.Token, nil)     // admins keep their API tokens
		env.Must(200, "GET", org, first.Token, nil)         // an SSO session

		acs, resp := ip.answer(start(t, provider), reader.Email, nil)
		status, body := post(t, acs, resp, "application/json")
		var s session
		json.Unmarshal(body, &s)
		if status != 200 {
			t.Fatalf("login: %d %s", status, body)
		}
		env.Must(200, "GET", org, s.Token, nil)
		env.Must(200, "GET", org, reader.Token, nil) // now an SSO member: their own token works again

		marked := env.NewUser("marked@acme.test", env.Org, "read")
		env.Must(403, "GET", org, marked.Token, nil)
		env.Must(200, "POST", org+"/members/"+marked.ID+"/sso", env.Admin.Token, nil)
		env.Must(200, "GET", org, marked.Token, nil)

		env.Must(200, "PATCH", org, env.Admin.Token, map[string]any{"sso": false})
		plain := env.NewUser("plain2@acme.test", env.Org, "read")
		env.Must(200, "GET", org, plain.Token, nil)
	})

	t.Run("a session token reaches only its organization", func(t *testing.T) {
		otherOrg, other := env.NewOrg("Other", "admin@other.test")
		env.Must(200, "POST", "/v1/orgs/"+otherOrg+"/invites", other.Token, map[string]any{"emails": []string{"jane@example.com"}})
		env.Must(404, "GET", "/v1/orgs/"+otherOrg, first.Token, nil)
	})
}

func hashOf(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	const hexdigits = "0123456789abcdef"
	out := make([]byte, 0, 64)
	for _, b := range sum {
		out = append(out, hexdigits[b>>4], hexdigits[b&15])
	}
	return string(out)
}
