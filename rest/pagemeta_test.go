package rest_test

import (
	"encoding/base64"
	"testing"

	"docsapi/apitest"
)

// Page layout, cover and variables set through the GraphQL page mutations
// and read back through REST.
func TestPageLayoutCoverVariables(t *testing.T) {
	env := apitest.New(t)
	space := newSpace(t, env, env.Org)
	target := map[string]any{"space": space}
	data, errs := env.GraphQL(env.Admin.Token, `mutation($t: ContentTarget!) { uploadFile(target: $t, input: {name: "cover.png", data: "`+base64.StdEncoding.EncodeToString(pngBytes(4, 3))+`"}) { file { id } } }`, map[string]any{"t": target})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	file := data["uploadFile"].(map[string]any)["file"].(map[string]any)["id"].(string)

	data, errs = env.GraphQL(env.Admin.Token, `mutation($t: ContentTarget!, $l: JSONObject, $c: JSONObject, $v: JSONObject) {
		createPage(target: $t, input: {title: "Guide", markdown: "hello", layout: $l, cover: $c, variables: $v}) { page { id } } }`,
		map[string]any{"t": target, "l": map[string]any{"width": "wide", "outline": false},
			"c": map[string]any{"ref": map[string]any{"kind": "file", "file": file}, "yPos": 40},
			"v": map[string]any{"product": "Acme", "beta": true, "version": 3}})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	page := data["createPage"].(map[string]any)["page"].(map[string]any)["id"].(string)
	read := func() map[string]any {
		return env.Must(200, "GET", "/v1/spaces/"+space+"/content/page/"+page, env.Admin.Token, nil).JSON()
	}
	got := read()
	layout := got["layout"].(map[string]any)
	if layout["width"] != "wide" || layout["outline"] != false || layout["title"] != true || layout["coverSize"] != "hero" {
		t.Errorf("layout: %v", layout)
	}
	if c := got["cover"].(map[string]any); c["yPos"] != float64(40) || c["ref"].(map[string]any)["file"] != file {
		t.Errorf("cover: %v", c)
	}
	if v := got["variables"].(map[string]any); v["product"] != "Acme" || v["beta"] != true || v["version"] != float64(3) {
		t.Errorf("variables: %v", v)
	}

	// A partial layout merges; an empty cover removes it; variables replace.
	_, errs = env.GraphQL(env.Admin.Token, `mutation($t: ContentTarget!, $l: JSONObject, $c: JSONObject, $v: JSONObject) {
		updatePage(target: $t, pageId: "`+page+`", input: {layout: $l, cover: $c, variables: $v}) { revision } }`,
		map[string]any{"t": target, "l": map[string]any{"coverSize": "full"}, "c": map[string]any{}, "v": map[string]any{"only": "one"}})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	got = read()
	if l := got["layout"].(map[string]any); l["width"] != "wide" || l["coverSize"] != "full" {
		t.Errorf("merged layout: %v", l)
	}
	if _, ok := got["cover"]; ok && got["cover"] != nil {
		t.Errorf("cover not removed: %v", got["cover"])
	}
	if v := got["variables"].(map[string]any); len(v) != 1 || v["only"] != "one" {
		t.Errorf("replaced variables: %v", v)
	}

	bad := []struct {
		name, field string
		input       map[string]any
	}{
		{"unknown width", "layout.width", map[string]any{"layout": map[string]any{"width": "huge"}}},
		{"unknown layout key", "layout.banner", map[string]any{"layout": map[string]any{"banner": true}}},
		{"flag not a boolean", "layout.outline", map[string]any{"layout": map[string]any{"outline": "no"}}},
		{"cover of a missing file", "cover.ref.file", map[string]any{"cover": map[string]any{"ref": map[string]any{"kind": "file", "file": "nope"}}}},
		{"cover of a bad kind", "cover.ref.kind", map[string]any{"cover": map[string]any{"ref": map[string]any{"kind": "page"}}}},
		{"cover yPos not a number", "cover.yPos", map[string]any{"cover": map[string]any{"yPos": "top"}}},
		{"variable value an object", "variables.x", map[string]any{"variables": map[string]any{"x": map[string]any{}}}},
		{"variable name", "variables.1bad", map[string]any{"variables": map[string]any{"1bad": "v"}}},
	}
	for _, b := range bad {
		t.Run(b.name, func(t *testing.T) {
			_, errs := env.GraphQL(env.Admin.Token, `mutation($t: ContentTarget!, $in: UpdatePageInput!) { updatePage(target: $t, pageId: "`+page+`", input: $in) { revision } }`,
				map[string]any{"t": target, "in": b.input})
			if len(errs) != 1 || errs[0].Code() != "BAD_REQUEST" || errs[0].Extensions["field"] != b.field {
				t.Errorf("want BAD_REQUEST on %s, got %+v", b.field, errs)
			}
		})
	}
	// Groups have no layout.
	_, errs = env.GraphQL(env.Admin.Token, `mutation($t: ContentTarget!) { createPage(target: $t, input: {title: "G", type: GROUP, layout: {width: "wide"}}) { revision } }`, map[string]any{"t": target})
	if len(errs) != 1 || errs[0].Extensions["field"] != "layout" {
		t.Errorf("group layout: %+v", errs)
	}
	// Readers cannot change pages.
	reader := env.NewUser("reader@acme.test", env.Org, "read")
	_, errs = env.GraphQL(reader.Token, `mutation($t: ContentTarget!) { updatePage(target: $t, pageId: "`+page+`", input: {layout: {width: "default"}}) { revision } }`, map[string]any{"t": target})
	if len(errs) != 1 || errs[0].Code() != "FORBIDDEN" {
		t.Errorf("reader: %+v", errs)
	}
}
