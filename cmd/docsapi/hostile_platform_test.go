package main

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// Hostile inputs of the platform: characters that disguise names, cursors
// of another list, JSON nested far deeper than any body needs.
func init() {
	createSpace := func(title string) func(s *hostileServer) *http.Request {
		return func(s *hostileServer) *http.Request {
			body, _ := json.Marshal(map[string]any{"title": title})
			return s.request("POST", "/v1/orgs/"+s.Org+"/spaces", s.Admin, "application/json", body)
		}
	}
	deep := func(n int) []byte { return []byte(`{"title":` + strings.Repeat("[", n) + strings.Repeat("]", n) + `}`) }
	hostileCases = append(hostileCases,
		hostileCase{name: "NUL in a title", request: createSpace("abc\x00def"), status: 400},
		hostileCase{name: "bidi override in a title", request: createSpace("abc\u202Egnp.exe"), status: 400},
		hostileCase{name: "bidi isolate in a title", request: createSpace("abc\u2067gnp.exe"), status: 400},
		hostileCase{name: "C1 control in a title", request: createSpace("abc\u0085def"), status: 400},
		hostileCase{
			name: "bidi override in a token label",
			request: func(s *hostileServer) *http.Request {
				return s.request("POST", "/v1/user/tokens", s.Admin, "application/json", []byte(`{"label":"ci\u202Etoken"}`))
			},
			status: 400,
		},
		hostileCase{
			name: "cursor of the spaces list given to the audit log",
			setup: func(t *testing.T, s *hostileServer) {
				s.must(t, 201, "POST", "/v1/orgs/"+s.Org+"/spaces", s.Admin, map[string]any{"title": "Second"})
				next, _ := s.must(t, 200, "GET", "/v1/orgs/"+s.Org+"/spaces?limit=1", s.Admin, nil)["next"].(map[string]any)
				if next == nil {
					t.Fatal("no next page of spaces")
				}
				s.Values["spacesCursor"] = next["page"].(string)
			},
			request: func(s *hostileServer) *http.Request {
				return s.request("GET", "/v1/orgs/"+s.Org+"/audit-log?page="+url.QueryEscape(s.Values["spacesCursor"]), s.Admin, "", nil)
			},
			status: 400,
		},
		hostileCase{
			name: "cursor of the spaces list given to search",
			request: func(s *hostileServer) *http.Request {
				return s.request("GET", "/v1/orgs/"+s.Org+"/search?query=a&page="+url.QueryEscape(s.Values["spacesCursor"]), s.Admin, "", nil)
			},
			status: 400,
		},
		hostileCase{
			name: "JSON body nested 100k deep",
			request: func(s *hostileServer) *http.Request {
				return s.request("POST", "/v1/orgs/"+s.Org+"/spaces", s.Admin, "application/json", deep(100_000))
			},
			status: 400,
		},
		hostileCase{
			name: "JSON body nested 1M deep",
			request: func(s *hostileServer) *http.Request {
				return s.request("POST", "/v1/orgs/"+s.Org+"/spaces", s.Admin, "application/json", deep(1_000_000))
			},
			status: 400,
		},
		hostileCase{
			name: "GraphQL variables nested 1M deep",
			request: func(s *hostileServer) *http.Request {
				body := `{"query":"query($v: JSON) { __typename }","variables":{"v":` + strings.Repeat("[", 1_000_000) + strings.Repeat("]", 1_000_000) + `}}`
				return s.request("POST", "/graphql", s.Admin, "application/json", []byte(body))
			},
		},
	)
}
