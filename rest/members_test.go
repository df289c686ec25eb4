package rest_test

import (
	"context"
	"crypto/ed25519"
	"encoding/base64"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"docsapi/apitest"
)

const memberFields = `object id role user { object id displayName email photoURL urls { location } } disabled joinedAt lastSeenAt sso spaces teams`

// memberEnv is an organization with one member of each role, joined one
// second apart in this order.
type memberEnv struct {
	*apitest.Env
	org    string
	byRole map[string]apitest.User
}

func newMemberEnv(t *testing.T) memberEnv {
	env := apitest.New(t)
	m := memberEnv{Env: env, org: "/v1/orgs/" + env.Org, byRole: map[string]apitest.User{"admin": env.Admin}}
	for _, role := range []string{"create", "review", "edit", "comment", "read", "guest"} {
		env.Clock.Advance(time.Second)
		m.byRole[role] = env.NewUser(role+"@acme.test", env.Org, role)
	}
	return m
}

func TestMemberList(t *testing.T) {
	env := newMemberEnv(t)
	admin := env.Admin.Token
	list := env.org + "/members"
	emails := func(r apitest.Response) []string {
		var out []string
		for _, m := range items(t, r) {
			out = append(out, m["user"].(map[string]any)["email"].(string))
		}
		return out
	}
	expect := func(want ...string) func(r apitest.Response) {
		return func(r apitest.Response) {
			if got := emails(r); !slices.Equal(got, want) {
				t.Errorf("members %v, want %v", got, want)
			}
			if c := body(t, r)["count"].(float64); int(c) != len(want) {
				t.Errorf("count %v, want %d", c, len(want))
			}
		}
	}
	env.Run(t, []apitest.Scenario{
		{Name: "shape", Method: "GET", Path: list, Token: admin, Status: 200, Check: func(r apitest.Response) {
			apitest.Keys(t, body(t, r), "count", "items")
			for _, m := range items(t, r) {
				apitest.Keys(t, m, memberKeys...)
				apitest.Keys(t, m["user"].(map[string]any), userKeys...)
				if m["object"] != "member" || m["id"] != m["user"].(map[string]any)["id"] {
					t.Errorf("member %v", m)
				}
			}
		}},
		{Name: "newest first by default", Method: "GET", Path: list, Token: admin, Status: 200,
			Check: expect("guest@acme.test", "read@acme.test", "comment@acme.test", "edit@acme.test", "review@acme.test", "create@acme.test", "admin@acme.test")},
		{Name: "ascending", Method: "GET", Path: list + "?order=asc&limit=2", Token: admin, Status: 200, Check: func(r apitest.Response) {
			if got := emails(r); !slices.Equal(got, []string{"admin@acme.test", "create@acme.test"}) {
				t.Errorf("asc %v", got)
			}
		}},
		{Name: "guests", Method: "GET", Path: list + "?role=guest", Token: admin, Status: 200, Check: func(r apitest.Response) {
			expect("guest@acme.test")(r)
			if m := items(t, r)[0]; m["role"] != nil {
				t.Errorf("guest role %v", m["role"])
			}
			if !strings.Contains(string(r.Body), `"role":null`) {
				t.Errorf("a guest's role must be written as null: %s", r.Body)
			}
		}},
		{Name: "by role", Method: "GET", Path: list + "?role=edit", Token: admin, Status: 200, Check: expect("edit@acme.test")},
		{Name: "search display name", Method: "GET", Path: list + "?search=REV", Token: admin, Status: 200, Check: expect("review@acme.test")},
		{Name: "search e-mail", Method: "GET", Path: list + "?search=" + url.QueryEscape("ment@acme"), Token: admin, Status: 200, Check: expect("comment@acme.test")},
		{Name: "search with LIKE characters", Method: "GET", Path: list + "?search=" + url.QueryEscape("%"), Token: admin, Status: 200, Check: expect()},
		{Name: "never seen: empty by lastSeenAt", Method: "GET", Path: list + "?sort=lastSeenAt", Token: admin, Status: 200, Check: expect()},
		{Name: "unknown role", Method: "GET", Path: list + "?role=owner", Token: admin, Status: 400, Contains: names("role")},
		{Name: "unknown order", Method: "GET", Path: list + "?order=up", Token: admin, Status: 400, Contains: names("order")},
		{Name: "unknown sort", Method: "GET", Path: list + "?sort=name", Token: admin, Status: 400, Contains: names("sort")},
		{Name: "limit over 1000", Method: "GET", Path: list + "?limit=1001", Token: admin, Status: 400, Contains: names("limit")},
		{Name: "bad page", Method: "GET", Path: list + "?page=%%%", Token: admin, Status: 400},
		{Name: "bad page cursor", Method: "GET", Path: list + "?page=bm90LWpzb24", Token: admin, Status: 400, Contains: names("page")},
		{Name: "reader may list", Method: "GET", Path: list, Token: env.byRole["read"].Token, Status: 200},
		{Name: "guest may not", Method: "GET", Path: list, Token: env.byRole["guest"].Token, Status: 403},
		{Name: "no token", Method: "GET", Path: list, Status: 401},
	})

	t.Run("sort by lastSeenAt lists only seen members", func(t *testing.T) {
		env.Clock.Advance(time.Second)
		env.Must(200, "POST", env.org+"/ping", env.byRole["edit"].Token, nil)
		env.Clock.Advance(time.Second)
		env.Must(200, "POST", env.org+"/ping", env.byRole["guest"].Token, nil)
		r := env.Must(200, "GET", list+"?sort=lastSeenAt", admin, nil)
		expect("guest@acme.test", "edit@acme.test")(r)
		for _, m := range items(t, r) {
			apitest.Keys(t, m, append(memberKeys, "lastSeenAt")...)
		}
		expect("edit@acme.test", "guest@acme.test")(env.Must(200, "GET", list+"?sort=lastSeenAt&order=asc", admin, nil))
		// Keyset pages over lastSeenAt.
		r = env.Must(200, "GET", list+"?sort=lastSeenAt&limit=1", admin, nil)
		if got := emails(r); !slices.Equal(got, []string{"guest@acme.test"}) || body(t, r)["count"] != 2.0 {
			t.Errorf("first page %s", r.Body)
		}
		next := body(t, r)["next"].(map[string]any)["page"].(string)
		r = env.Must(200, "GET", list+"?sort=lastSeenAt&limit=1&page="+next, admin, nil)
		if got := emails(r); !slices.Equal(got, []string{"edit@acme.test"}) || body(t, r)["next"] != nil {
			t.Errorf("second page %s", r.Body)
		}
	})

	t.Run("pages stay stable when members join between reads", func(t *testing.T) {
		var all []string
		r := env.Must(200, "GET", list+"?limit=3&order=asc", admin, nil)
		all = append(all, ids(items(t, r))...)
		next := body(t, r)["next"].(map[string]any)["page"].(string)
		// Newcomers join after the first page (at the end in ascending order).
		env.Clock.Advance(time.Second)
		late := env.NewUser("late@acme.test", env.Env.Org, "read")
		for {
			r = env.Must(200, "GET", list+"?limit=3&order=asc&page="+next, admin, nil)
			all = append(all, ids(items(t, r))...)
			n, ok := body(t, r)["next"].(map[string]any)
			if !ok {
				break
			}
			next = n["page"].(string)
		}
		if len(all) != 8 || all[7] != late.ID || len(dedupe(all)) != 8 {
			t.Errorf("ascending pages %v", all)
		}
		// Descending: a newcomer sorts before the cursor and is not repeated.
		r = env.Must(200, "GET", list+"?limit=4", admin, nil)
		first := ids(items(t, r))
		next = body(t, r)["next"].(map[string]any)["page"].(string)
		env.Clock.Advance(time.Second)
		env.NewUser("later@acme.test", env.Env.Org, "read")
		r = env.Must(200, "GET", list+"?limit=4&page="+next, admin, nil)
		rest := ids(items(t, r))
		if len(first)+len(rest) != 8 || len(dedupe(append(first, rest...))) != 8 || body(t, r)["count"].(float64) != 9 {
			t.Errorf("descending pages %v then %v (%s)", first, rest, r.Body)
		}
	})

	t.Run("graphql parity", func(t *testing.T) {
		rest := body(t, env.Must(200, "GET", list+"?limit=3&role=guest", admin, nil))
		data := gqlData(t, env.Env, admin, `query($o: ID!) { members(organizationId: $o, limit: 3, role: "guest") { next { page } count items { `+memberFields+` } } }`,
			map[string]any{"o": env.Env.Org})
		sameJSON(t, "members", rest, dropNulls(data["members"]))
		rest = body(t, env.Must(200, "GET", list+"?limit=2&order=asc&sort=lastSeenAt", admin, nil))
		data = gqlData(t, env.Env, admin, `query($o: ID!) { members(organizationId: $o, limit: 2, order: ASC, sort: LAST_SEEN_AT) { next { page } count items { `+memberFields+` } } }`,
			map[string]any{"o": env.Env.Org})
		sameJSON(t, "members by lastSeenAt", rest, dropNulls(data["members"]))
		gqlRefusal(t, env.Env, env.byRole["guest"].Token, `query($o: ID!) { members(organizationId: $o) { count } }`, map[string]any{"o": env.Env.Org}, "FORBIDDEN", 403)
		gqlRefusal(t, env.Env, admin, `query($o: ID!) { members(organizationId: $o, role: "owner") { count } }`, map[string]any{"o": env.Env.Org}, "BAD_REQUEST", 400)
	})
}

