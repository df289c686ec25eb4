package rest_test

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestTenantIsolationInBodies: the admin of one organization sends every
// operation that takes a body, on their own resources, with every declared
// body field set to the real id of another organization's resource of the
// matching kind. Nothing of the other organization changes, and no answer
// accepts and shows back one of its ids.
func TestTenantIsolationInBodies(t *testing.T) {
	fx := newFuzzFixture(t)
	env := fx.env
	otherOrg, other := env.NewOrg("Other", "admin@other.test")
	v1 := "/v1/orgs/" + otherOrg
	theirs := map[string]string{"organization": otherOrg, "user": other.ID}
	theirs["space"] = env.Must(201, "POST", v1+"/spaces", other.Token, map[string]any{"title": "Secret"}).JSON()["id"].(string)
	theirs["collection"] = env.Must(201, "POST", v1+"/collections", other.Token, map[string]any{"title": "Secret"}).JSON()["id"].(string)
	theirs["team"] = env.Must(201, "PUT", v1+"/teams", other.Token, map[string]any{"title": "Secret"}).JSON()["id"].(string)
	theirs["site"] = env.Must(201, "POST", v1+"/sites", other.Token, map[string]any{"title": "Secret", "spaces": []string{theirs["space"]}}).JSON()["id"].(string)
	theirs["installation"] = env.Must(201, "POST", "/v1/integrations/chat/installations", other.Token, map[string]any{"organization": otherOrg}).JSON()["id"].(string)
	snapshot := func() string {
		var b strings.Builder
		for _, p := range []string{v1, v1 + "/spaces", v1 + "/collections", v1 + "/teams", v1 + "/members", v1 + "/sites",
			v1 + "/sites/" + theirs["site"] + "/site-spaces", "/v1/spaces/" + theirs["space"], "/v1/spaces/" + theirs["space"] + "/content",
			"/v1/collections/" + theirs["collection"], "/v1/integrations/chat/installations/" + theirs["installation"]} {
			r := env.Must(200, "GET", p, other.Token, nil)
			b.WriteString(p + " " + string(r.Body) + "\n")
		}
		return b.String()
	}
	before := snapshot()
	idFor := func(field string) string {
		f := strings.ToLower(field)
		for _, kind := range []string{"installation", "collection", "parent", "team", "site", "space", "organization", "org", "user", "member"} {
			if strings.Contains(f, kind) {
				switch kind {
				case "parent":
					kind = "collection"
				case "org":
					kind = "organization"
				case "member":
					kind = "user"
				}
				return theirs[kind]
			}
		}
		return theirs["space"]
	}
	isTheirs := map[string]bool{}
	for _, id := range theirs {
		isTheirs[id] = true
	}
	sent := 0
	for _, o := range fx.ops {
		if o.Body == nil || strings.HasSuffix(o.Path, "/render") {
			continue
		}
		props, _ := fx.resolve(o.Body)["properties"].(map[string]any)
		for name, schema := range props {
			id := idFor(name)
			var value any = id
			if s := fx.resolve(schema); s["type"] == "array" {
				value = []any{id}
			}
			for _, body := range []map[string]any{{name: value}, {name: value, "title": "x"}} {
				raw, _ := json.Marshal(body)
				status, answer := fx.send(t, o.Method, fx.path(o), raw)
				sent++
				checkAnswer(t, o.Method+" "+o.Path, status, answer)
				if status < 300 {
					if leaked := findIDs(answer, isTheirs); leaked != "" {
						t.Errorf("%s %s %s: %d shows their id %s: %.300s", o.Method, o.Path, raw, status, leaked, answer)
					}
				}
			}
		}
	}
	if after := snapshot(); after != before {
		t.Fatalf("the other organization changed:\nbefore %s\nafter %s", before, after)
	}
	t.Logf("%d requests", sent)
}

// refKeys are the answer fields that reference a resource by id (free
// text such as a title may hold any string the caller sent).
var refKeys = map[string]bool{"organization": true, "space": true, "site": true, "parent": true, "collection": true,
	"team": true, "user": true, "spaces": true, "sites": true, "owner": true, "target": true}

// opaqueKeys hold strings the caller chooses freely (an installation's
// external ids, a change request's agent task id): echoing them back is
// not a reference to anything.
var opaqueKeys = map[string]bool{"externalids": true, "agenttaskid": true}

// findIDs returns the first of ids that answer (JSON) holds in a field
// referencing a resource (refKeys, or a name ending in "id").
func findIDs(answer []byte, ids map[string]bool) string {
	var v any
	if json.Unmarshal(answer, &v) != nil {
		return ""
	}
	var walk func(key string, v any) string
	walk = func(key string, v any) string {
		switch x := v.(type) {
		case string:
			k := strings.ToLower(key)
			if opaqueKeys[k] {
				return "" // the caller's own labels, not references
			}
			if ids[x] && (refKeys[k] || strings.HasSuffix(k, "id") || strings.HasSuffix(k, "ids")) {
				return key + "=" + x
			}
		case []any:
			for _, e := range x {
				if s := walk(key, e); s != "" {
					return s
				}
			}
		case map[string]any:
			for k, e := range x {
				if refKeys[strings.ToLower(key)] && k == "id" {
					k = key // space: {id: ...}
				}
				if s := walk(k, e); s != "" {
					return s
				}
			}
		}
		return ""
	}
	return walk("", v)
}
