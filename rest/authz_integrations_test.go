package rest_test

import (
	"encoding/json"

	lzstring "github.com/daku10/go-lz-string"
)

// Authorization rules and fixtures of the integrations family. The fixture
// integration is private to the fixture organization, so the other
// organization's admin meets 404 on every route that names it; routes that
// name no organization use Min "member" (any member of the owning
// organization may read the integration) or "" (GET /integrations). Space
// installation routes name real spaces of the fixture organization: their
// "admin" is the role on the space, which the fixture spaces inherit from
// the organization role (so the member just below admin sees them: 403).
// Site installation routes name real sites: their "admin" is the
// organization role, as for every site administration.

func init() {
	in := func(f *fixture) string { return "/v1/integrations/fixture-int" }
	inst := func(f *fixture) string { return in(f) + "/installations/" + f.IDs["installation"] }
	fixtureSetups = append(fixtureSetups, func(f *fixture) {
		admin := f.ByRole["admin"]
		f.Env.Must(200, "POST", in(f), admin.Token, publishBody(f.Org, map[string]any{"visibility": "private"}))
		r := f.Env.Must(201, "POST", in(f)+"/installations", admin.Token, map[string]any{"organization": f.Org})
		f.IDs["installation"] = r.JSON()["id"].(string)
		// Spaces inherit the organization role: a member just below admin
		// sees them and gets 403 on space installations.
		f.IDs["installedSpace"] = f.Env.Must(201, "POST", "/v1/orgs/"+f.Org+"/spaces", admin.Token, map[string]any{"title": "Installed"}).JSON()["id"].(string)
		f.IDs["anotherSpace"] = f.Env.Must(201, "POST", "/v1/orgs/"+f.Org+"/spaces", admin.Token, map[string]any{"title": "Another"}).JSON()["id"].(string)
		f.Env.Must(201, "POST", inst(f)+"/spaces", admin.Token, map[string]any{"space": f.IDs["installedSpace"]})
		// Sites are organization content too: a member just below admin
		// reads them and gets 403 on site installations.
		for _, name := range []string{"installedSite", "anotherSite"} {
			f.IDs[name] = f.Env.Must(201, "POST", "/v1/orgs/"+f.Org+"/sites", admin.Token, map[string]any{"title": name}).JSON()["id"].(string)
		}
		f.Env.Must(201, "POST", inst(f)+"/sites", admin.Token, map[string]any{"site": f.IDs["installedSite"]})
		var l struct {
			Items []struct{ ID string } `json:"items"`
		}
		f.Env.Must(200, "GET", in(f)+"/events", admin.Token, nil).Decode(f.Env.T, &l)
		f.IDs["event"] = l.Items[0].ID
	})
	raw, _ := json.Marshal(map[string]any{"componentId": "c", "props": map[string]any{}, "context": map[string]any{"type": "document", "theme": "light", "spaceId": "s", "editable": false}})
	request, _ := lzstring.CompressToEncodedURIComponent(string(raw))
	rules := map[string]authzRule{
		"GET /v1/integrations":                                    {Path: func(f *fixture) string { return "/v1/integrations" }},
		"GET /v1/integrations/{integrationName}":                  {Min: "member", Path: in},
		"POST /v1/integrations/{integrationName}":                 {Min: "admin", Path: in, BodyFor: func(f *fixture) any { return publishBody(f.Org, nil) }},
		"DELETE /v1/integrations/{integrationName}":               {Min: "admin", Path: in},
		"GET /v1/integrations/{integrationName}/events":           {Min: "admin", Path: func(f *fixture) string { return in(f) + "/events" }},
		"GET /v1/integrations/{integrationName}/events/{eventId}": {Min: "admin", Path: func(f *fixture) string { return in(f) + "/events/" + f.IDs["event"] }},
		"PUT /v1/integrations/{integrationName}/dev":              {Min: "admin", Path: func(f *fixture) string { return in(f) + "/dev" }, Body: map[string]any{"tunnelUrl": "https://tunnel.example"}},
		"DELETE /v1/integrations/{integrationName}/dev":           {Min: "admin", Path: func(f *fixture) string { return in(f) + "/dev" }},
		"GET /v1/integrations/{integrationName}/render":           {Min: "member", Path: func(f *fixture) string { return in(f) + "/render?request=" + request }},
		"GET /v1/integrations/{integrationName}/spaces":           {Min: "member", Path: func(f *fixture) string { return in(f) + "/spaces" }},
		"GET /v1/integrations/{integrationName}/sites":            {Min: "member", Path: func(f *fixture) string { return in(f) + "/sites" }},
		"GET /v1/integrations/{integrationName}/installations":    {Min: "member", Path: func(f *fixture) string { return in(f) + "/installations" }},
		"POST /v1/integrations/{integrationName}/installations": {Min: "admin", Path: func(f *fixture) string { return in(f) + "/installations" },
			BodyFor: func(f *fixture) any { return map[string]any{"organization": f.Org} }},
		"GET /v1/integrations/{integrationName}/installations/{installationId}":         {Min: "admin", Path: inst},
		"PATCH /v1/integrations/{integrationName}/installations/{installationId}":       {Min: "admin", Path: inst, Body: map[string]any{"externalIds": []string{"x"}}},
		"DELETE /v1/integrations/{integrationName}/installations/{installationId}":      {Min: "admin", Path: inst},
		"POST /v1/integrations/{integrationName}/installations/{installationId}/tokens": {Min: "admin", Path: func(f *fixture) string { return inst(f) + "/tokens" }},
		"GET /v1/integrations/{integrationName}/installations/{installationId}/spaces":  {Min: "admin", Path: func(f *fixture) string { return inst(f) + "/spaces" }},
		"POST /v1/integrations/{integrationName}/installations/{installationId}/spaces": {Min: "admin", Path: func(f *fixture) string { return inst(f) + "/spaces" },
			BodyFor: func(f *fixture) any { return map[string]any{"space": f.IDs["anotherSpace"]} }},
		"GET /v1/integrations/{integrationName}/installations/{installationId}/spaces/{spaceId}": {Min: "admin", Path: func(f *fixture) string { return inst(f) + "/spaces/" + f.IDs["installedSpace"] }},
		"PATCH /v1/integrations/{integrationName}/installations/{installationId}/spaces/{spaceId}": {Min: "admin", Path: func(f *fixture) string { return inst(f) + "/spaces/" + f.IDs["installedSpace"] },
			Body: map[string]any{"externalIds": []string{"x"}}},
		"DELETE /v1/integrations/{integrationName}/installations/{installationId}/spaces/{spaceId}": {Min: "admin", Path: func(f *fixture) string { return inst(f) + "/spaces/" + f.IDs["installedSpace"] }},
		"GET /v1/integrations/{integrationName}/installations/{installationId}/sites":               {Min: "admin", Path: func(f *fixture) string { return inst(f) + "/sites" }},
		"POST /v1/integrations/{integrationName}/installations/{installationId}/sites": {Min: "admin", Path: func(f *fixture) string { return inst(f) + "/sites" },
			BodyFor: func(f *fixture) any { return map[string]any{"site": f.IDs["anotherSite"]} }},
		"GET /v1/integrations/{integrationName}/installations/{installationId}/sites/{siteId}": {Min: "admin", Path: func(f *fixture) string { return inst(f) + "/sites/" + f.IDs["installedSite"] }},
		"PATCH /v1/integrations/{integrationName}/installations/{installationId}/sites/{siteId}": {Min: "admin", Path: func(f *fixture) string { return inst(f) + "/sites/" + f.IDs["installedSite"] },
			Body: map[string]any{"externalIds": []string{"x"}}},
		"DELETE /v1/integrations/{integrationName}/installations/{installationId}/sites/{siteId}": {Min: "admin", Path: func(f *fixture) string { return inst(f) + "/sites/" + f.IDs["installedSite"] }},
		"GET /v1/orgs/{organizationId}/installations":                                             {Min: "admin", Path: func(f *fixture) string { return "/v1/orgs/" + f.Org + "/installations" }},
	}
	for k, v := range rules {
		authzRules[k] = v
	}
}