func dedupe(xs []string) map[string]bool {
	out := map[string]bool{}
	for _, x := range xs {
		out[x] = true
	}
	return out
}

func TestMemberReadAndUpdate(t *testing.T) {
	env := newMemberEnv(t)
	admin := env.Admin.Token
	member := func(u apitest.User) string { return env.org + "/members/" + u.ID }
	reader, guest := env.byRole["read"], env.byRole["guest"]
	_, foreign := env.NewOrg("Other", "boss@other.test")
	env.Run(t, []apitest.Scenario{
		{Name: "get", Method: "GET", Path: member(reader), Token: admin, Status: 200, Check: func(r apitest.Response) {
			m := body(t, r)
			apitest.Keys(t, m, memberKeys...)
			if m["role"] != "read" || m["id"] != reader.ID || m["sso"] != false || m["teams"] != 0.0 || m["disabled"] != false {
				t.Errorf("member %v", m)
			}
		}},
		{Name: "guest's own membership", Method: "GET", Path: member(guest), Token: guest.Token, Status: 200, Contains: []string{`"role":null`}},
		{Name: "guest reading another", Method: "GET", Path: member(reader), Token: guest.Token, Status: 403},
		{Name: "unknown member", Method: "GET", Path: env.org + "/members/nope", Token: admin, Status: 404},
		{Name: "member of another organization", Method: "GET", Path: member(foreign), Token: admin, Status: 404},
		{Name: "foreign caller", Method: "GET", Path: member(reader), Token: foreign.Token, Status: 404},
		{Name: "no token", Method: "GET", Path: member(reader), Status: 401},

		{Name: "promote", Method: "PATCH", Path: member(reader), Token: admin, Body: map[string]any{"role": "edit"}, Status: 200, Check: func(r apitest.Response) {
			apitest.Keys(t, body(t, r), memberKeys...)
			if body(t, r)["role"] != "edit" {
				t.Errorf("%s", r.Body)
			}
		}},
		{Name: "make a guest", Method: "PATCH", Path: member(reader), Token: admin, Body: map[string]any{"role": nil}, Status: 200, Contains: []string{`"role":null`}},
		{Name: "empty patch changes nothing", Method: "PATCH", Path: member(reader), Token: admin, Body: map[string]any{}, Status: 200, Contains: []string{`"role":null`}},
		{Name: "unknown role", Method: "PATCH", Path: member(reader), Token: admin, Body: map[string]any{"role": "owner"}, Status: 400, Contains: names("role")},
		{Name: "role of the wrong type", Method: "PATCH", Path: member(reader), Token: admin, Body: map[string]any{"role": 3}, Status: 400, Contains: names("role")},
		{Name: "malformed", Method: "PATCH", Path: member(reader), Token: admin, Body: `{"role"`, Status: 400},
		{Name: "create may not", Method: "PATCH", Path: member(reader), Token: env.byRole["create"].Token, Body: map[string]any{"role": "edit"}, Status: 403},
		{Name: "unknown member patch", Method: "PATCH", Path: env.org + "/members/nope", Token: admin, Body: map[string]any{"role": "edit"}, Status: 404},
		{Name: "foreign patch", Method: "PATCH", Path: member(reader), Token: foreign.Token, Body: map[string]any{"role": "edit"}, Status: 404},
		{Name: "last admin cannot step down", Method: "PATCH", Path: member(env.Admin), Token: admin, Body: map[string]any{"role": "read"}, Status: 409},
		{Name: "last admin may stay admin", Method: "PATCH", Path: member(env.Admin), Token: admin, Body: map[string]any{"role": "admin"}, Status: 200},

		{Name: "mark SSO", Method: "POST", Path: member(reader) + "/sso", Token: admin, Status: 200, Check: func(r apitest.Response) {
			apitest.Keys(t, body(t, r), memberKeys...)
			if body(t, r)["sso"] != true {
				t.Errorf("%s", r.Body)
			}
		}},
		{Name: "SSO of an unknown member", Method: "POST", Path: env.org + "/members/nope/sso", Token: admin, Status: 404},
		{Name: "SSO needs admin", Method: "POST", Path: member(reader) + "/sso", Token: env.byRole["create"].Token, Status: 403},
		{Name: "SSO foreign", Method: "POST", Path: member(reader) + "/sso", Token: foreign.Token, Status: 404},
	})

	t.Run("graphql parity", func(t *testing.T) {
		rest := body(t, env.Must(200, "GET", member(reader), admin, nil))
		data := gqlData(t, env.Env, admin, `query($o: ID!, $u: ID!) { member(organizationId: $o, userId: $u) { `+memberFields+` } }`,
			map[string]any{"o": env.Env.Org, "u": reader.ID})
		sameJSON(t, "member", rest, dropNulls(data["member"]))
		q := `mutation($o: ID!, $u: ID!, $in: UpdateMemberInput!) { updateMember(organizationId: $o, userId: $u, input: $in) { ` + memberFields + ` } }`
		data = gqlData(t, env.Env, admin, q, map[string]any{"o": env.Env.Org, "u": reader.ID, "in": map[string]any{"role": "COMMENT"}})
		sameJSON(t, "updated member", body(t, env.Must(200, "GET", member(reader), admin, nil)), dropNulls(data["updateMember"]))
		data = gqlData(t, env.Env, admin, q, map[string]any{"o": env.Env.Org, "u": reader.ID, "in": map[string]any{"role": nil}})
		if data["updateMember"].(map[string]any)["role"] != nil {
			t.Errorf("null role through GraphQL: %v", data)
		}
		gqlRefusal(t, env.Env, admin, q, map[string]any{"o": env.Env.Org, "u": env.Admin.ID, "in": map[string]any{"role": "READ"}}, "CONFLICT", 409)
		gqlRefusal(t, env.Env, env.byRole["create"].Token, q, map[string]any{"o": env.Env.Org, "u": reader.ID, "in": map[string]any{"role": "READ"}}, "FORBIDDEN", 403)
		gqlRefusal(t, env.Env, admin, q, map[string]any{"o": env.Env.Org, "u": "nope", "in": map[string]any{"role": "READ"}}, "NOT_FOUND", 404)
	})
}

