package rest_test

import (
	"strings"
	"testing"

	"docsapi/apitest"
)

var glossaryKeys = []string{"object", "id", "translations", "createdAt", "updatedAt", "urls"}

func glossaryOps(ops ...map[string]any) map[string]any {
	list := make([]any, len(ops))
	for i, o := range ops {
		list[i] = o
	}
	return map[string]any{"operations": list}
}

func insertOp(tr map[string]any) map[string]any {
	return map[string]any{"type": "insert", "translations": tr}
}

func TestGlossaryCRUD(t *testing.T) {
	env := apitest.New(t)
	list := "/v1/orgs/" + env.Org + "/translations-glossary"
	reader := env.NewUser("reader@acme.test", env.Org, "read")
	creator := env.NewUser("creator@acme.test", env.Org, "create")
	reviewer := env.NewUser("reviewer@acme.test", env.Org, "review")
	otherOrg, foreign := env.NewOrg("Other", "admin@other.test")
	long := strings.Repeat("x", 256)

	env.Run(t, []apitest.Scenario{
		{Name: "insert two", Method: "PUT", Path: list, Token: creator.Token, Status: 204,
			Body: glossaryOps(insertOp(map[string]any{"en": "Space", "fr": "Espace"}), insertOp(map[string]any{"en": "Docs", "de": "Doku"}))},
		{Name: "operations missing", Method: "PUT", Path: list, Token: env.Admin.Token, Status: 400, Body: map[string]any{}, Contains: names("operations")},
		{Name: "type unknown", Method: "PUT", Path: list, Token: env.Admin.Token, Status: 400,
			Body: glossaryOps(map[string]any{"type": "upsert", "translations": map[string]any{"en": "A"}}), Contains: names("operations[0].type")},
		{Name: "translations missing", Method: "PUT", Path: list, Token: env.Admin.Token, Status: 400,
			Body: glossaryOps(map[string]any{"type": "insert"}), Contains: names("operations[0].translations")},
		{Name: "language unknown", Method: "PUT", Path: list, Token: env.Admin.Token, Status: 400,
			Body: glossaryOps(insertOp(map[string]any{"xx": "A"})), Contains: names("operations[0].translations.xx")},
		{Name: "term too long", Method: "PUT", Path: list, Token: env.Admin.Token, Status: 400,
			Body: glossaryOps(insertOp(map[string]any{"en": "ok"}), insertOp(map[string]any{"en": long})), Contains: names("operations[1].translations.en")},
		{Name: "term empty", Method: "PUT", Path: list, Token: env.Admin.Token, Status: 400,
			Body: glossaryOps(insertOp(map[string]any{"en": ""})), Contains: names("operations[0].translations.en")},
		{Name: "term on two lines", Method: "PUT", Path: list, Token: env.Admin.Token, Status: 400,
			Body: glossaryOps(insertOp(map[string]any{"en": "a\nb"})), Contains: names("operations[0].translations.en")},
		{Name: "update without id", Method: "PUT", Path: list, Token: env.Admin.Token, Status: 400,
			Body: glossaryOps(map[string]any{"type": "update", "translations": map[string]any{"en": "A"}}), Contains: names("operations[0].id")},
		{Name: "delete without id", Method: "PUT", Path: list, Token: env.Admin.Token, Status: 400,
			Body: glossaryOps(map[string]any{"type": "delete"}), Contains: names("operations[0].id")},
		{Name: "put below create role", Method: "PUT", Path: list, Token: reviewer.Token, Status: 403, Body: glossaryOps()},
		{Name: "put without token", Method: "PUT", Path: list, Status: 401, Body: glossaryOps()},
		{Name: "put in another organization", Method: "PUT", Path: list, Token: foreign.Token, Status: 404, Body: glossaryOps()},
		{Name: "list without token", Method: "GET", Path: list, Status: 401},
		{Name: "list from another organization", Method: "GET", Path: list, Token: foreign.Token, Status: 404},
	})

	l := env.Must(200, "GET", list, reader.Token, nil)
	all := items(t, l)
	if l.JSON()["count"] != float64(2) || len(all) != 2 {
		t.Fatalf("list after a failed batch: %v (nothing of a rejected batch is applied)", l.JSON())
	}
	space, docs := all[0], all[1]
	for _, e := range all {
		apitest.Keys(t, e, glossaryKeys...)
		if e["object"] != "glossary-entry" || !strings.HasSuffix(e["urls"].(map[string]any)["location"].(string), list+"/"+e["id"].(string)) {
			t.Errorf("entry %v", e)
		}
	}
	sameJSON(t, "first entry", space["translations"], map[string]any{"en": "Space", "fr": "Espace"})
	one := list + "/" + space["id"].(string)
	env.Run(t, []apitest.Scenario{
		{Name: "page", Method: "GET", Path: list + "?limit=1", Token: reader.Token, Status: 200, Check: func(r apitest.Response) {
			if len(items(t, r)) != 1 || r.JSON()["next"] == nil {
				t.Errorf("page %v", r.JSON())
			}
		}},
		{Name: "get", Method: "GET", Path: one, Token: reader.Token, Status: 200, Check: func(r apitest.Response) {
			apitest.Keys(t, r.JSON(), glossaryKeys...)
			sameJSON(t, "entry", r.JSON()["translations"], map[string]any{"en": "Space", "fr": "Espace"})
		}},
		{Name: "get unknown", Method: "GET", Path: list + "/nope", Token: reader.Token, Status: 404},
		{Name: "get without token", Method: "GET", Path: one, Status: 401},
		{Name: "get from another organization", Method: "GET", Path: one, Token: foreign.Token, Status: 404},
		{Name: "get in the other organization's path", Method: "GET", Path: "/v1/orgs/" + otherOrg + "/translations-glossary/" + space["id"].(string), Token: foreign.Token, Status: 404},
		// All or nothing: the insert and the update before the unknown id are not applied.
		{Name: "batch with an unknown id", Method: "PUT", Path: list, Token: env.Admin.Token, Status: 400,
			Body: glossaryOps(insertOp(map[string]any{"en": "New"}),
				map[string]any{"type": "update", "id": space["id"], "translations": map[string]any{"en": "Room"}},
				map[string]any{"type": "delete", "id": "nope"}),
			Contains: names("operations[2].id")},
		{Name: "another organization cannot change an entry", Method: "PUT", Path: "/v1/orgs/" + otherOrg + "/translations-glossary", Token: foreign.Token, Status: 400,
			Body: glossaryOps(map[string]any{"type": "delete", "id": space["id"]}), Contains: names("operations[0].id")},
	})
	if l := env.Must(200, "GET", list, reader.Token, nil); l.JSON()["count"] != float64(2) {
		t.Errorf("after a rejected batch: %v", l.JSON())
	}
	sameJSON(t, "untouched", env.Must(200, "GET", one, reader.Token, nil).JSON()["translations"], map[string]any{"en": "Space", "fr": "Espace"})

	env.Must(204, "PUT", list, creator.Token, glossaryOps(
		map[string]any{"type": "update", "id": space["id"], "translations": map[string]any{"en": "Space", "fr": "Espace", "de": "Bereich"}},
		map[string]any{"type": "delete", "id": docs["id"]}))
	sameJSON(t, "updated", env.Must(200, "GET", one, reader.Token, nil).JSON()["translations"], map[string]any{"en": "Space", "fr": "Espace", "de": "Bereich"})
	env.Must(404, "GET", list+"/"+docs["id"].(string), reader.Token, nil)

	// GraphQL answers the same.
	data := gqlData(t, env, reader.Token, `query($o: ID!) { glossaryEntries(organizationId: $o) { count items { object id translations } } }`, map[string]any{"o": env.Org})
	if gl := data["glossaryEntries"].(map[string]any); gl["count"] != float64(1) {
		t.Errorf("GraphQL %v", gl)
	}
	const mutation = `mutation($o: ID!, $in: UpdateGlossaryEntriesInput!) { updateGlossaryEntries(organizationId: $o, input: $in) }`
	in := map[string]any{"operations": []any{map[string]any{"type": "INSERT", "translations": map[string]any{"en": "Page", "fr": "Page"}}}}
	if _, errs := env.GraphQL(reader.Token, mutation, map[string]any{"o": env.Org, "in": in}); len(errs) == 0 {
		t.Error("a reader changed the glossary through GraphQL")
	}
	if d := gqlData(t, env, creator.Token, mutation, map[string]any{"o": env.Org, "in": in}); d["updateGlossaryEntries"] != true {
		t.Errorf("GraphQL mutation %v", d)
	}
	if l := env.Must(200, "GET", list, reader.Token, nil); l.JSON()["count"] != float64(2) {
		t.Errorf("after the GraphQL insert: %v", l.JSON())
	}
}

