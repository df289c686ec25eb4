package rest_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"docsapi/apitest"
	"docsapi/bench/seed"
	"docsapi/graph/model"
	"docsapi/rest"
)

// discard is a ResponseWriter that keeps nothing.
type discard struct{ h http.Header }

func (d *discard) Header() http.Header         { return d.h }
func (d *discard) Write(p []byte) (int, error) { return len(p), nil }
func (d *discard) WriteHeader(int)             {}

// BenchmarkEncodeMemberPage is the JSON encoding of a 100-member page.
func BenchmarkEncodeMemberPage(b *testing.B) {
	role := model.Role("read")
	seen := "2024-05-01T10:00:00.000Z"
	page := model.MemberList{Count: 10_000, Next: &model.Next{Page: "eyJuIjoxNzE0NTU2ODAwMDAwLCJpIjoiYWJjZGVmZ2hpamtsbW5vcHFyc3QifQ"}}
	for i := range 100 {
		id := fmt.Sprintf("u%019d", i)
		page.Items = append(page.Items, &model.Member{
			Object: "member", ID: id, Role: &role, JoinedAt: "2024-05-01T10:00:00.000Z", LastSeenAt: &seen, Teams: 1,
			User: &model.User{Object: "user", ID: id, DisplayName: fmt.Sprintf("Member %05d", i), Email: fmt.Sprintf("member%05d@example.com", i),
				Urls: model.UserURLs{Location: "http://127.0.0.1:8080/v1/users/" + id}},
		})
	}
	w := &discard{h: http.Header{}}
	b.ReportAllocs()
	for b.Loop() {
		rest.WriteJSON(w, http.StatusOK, &page)
	}
}

// benchEnv is a server over an organization of members members, and the
// admin's Authorization header.
func benchEnv(b *testing.B, members int) (*apitest.Env, string) {
	env := apitest.New(b)
	e, err := seed.Bootstrap(context.Background(), env.DB, "Bench")
	if err != nil {
		b.Fatal(err)
	}
	if err := seed.Members(context.Background(), e, members); err != nil {
		b.Fatal(err)
	}
	if err := seed.Teams(context.Background(), e, 50); err != nil {
		b.Fatal(err)
	}
	env.Org = e.Org
	return env, "Bearer " + e.Token
}

// serve runs requests through the whole handler (middleware, auth, route,
// resolver, storage, JSON) without the network, in parallel.
func serve(b *testing.B, env *apitest.Env, authz, method, path, body string, want int) {
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			var req *http.Request
			if body != "" {
				req = httptest.NewRequest(method, path, strings.NewReader(body))
				req.Header.Set("Content-Type", "application/json")
			} else {
				req = httptest.NewRequest(method, path, nil)
			}
			req.Header.Set("Authorization", authz)
			w := httptest.NewRecorder()
			env.Server.ServeHTTP(w, req)
			if w.Code != want {
				b.Fatalf("%s %s: %d %s", method, path, w.Code, w.Body)
			}
		}
	})
}

func BenchmarkGetOrganization(b *testing.B) {
	env, authz := benchEnv(b, 100)
	serve(b, env, authz, "GET", "/v1/orgs/"+env.Org, "", http.StatusOK)
}

// BenchmarkMembersPage is GET members?limit=100 over 10,000 members.
func BenchmarkMembersPage(b *testing.B) {
	env, authz := benchEnv(b, 10_000)
	serve(b, env, authz, "GET", "/v1/orgs/"+env.Org+"/members?limit=100", "", http.StatusOK)
}

func BenchmarkCreateTeam(b *testing.B) {
	env, authz := benchEnv(b, 100)
	serve(b, env, authz, "PUT", "/v1/orgs/"+env.Org+"/teams", `{"title":"bench"}`, http.StatusCreated)
}

// BenchmarkPatchSpace renames a space; BenchmarkPatchSpaceIfMatch does the
// same with If-Match: * (the ETag is compared before the write and again
// inside its transaction, holding the write lock: two more renders of the
// space).
func BenchmarkPatchSpace(b *testing.B) { benchPatchSpace(b, "") }

func BenchmarkPatchSpaceIfMatch(b *testing.B) { benchPatchSpace(b, "*") }

func benchPatchSpace(b *testing.B, ifMatch string) {
	env := apitest.New(b)
	space := env.Must(201, "POST", "/v1/orgs/"+env.Org+"/spaces", env.Admin.Token, map[string]any{"title": "Docs"}).JSON()["id"].(string)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		req := httptest.NewRequest("PATCH", "/v1/spaces/"+space, strings.NewReader(fmt.Sprintf(`{"title":"Docs %d"}`, i)))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+env.Admin.Token)
		if ifMatch != "" {
			req.Header.Set("If-Match", ifMatch)
		}
		w := httptest.NewRecorder()
		env.Server.ServeHTTP(w, req)
		if w.Code != http.StatusOK {
			b.Fatalf("PATCH: %d %s", w.Code, w.Body)
		}
	}
}