func TestMemberRemoval(t *testing.T) {
	env := newMemberEnv(t)
	admin := env.Admin.Token
	member := func(u apitest.User) string { return env.org + "/members/" + u.ID }
	_, foreign := env.NewOrg("Other", "boss@other.test")
	second := env.NewUser("second-admin@acme.test", env.Env.Org, "admin")
	env.Run(t, []apitest.Scenario{
		{Name: "create may not remove others", Method: "DELETE", Path: member(env.byRole["read"]), Token: env.byRole["create"].Token, Status: 403},
		{Name: "foreign", Method: "DELETE", Path: member(env.byRole["read"]), Token: foreign.Token, Status: 404},
		{Name: "no token", Method: "DELETE", Path: member(env.byRole["read"]), Status: 401},
		{Name: "admin removes", Method: "DELETE", Path: member(env.byRole["read"]), Token: admin, Status: 205, Check: func(r apitest.Response) {
			if len(r.Body) != 0 {
				t.Errorf("205 with a body: %s", r.Body)
			}
		}},
		{Name: "gone", Method: "GET", Path: member(env.byRole["read"]), Token: admin, Status: 404},
		{Name: "again: did not exist", Method: "DELETE", Path: member(env.byRole["read"]), Token: admin, Status: 204},
		{Name: "unknown", Method: "DELETE", Path: env.org + "/members/nope", Token: admin, Status: 204},
		{Name: "a guest leaves", Method: "DELETE", Path: member(env.byRole["guest"]), Token: env.byRole["guest"].Token, Status: 205},
		{Name: "the guest no longer sees the organization", Method: "GET", Path: env.org, Token: env.byRole["guest"].Token, Status: 404},
		{Name: "an admin leaves while another stays", Method: "DELETE", Path: member(second), Token: second.Token, Status: 205},
		{Name: "the last admin cannot leave", Method: "DELETE", Path: member(env.Admin), Token: admin, Status: 409},
	})
	t.Run("removal drops team memberships", func(t *testing.T) {
		edit := env.byRole["edit"]
		team := body(t, env.Must(201, "PUT", env.org+"/teams", admin, map[string]any{"title": "Docs", "members": []string{edit.ID}}))
		if team["members"] != 1.0 {
			t.Fatalf("team %v", team)
		}
		env.Must(205, "DELETE", member(edit), admin, nil)
		team = body(t, env.Must(200, "GET", env.org+"/teams/"+team["id"].(string), admin, nil))
		if team["members"] != 0.0 {
			t.Errorf("team keeps a removed member: %v", team)
		}
	})
	t.Run("graphql parity", func(t *testing.T) {
		q := `mutation($o: ID!, $u: ID!) { removeMember(organizationId: $o, userId: $u) { deleted } }`
		data := gqlData(t, env.Env, admin, q, map[string]any{"o": env.Env.Org, "u": env.byRole["comment"].ID})
		if data["removeMember"].(map[string]any)["deleted"] != true {
			t.Errorf("%v", data)
		}
		data = gqlData(t, env.Env, admin, q, map[string]any{"o": env.Env.Org, "u": env.byRole["comment"].ID})
		if data["removeMember"].(map[string]any)["deleted"] != false {
			t.Errorf("%v", data)
		}
		gqlRefusal(t, env.Env, admin, q, map[string]any{"o": env.Env.Org, "u": env.Admin.ID}, "CONFLICT", 409)
		gqlRefusal(t, env.Env, env.byRole["review"].Token, q, map[string]any{"o": env.Env.Org, "u": env.byRole["create"].ID}, "FORBIDDEN", 403)
	})
}