// A run translates a glossary term of the source language as the entry's
// term in the target language: the test server upper-cases what it gets,
// so a term in its original case was never sent.
func TestGlossaryAppliedByTranslationRun(t *testing.T) {
	l := newLibre(t, "k")
	env := translationEnv(t, l, "k")
	space := newSpace(t, env, env.Org)
	addPage(t, env, space, map[string]any{"title": "Space setup", "markdown": "Create a space in Docs, then open a change request.\n\nSpaces stay as they are.\n"})
	env.Must(204, "PUT", "/v1/orgs/"+env.Org+"/translations-glossary", env.Admin.Token, glossaryOps(
		insertOp(map[string]any{"en": "space", "fr": "Espace"}),
		insertOp(map[string]any{"en": "Change request", "fr": "demande de modification"}),
		insertOp(map[string]any{"en": "Docs", "de": "Doku"}), // no French term: translated as usual
		insertOp(map[string]any{"fr": "Bonjour", "de": "Hallo"}),
	))
	org := "/v1/orgs/" + env.Org + "/translations"
	tr := env.Must(201, "POST", org, env.Admin.Token, translationBody(space)).JSON()
	if res := runTranslations(t, env); len(res) != 1 || res[0].Err != nil {
		t.Fatalf("run %+v", res)
	}
	got := env.Must(200, "GET", org+"/"+tr["id"].(string), env.Admin.Token, nil).JSON()
	target := got["result"].(map[string]any)["space"].(string)
	pages := env.Must(200, "GET", "/v1/spaces/"+target+"/content", env.Admin.Token, nil).JSON()["pages"].([]any)
	tp := pages[0].(map[string]any)
	if tp["title"] != "Espace SETUP" {
		t.Errorf("title %v", tp["title"])
	}
	page := env.Must(200, "GET", "/v1/spaces/"+target+"/content/page/"+tp["id"].(string), env.Admin.Token, nil).JSON()
	want := "CREATE A Espace IN DOCS, THEN OPEN A demande de modification.\n\nSPACES STAY AS THEY ARE.\n"
	if page["markdown"] != want {
		t.Errorf("translated body:\n%q\nwant:\n%q", page["markdown"], want)
	}

	// A glossary change translates every page again on the next run, even
	// though the source did not change; a run after it has nothing to do.
	glossaryURL := "/v1/orgs/" + env.Org + "/translations-glossary"
	entries := items(t, env.Must(200, "GET", glossaryURL, env.Admin.Token, nil))
	env.Must(204, "PUT", glossaryURL, env.Admin.Token, glossaryOps(
		map[string]any{"type": "update", "id": entries[0]["id"], "translations": map[string]any{"en": "space", "fr": "Zone"}}))
	env.Must(202, "POST", org+"/"+tr["id"].(string)+"/run", env.Admin.Token, nil)
	if res := runTranslations(t, env); len(res) != 1 || res[0].Err != nil || res[0].Pages != 1 || res[0].Revision == "" {
		t.Fatalf("run after a glossary change %+v", res)
	}
	pages = env.Must(200, "GET", "/v1/spaces/"+target+"/content", env.Admin.Token, nil).JSON()["pages"].([]any)
	if title := pages[0].(map[string]any)["title"]; title != "Zone SETUP" {
		t.Errorf("title after the glossary change %v", title)
	}
	env.Must(202, "POST", org+"/"+tr["id"].(string)+"/run", env.Admin.Token, nil)
	if res := runTranslations(t, env); len(res) != 1 || res[0].Err != nil || res[0].Pages != 0 || res[0].Revision != "" {
		t.Fatalf("run with nothing changed %+v", res)
	}
}
