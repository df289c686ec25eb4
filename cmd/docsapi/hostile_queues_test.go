package main

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"docsapi/storage"
)

// Hostile input to what integrations and webhooks store: a
// script of 9 MiB, an installation configuration 9,000 (and 90,000)
// levels deep or of 80,000 keys, and a webhook over the organization's
// cap. Each is refused naming its limit, before it is stored or walked.
func init() {
	const integration = "hostile-conf"
	installation := func(s *hostileServer) string {
		return "/v1/integrations/" + integration + "/installations/" + s.Values["installation"]
	}
	deep := func(levels int) []byte {
		return []byte(`{"configuration":` + strings.Repeat(`{"a":`, levels) + `1` + strings.Repeat(`}`, levels) + `}`)
	}
	hostileCases = append(hostileCases,
		hostileCase{
			name: "integration script of 9 MiB",
			request: func(s *hostileServer) *http.Request {
				body, _ := json.Marshal(map[string]any{"organization": s.Org, "title": "Big script", "description": "d",
					"scopes": []string{}, "script": strings.Repeat("x", 9<<20)})
				return s.request("POST", "/v1/integrations/hostile-script", s.Admin, "application/json", body)
			},
			status: 400,
		},
		hostileCase{
			name: "installation configuration 9,000 levels deep",
			setup: func(t *testing.T, s *hostileServer) {
				s.must(t, 200, "POST", "/v1/integrations/"+integration, s.Admin, map[string]any{"organization": s.Org, "title": "Conf",
					"description": "d", "scopes": []string{}, "script": "export default {}"})
				s.Values["installation"] = s.must(t, 201, "POST", "/v1/integrations/"+integration+"/installations", s.Admin,
					map[string]any{"organization": s.Org})["id"].(string)
			},
			request: func(s *hostileServer) *http.Request {
				return s.request("PATCH", installation(s), s.Admin, "application/json", deep(9000))
			},
			status: 400,
		},
		hostileCase{
			name: "installation configuration 90,000 levels deep",
			request: func(s *hostileServer) *http.Request {
				return s.request("PATCH", installation(s), s.Admin, "application/json", deep(90_000))
			},
			status: 400,
		},
		hostileCase{
			name: "installation configuration of 80,000 keys",
			request: func(s *hostileServer) *http.Request {
				var b strings.Builder
				b.WriteString(`{"configuration":{`)
				for i := range 80_000 {
					if i > 0 {
						b.WriteByte(',')
					}
					b.WriteString(`"k` + strconv.Itoa(i) + `":1`)
				}
				b.WriteString(`}}`)
				return s.request("PATCH", installation(s), s.Admin, "application/json", []byte(b.String()))
			},
			status: 400,
		},
		hostileCase{
			name: "webhook over the organization's cap",
			setup: func(t *testing.T, s *hostileServer) {
				// Inactive, and on an event no other case makes: the
				// endpoints count toward the cap and are never sent to.
				for range storage.DefaultWebhookLimits.Endpoints {
					s.must(t, 201, "POST", "/v1/orgs/"+s.Org+"/webhooks", s.Admin, map[string]any{"url": "https://hooks.example.test/in",
						"events": []string{"collection.deleted"}, "active": false})
				}
			},
			request: func(s *hostileServer) *http.Request {
				body, _ := json.Marshal(map[string]any{"url": "https://hooks.example.test/in", "events": []string{"collection.deleted"}})
				return s.request("POST", "/v1/orgs/"+s.Org+"/webhooks", s.Admin, "application/json", body)
			},
			status: 422,
		},
	)
}