// jwksKeys fetches the server's published Ed25519 keys by id.
func jwksKeys(t *testing.T, env *apitest.Env) map[string]ed25519.PublicKey {
	r := env.Must(200, "GET", "/.well-known/jwks.json", "", nil)
	var set struct {
		Keys []struct{ Kty, Crv, Alg, Kid, X string }
	}
	r.Decode(t, &set)
	out := map[string]ed25519.PublicKey{}
	for _, k := range set.Keys {
		if k.Kty != "OKP" || k.Crv != "Ed25519" || k.Alg != "EdDSA" {
			t.Fatalf("key %+v", k)
		}
		x, err := base64.RawURLEncoding.DecodeString(k.X)
		if err != nil || len(x) != ed25519.PublicKeySize {
			t.Fatalf("key x %q", k.X)
		}
		out[k.Kid] = ed25519.PublicKey(x)
	}
	return out
}

func TestPing(t *testing.T) {
	env := newMemberEnv(t)
	guest := env.byRole["guest"]
	_, foreign := env.NewOrg("Other", "boss@other.test")
	var token string
	env.Run(t, []apitest.Scenario{
		{Name: "guest pings", Method: "POST", Path: env.org + "/ping", Token: guest.Token, Status: 200, Check: func(r apitest.Response) {
			b := body(t, r)
			apitest.Keys(t, b, "serviceVisitorClaims")
			token = b["serviceVisitorClaims"].(string)
		}},
		{Name: "lastSeenAt set", Method: "GET", Path: env.org + "/members/" + guest.ID, Token: guest.Token, Status: 200, Check: func(r apitest.Response) {
			m := body(t, r)
			apitest.Keys(t, m, append(memberKeys, "lastSeenAt")...)
			if m["lastSeenAt"] != env.Clock.Now().UTC().Format("2006-01-02T15:04:05.000Z") {
				t.Errorf("lastSeenAt %v, now %v", m["lastSeenAt"], env.Clock.Now())
			}
		}},
		{Name: "foreign", Method: "POST", Path: env.org + "/ping", Token: foreign.Token, Status: 404},
		{Name: "unknown organization", Method: "POST", Path: "/v1/orgs/nope/ping", Token: guest.Token, Status: 404},
		{Name: "no token", Method: "POST", Path: env.org + "/ping", Status: 401},
	})

	t.Run("the token verifies with the published key", func(t *testing.T) {
		keys := jwksKeys(t, env.Env)
		claims := jwt.MapClaims{}
		parsed, err := jwt.ParseWithClaims(token, claims, func(tok *jwt.Token) (any, error) {
			k, ok := keys[fmt.Sprint(tok.Header["kid"])]
			if !ok {
				return nil, fmt.Errorf("unknown kid %v", tok.Header["kid"])
			}
			return k, nil
		}, jwt.WithValidMethods([]string{"EdDSA"}), jwt.WithAudience(env.Env.Org), jwt.WithIssuer(env.HTTP.URL),
			jwt.WithExpirationRequired(), jwt.WithTimeFunc(env.Clock.Now))
		if err != nil || !parsed.Valid {
			t.Fatalf("verify: %v", err)
		}
		if claims["sub"] != guest.ID {
			t.Errorf("sub %v", claims["sub"])
		}
		c := claims["claims"].(map[string]any)
		if c["email"] != guest.Email || c["role"] != "guest" || c["sso"] != false {
			t.Errorf("claims %v", c)
		}
		// A tampered token does not verify.
		bad := token[:len(token)-4] + "AAAA"
		if _, err := jwt.Parse(bad, func(*jwt.Token) (any, error) { return keys[parsed.Header["kid"].(string)], nil }); err == nil {
			t.Errorf("tampered token verified")
		}
	})

	t.Run("graphql parity", func(t *testing.T) {
		data := gqlData(t, env.Env, guest.Token, `mutation($o: ID!) { pingOrganization(organizationId: $o) { serviceVisitorClaims } }`, map[string]any{"o": env.Env.Org})
		tok := data["pingOrganization"].(map[string]any)["serviceVisitorClaims"].(string)
		if _, err := env.Server.Resolver.Signer.Verify(t.Context(), tok); err != nil {
			t.Errorf("graphql token: %v", err)
		}
		gqlRefusal(t, env.Env, foreign.Token, `mutation($o: ID!) { pingOrganization(organizationId: $o) { serviceVisitorClaims } }`, map[string]any{"o": env.Env.Org}, "NOT_FOUND", 404)
	})
}

