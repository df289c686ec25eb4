package rest_test

// Authorization rules and fixtures of change requests, their content and
// comments at both levels: reads need the space's view permission
// ("member": a guest without a grant gets 404 like the other organization),
// changes need edit, merging needs review (the merge permission), posting,
// replying, reacting and resolving need comment, and deleting another
// member's comment needs admin.

func init() {
	space := func(f *fixture) string { return "/v1/spaces/" + f.IDs["crSpace"] }
	cr := func(f *fixture) string { return space(f) + "/change-requests/" + f.IDs["cr"] }
	fixtureSetups = append(fixtureSetups, func(f *fixture) {
		admin := f.ByRole["admin"].Token
		id := f.Env.Must(201, "POST", "/v1/orgs/"+f.Org+"/spaces", admin, map[string]any{"title": "Changes"}).JSON()["id"].(string)
		f.IDs["crSpace"] = id
		f.Env.Must(201, "POST", "/v1/spaces/"+id+"/content/template", admin, map[string]any{"id": "getting-started"})
		f.IDs["crPage"] = f.Env.Must(200, "GET", "/v1/spaces/"+id+"/content/path/introduction", admin, nil).JSON()["id"].(string)
		f.IDs["cr"] = f.Env.Must(201, "POST", "/v1/spaces/"+id+"/change-requests", admin, map[string]any{"subject": "Fixture"}).JSON()["id"].(string)
		_, errs := f.Env.GraphQL(admin, `mutation($t: ContentTarget!) { uploadFile(target: $t, input: {name: "a.txt", data: "aGVsbG8="}) { revision } }`,
			map[string]any{"t": map[string]any{"space": id, "changeRequest": f.IDs["cr"]}})
		if len(errs) > 0 {
			panic(errs[0].Message)
		}
		files := f.Env.Must(200, "GET", cr(f)+"/content/files", admin, nil).JSON()
		f.IDs["crFile"] = files["items"].([]any)[0].(map[string]any)["id"].(string)
		for _, level := range []struct{ key, base string }{{"space", space(f)}, {"cr", cr(f)}} {
			c := f.Env.Must(200, "POST", level.base+"/comments", admin, map[string]any{"body": map[string]any{"markdown": "fixture"}}).JSON()["id"].(string)
			f.IDs[level.key+"Comment"] = c
			f.IDs[level.key+"Reply"] = f.Env.Must(200, "POST", level.base+"/comments/"+c+"/replies", admin, map[string]any{"body": map[string]any{"markdown": "fixture"}}).JSON()["id"].(string)
		}
	})
	at := func(base func(f *fixture) string, suffix string) func(f *fixture) string {
		return func(f *fixture) string { return base(f) + suffix }
	}
	read := func(p func(f *fixture) string) authzRule { return authzRule{Min: "member", Path: p} }
	page := func(suffix string) func(f *fixture) string {
		return func(f *fixture) string { return cr(f) + "/content/page/" + f.IDs["crPage"] + suffix }
	}
	file := func(suffix string) func(f *fixture) string {
		return func(f *fixture) string { return cr(f) + "/content/files/" + f.IDs["crFile"] + suffix }
	}
	importBody := map[string]any{"url": "http://127.0.0.1:1/none.md", "source": "markdown"}
	const crp = "/v1/spaces/{spaceId}/change-requests/{changeRequestId}"
	rules := map[string]authzRule{
		"GET /v1/spaces/{spaceId}/change-requests":  read(at(space, "/change-requests")),
		"POST /v1/spaces/{spaceId}/change-requests": {Min: "edit", Path: at(space, "/change-requests"), Body: map[string]any{"subject": "x"}},
		"GET " + crp:                                       read(cr),
		"PATCH " + crp:                                     {Min: "edit", Path: cr, Body: map[string]any{"subject": "x"}},
		"POST " + crp + "/merge":                           {Min: "review", Path: at(cr, "/merge")},
		"POST " + crp + "/update":                          {Min: "edit", Path: at(cr, "/update")},
		"GET " + crp + "/pdf":                              read(at(cr, "/pdf")),
		"GET /v1/spaces/{spaceId}/pdf":                     read(at(space, "/pdf")),
		"GET " + crp + "/content":                          read(at(cr, "/content")),
		"GET " + crp + "/content/pages":                    read(at(cr, "/content/pages")),
		"GET " + crp + "/content/path/*":                   read(at(cr, "/content/path/introduction")),
		"GET " + crp + "/content/page/{pageId}":            read(page("")),
		"GET " + crp + "/content/page/{pageId}/links":      read(page("/links")),
		"GET " + crp + "/content/page/{pageId}/backlinks":  read(page("/backlinks")),
		"GET " + crp + "/content/files":                    read(at(cr, "/content/files")),
		"GET " + crp + "/content/files/{fileId}":           read(file("")),
		"GET " + crp + "/content/files/{fileId}/backlinks": read(file("/backlinks")),
		"POST " + crp + "/content/import":                  {Min: "edit", Path: at(cr, "/content/import"), Body: importBody},
		"POST " + crp + "/content/page/{pageId}/import":    {Min: "edit", Path: page("/import"), Body: importBody},
	}
	for _, level := range []struct{ key, pattern string }{{"space", "/v1/spaces/{spaceId}"}, {"cr", crp}} {
		key := level.key
		base := space
		if key == "cr" {
			base = cr
		}
		comment := func(suffix string) func(f *fixture) string {
			return func(f *fixture) string { return base(f) + "/comments/" + f.IDs[key+"Comment"] + suffix }
		}
		reply := func(f *fixture) string { return comment("/replies/" + f.IDs[key+"Reply"])(f) }
		body := map[string]any{"body": map[string]any{"markdown": "x"}}
		react := map[string]any{"addedReactions": []string{"👍"}}
		p := level.pattern
		rules["GET "+p+"/comments"] = read(at(base, "/comments"))
		rules["POST "+p+"/comments"] = authzRule{Min: "comment", Path: at(base, "/comments"), Body: body}
		rules["GET "+p+"/comments/{commentId}"] = read(comment(""))
		rules["PUT "+p+"/comments/{commentId}"] = authzRule{Min: "comment", Path: comment(""), Body: react}
		rules["DELETE "+p+"/comments/{commentId}"] = authzRule{Min: "admin", Path: comment("")}
		rules["GET "+p+"/comments/{commentId}/replies"] = read(comment("/replies"))
		rules["POST "+p+"/comments/{commentId}/replies"] = authzRule{Min: "comment", Path: comment("/replies"), Body: body}
		rules["GET "+p+"/comments/{commentId}/replies/{commentReplyId}"] = read(reply)
		rules["PUT "+p+"/comments/{commentId}/replies/{commentReplyId}"] = authzRule{Min: "comment", Path: reply, Body: react}
		rules["DELETE "+p+"/comments/{commentId}/replies/{commentReplyId}"] = authzRule{Min: "admin", Path: reply}
		rules["GET "+p+"/commenters"] = read(at(base, "/commenters"))
	}
	for k, v := range rules {
		authzRules[k] = v
	}
}
