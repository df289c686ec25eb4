package rest_test

// Authorization rules and fixture of reusable contents and documents: reads,
// with the space's view permission ("member": a guest without a grant gets
// 404 like the other organization).

func init() {
	space := func(f *fixture) string { return "/v1/spaces/" + f.IDs["reusableSpace"] }
	fixtureSetups = append(fixtureSetups, func(f *fixture) {
		admin := f.ByRole["admin"].Token
		id := f.Env.Must(201, "POST", "/v1/orgs/"+f.Org+"/spaces", admin, map[string]any{"title": "Reusable"}).JSON()["id"].(string)
		f.IDs["reusableSpace"] = id
		f.Env.Must(201, "POST", "/v1/spaces/"+id+"/content/template", admin, map[string]any{"id": "knowledge-base"})
		rev := f.Env.Must(200, "GET", "/v1/spaces/"+id+"/content", admin, nil).JSON()
		rc := rev["reusableContents"].([]any)[0].(map[string]any)
		f.IDs["reusableRevision"], f.IDs["reusable"], f.IDs["document"] = rev["id"].(string), rc["id"].(string), rc["document"].(string)
		f.IDs["reusableCR"] = f.Env.Must(201, "POST", "/v1/spaces/"+id+"/change-requests", admin, map[string]any{"subject": "Fixture"}).JSON()["id"].(string)
	})
	read := func(p func(f *fixture) string) authzRule { return authzRule{Min: "member", Path: p} }
	rules := map[string]authzRule{
		"GET /v1/spaces/{spaceId}/content/reusable-contents/{reusableContentId}": read(func(f *fixture) string {
			return space(f) + "/content/reusable-contents/" + f.IDs["reusable"]
		}),
		"GET /v1/spaces/{spaceId}/change-requests/{changeRequestId}/content/reusable-contents/{reusableContentId}": read(func(f *fixture) string {
			return space(f) + "/change-requests/" + f.IDs["reusableCR"] + "/content/reusable-contents/" + f.IDs["reusable"]
		}),
		"GET /v1/spaces/{spaceId}/revisions/{revisionId}/reusable-contents/{reusableContentId}": read(func(f *fixture) string {
			return space(f) + "/revisions/" + f.IDs["reusableRevision"] + "/reusable-contents/" + f.IDs["reusable"]
		}),
		"GET /v1/spaces/{spaceId}/documents/{documentId}": read(func(f *fixture) string { return space(f) + "/documents/" + f.IDs["document"] }),
	}
	for k, v := range rules {
		authzRules[k] = v
	}
}