// A first signing attempt whose request was cancelled must not disable
// signing for good.
func TestSignerRecoversFromACancelledFirstUse(t *testing.T) {
	env := apitest.New(t)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := env.Server.Resolver.Signer.Sign(ctx, jwt.MapClaims{"sub": "x"}); err == nil {
		t.Fatal("signing with a cancelled context succeeded")
	}
	env.Must(200, "POST", "/v1/orgs/"+env.Org+"/ping", env.Admin.Token, nil)
	env.Must(200, "GET", "/.well-known/jwks.json", "", nil)
}

// The specification: "the user is added as an SSO member". A user who is not
// a member joins with the organization's defaultRole; only an unknown user
// is a 404.
func TestMemberSSOAddsUser(t *testing.T) {
	env := newMemberEnv(t)
	admin := env.Admin.Token
	_, outsider := env.NewOrg("Other", "outsider@other.test")
	_, guestly := env.NewOrg("Third", "guestly@third.test")
	_, viaGraphQL := env.NewOrg("Fourth", "graphql@fourth.test")
	env.Run(t, []apitest.Scenario{
		{Name: "not a member yet", Method: "GET", Path: env.org, Token: outsider.Token, Status: 404},
		{Name: "no defaultRole: joins as a guest", Method: "POST", Path: env.org + "/members/" + guestly.ID + "/sso", Token: admin, Status: 200, Check: func(r apitest.Response) {
			m := body(t, r)
			apitest.Keys(t, m, memberKeys...)
			if m["id"] != guestly.ID || m["role"] != nil || m["sso"] != true {
				t.Errorf("added member %v", m)
			}
		}},
		{Name: "set defaultRole", Method: "PATCH", Path: env.org, Token: admin, Body: map[string]any{"defaultRole": "comment"}, Status: 200},
		{Name: "a create member may not add", Method: "POST", Path: env.org + "/members/" + outsider.ID + "/sso", Token: env.byRole["create"].Token, Status: 403},
		{Name: "admin adds the user", Method: "POST", Path: env.org + "/members/" + outsider.ID + "/sso", Token: admin, Status: 200, Check: func(r apitest.Response) {
			m := body(t, r)
			apitest.Keys(t, m, memberKeys...)
			if m["id"] != outsider.ID || m["role"] != "comment" || m["sso"] != true || m["user"].(map[string]any)["email"] != "outsider@other.test" {
				t.Errorf("added member %v", m)
			}
		}},
		{Name: "listed as a member", Method: "GET", Path: env.org + "/members/" + outsider.ID, Token: admin, Status: 200, Contains: []string{`"sso":true`, `"role":"comment"`}},
		{Name: "the new member reaches the organization", Method: "GET", Path: env.org, Token: outsider.Token, Status: 200},
		{Name: "again: still one membership, role kept", Method: "POST", Path: env.org + "/members/" + outsider.ID + "/sso", Token: admin, Status: 200, Contains: []string{`"role":"comment"`}},
		{Name: "unknown user", Method: "POST", Path: env.org + "/members/nope/sso", Token: admin, Status: 404},
	})
	if n := body(t, env.Must(200, "GET", env.org+"/members?limit=0", admin, nil))["count"]; n != 9.0 {
		t.Errorf("members count %v, want 9 (7 + 2 added)", n)
	}
	t.Run("graphql parity", func(t *testing.T) {
		q := `mutation($o: ID!, $u: ID!) { setMemberSSO(organizationId: $o, userId: $u) { ` + memberFields + ` } }`
		data := gqlData(t, env.Env, admin, q, map[string]any{"o": env.Env.Org, "u": viaGraphQL.ID})
		sameJSON(t, "added member", body(t, env.Must(200, "GET", env.org+"/members/"+viaGraphQL.ID, admin, nil)), dropNulls(data["setMemberSSO"]))
		gqlRefusal(t, env.Env, admin, q, map[string]any{"o": env.Env.Org, "u": "nope"}, "NOT_FOUND", 404)
		gqlRefusal(t, env.Env, env.byRole["create"].Token, q, map[string]any{"o": env.Env.Org, "u": viaGraphQL.ID}, "FORBIDDEN", 403)
	})
}
