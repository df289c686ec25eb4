package server_test

import (
	"bytes"
	"testing"

	"docsapi/apitest"
	"docsapi/server"
)

// The page view answered by answerPOST (Accept: application/json) is byte
// for byte gqlgen's own POST transport's answer (an Accept list it leaves
// to it), comment bodies with characters json.Marshal escapes included;
// so are refusals with their statuses.
func TestAnswerPOSTWritesAsGqlgen(t *testing.T) {
	env := apitest.New(t, apitest.Options{Config: func(c *server.Config) { withServeDefaults(c) }})
	f := newDocsFixture(t, env, 30, 3)
	env.Must(200, "POST", "/v1/spaces/"+f.space+"/comments", env.Admin.Token, map[string]any{"body": map[string]any{"markdown": "a <b> & c \u2028 d"}, "page": f.page})
	for _, body := range []map[string]any{
		{"query": pageView, "variables": map[string]any{"space": f.space, "page": f.page, "comments": 50}},
		{"query": pageView, "variables": map[string]any{"space": "nope", "page": f.page, "comments": 50}},
		{"query": `{ space(spaceId: 1 }`},
		{"query": `{ nosuchfield }`},
	} {
		ours := env.Do("POST", "/graphql", env.Admin.Token, body, "Accept", "application/json")
		theirs := env.Do("POST", "/graphql", env.Admin.Token, body, "Accept", "application/json, text/plain")
		if ours.Status != theirs.Status || !bytes.Equal(ours.Body, theirs.Body) {
			i := 0
			for i < min(len(ours.Body), len(theirs.Body)) && ours.Body[i] == theirs.Body[i] {
				i++
			}
			t.Logf("first difference at %d: %q | %q", i, ours.Body[max(i-80, 0):min(i+80, len(ours.Body))], theirs.Body[max(i-80, 0):min(i+80, len(theirs.Body))])
			t.Errorf("%.40s: answerPOST %d %.300s\ngqlgen's POST %d %.300s", body["query"], ours.Status, ours.Body, theirs.Status, theirs.Body)
		}
		if ct := ours.Header.Get("Content-Type"); ct != "application/json" {
			t.Errorf("Content-Type %q", ct)
		}
	}
}
