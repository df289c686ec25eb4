package rest_test

// Authorization rules and fixtures of the content routes: reads need the
// space's view permission ("member" rules: a guest without a grant cannot
// see the space and gets 404, like the other organization's admin), changes
// need edit.

func init() {
	space := func(f *fixture) string { return "/v1/spaces/" + f.IDs["contentSpace"] }
	fixtureSetups = append(fixtureSetups, func(f *fixture) {
		id := f.Env.Must(201, "POST", "/v1/orgs/"+f.Org+"/spaces", f.ByRole["admin"].Token, map[string]any{"title": "Content"}).JSON()["id"].(string)
		f.IDs["contentSpace"] = id
		f.Env.Must(201, "POST", "/v1/spaces/"+id+"/content/template", f.ByRole["admin"].Token, map[string]any{"id": "getting-started"})
		rev := f.Env.Must(200, "GET", "/v1/spaces/"+id+"/content", f.ByRole["admin"].Token, nil).JSON()
		f.IDs["revision"] = rev["id"].(string)
		page := f.Env.Must(200, "GET", "/v1/spaces/"+id+"/content/path/introduction", f.ByRole["admin"].Token, nil).JSON()
		f.IDs["page"] = page["id"].(string)
		_, errs := f.Env.GraphQL(f.ByRole["admin"].Token, `mutation($t: ContentTarget!) { uploadFile(target: $t, input: {name: "a.txt", data: "aGVsbG8="}) { revision } }`,
			map[string]any{"t": map[string]any{"space": id}})
		if len(errs) > 0 {
			panic(errs[0].Message)
		}
		files := f.Env.Must(200, "GET", "/v1/spaces/"+id+"/content/files", f.ByRole["admin"].Token, nil).JSON()
		f.IDs["file"] = files["items"].([]any)[0].(map[string]any)["id"].(string)
	})
	read := func(p func(f *fixture) string) authzRule { return authzRule{Min: "member", Path: p} }
	at := func(suffix string) func(f *fixture) string {
		return func(f *fixture) string { return space(f) + suffix }
	}
	rev := func(suffix string) func(f *fixture) string {
		return func(f *fixture) string { return space(f) + "/revisions/" + f.IDs["revision"] + suffix }
	}
	page := func(suffix string) func(f *fixture) string {
		return func(f *fixture) string { return space(f) + "/content/page/" + f.IDs["page"] + suffix }
	}
	file := func(suffix string) func(f *fixture) string {
		return func(f *fixture) string { return space(f) + "/content/files/" + f.IDs["file"] + suffix }
	}
	rules := map[string]authzRule{
		"GET /v1/spaces/{spaceId}/content":                               read(at("/content")),
		"GET /v1/spaces/{spaceId}/content/pages":                         read(at("/content/pages")),
		"GET /v1/spaces/{spaceId}/content/page/{pageId}":                 read(page("")),
		"GET /v1/spaces/{spaceId}/content/page/{pageId}/links":           read(page("/links")),
		"GET /v1/spaces/{spaceId}/content/page/{pageId}/backlinks":       read(page("/backlinks")),
		"GET /v1/spaces/{spaceId}/content/path/*":                        read(at("/content/path/introduction")),
		"GET /v1/spaces/{spaceId}/content/files":                         read(at("/content/files")),
		"GET /v1/spaces/{spaceId}/content/files/{fileId}":                read(file("")),
		"GET /v1/spaces/{spaceId}/content/files/{fileId}/backlinks":      read(file("/backlinks")),
		"GET /v1/spaces/{spaceId}/revisions/{revisionId}":                read(rev("")),
		"GET /v1/spaces/{spaceId}/revisions/{revisionId}/pages":          read(rev("/pages")),
		"GET /v1/spaces/{spaceId}/revisions/{revisionId}/page/{pageId}":  {Min: "member", Path: func(f *fixture) string { return rev("/page/")(f) + f.IDs["page"] }},
		"GET /v1/spaces/{spaceId}/revisions/{revisionId}/path/*":         read(rev("/path/introduction")),
		"GET /v1/spaces/{spaceId}/revisions/{revisionId}/files":          read(rev("/files")),
		"GET /v1/spaces/{spaceId}/revisions/{revisionId}/files/{fileId}": {Min: "member", Path: func(f *fixture) string { return rev("/files/")(f) + f.IDs["file"] }},
		"GET /v1/spaces/{spaceId}/links":                                 read(at("/links")),
		"GET /v1/spaces/{spaceId}/search":                                read(at("/search?query=install")),
		"GET /v1/orgs/{organizationId}/search":                           {Min: "member", Path: func(f *fixture) string { return "/v1/orgs/" + f.Org + "/search?query=install" }},
		// Changes: a valid body whose fetch would fail, so authorization answers first.
		"POST /v1/spaces/{spaceId}/content/import": {Min: "edit", Path: at("/content/import"),
			Body: map[string]any{"url": "http://127.0.0.1:1/none.md", "source": "markdown"}},
		"POST /v1/spaces/{spaceId}/content/page/{pageId}/import": {Min: "edit", Path: page("/import"),
			Body: map[string]any{"url": "http://127.0.0.1:1/none.md", "source": "markdown"}},
		"POST /v1/spaces/{spaceId}/content/template": {Min: "edit", Path: at("/content/template"), Body: map[string]any{"id": "blank"}},
	}
	for k, v := range rules {
		authzRules[k] = v
	}
}
