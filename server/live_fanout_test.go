package server_test

import (
	"encoding/json"
	"testing"
	"time"

	"docsapi/apitest"
	"docsapi/graph"
)

// TestSubscriptionSharedExecution: the subscribers of one event share an
// execution only when they would get the same answer: the same document
// and the same rights (one payload) with no resolver depending on the
// caller. Different selections, different rights, and a selection through
// replyList (each reply's permissions are the caller's) get their own.
func TestSubscriptionSharedExecution(t *testing.T) {
	env := apitest.New(t)
	space := newSpace(env, env.Admin.Token)
	c1 := env.NewUser("c1@acme.test", env.Org, "comment")
	c2 := env.NewUser("c2@acme.test", env.Org, "comment")
	c3 := env.NewUser("c3@acme.test", env.Org, "comment")
	r1 := env.NewUser("r1@acme.test", env.Org, "read")
	r2 := env.NewUser("r2@acme.test", env.Org, "read")
	r3 := env.NewUser("r3@acme.test", env.Org, "read")
	const (
		withReplies = `subscription($s: ID!) { commentUpdated(spaceId: $s) { id permissions { edit reply } replyList { items { id permissions { edit } } } } }`
		withBody    = `subscription($s: ID!) { commentUpdated(spaceId: $s) { id body { markdown } permissions { view reply } } }`
		idOnly      = `subscription($s: ID!) { commentUpdated(spaceId: $s) { id } }`
	)
	subs := map[string]*liveClient{}
	for _, s := range []struct {
		name, token, doc string
	}{{"c1", c1.Token, withReplies}, {"c2", c2.Token, withReplies}, {"c3", c3.Token, withBody},
		{"r1", r1.Token, withBody}, {"r2", r2.Token, withBody}, {"r3", r3.Token, idOnly}} {
		c := dialLive(t, env, nil, bearer(s.token))
		defer c.close()
		c.subscribe("s", s.doc, map[string]any{"s": space})
		subs[s.name] = c
	}
	waitSubscribed(t, env, len(subs))

	comment := postComment(env, env.Admin.Token, space, "first")
	for name, c := range subs {
		if m, err := c.readErr(5 * time.Second); err != nil || m["type"] != "next" {
			t.Fatalf("%s: %v %v", name, m, err)
		}
	}
	reply := env.Must(200, "POST", "/v1/spaces/"+space+"/comments/"+comment+"/replies", c1.Token,
		map[string]any{"body": map[string]any{"markdown": "Re"}}).JSON()["id"].(string)

	shared := graph.LiveResponsesShared()
	env.Must(200, "PUT", "/v1/spaces/"+space+"/comments/"+comment, env.Admin.Token,
		map[string]any{"body": map[string]any{"markdown": "edited"}})
	got, frames := map[string]string{}, map[string]string{}
	for name, c := range subs {
		b, m, err := c.readRaw(5 * time.Second)
		if err != nil || m["type"] != "next" {
			t.Fatalf("%s: %v %v", name, m, err)
		}
		frames[name] = string(b)
		p := m["payload"].(map[string]any)
		if data, _ := p["data"].(map[string]any); data != nil && data["commentUpdated"] != nil {
			got[name] = mustJSON(t, data["commentUpdated"])
		} else {
			t.Fatalf("%s: %s", name, b)
		}
	}
	want := map[string]string{
		// replyList answers in a subscription, each reply's permissions
		// its subscriber's own: c1 wrote the reply, c2 did not.
		"c1": `{"id":"` + comment + `","permissions":{"edit":false,"reply":true},"replyList":{"items":[{"id":"` + reply + `","permissions":{"edit":true}}]}}`,
		"c2": `{"id":"` + comment + `","permissions":{"edit":false,"reply":true},"replyList":{"items":[{"id":"` + reply + `","permissions":{"edit":false}}]}}`,
		"c3": `{"body":{"markdown":"edited"},"id":"` + comment + `","permissions":{"reply":true,"view":true}}`,
		"r1": `{"body":{"markdown":"edited"},"id":"` + comment + `","permissions":{"reply":false,"view":true}}`,
		"r2": `{"body":{"markdown":"edited"},"id":"` + comment + `","permissions":{"reply":false,"view":true}}`,
		"r3": `{"id":"` + comment + `"}`,
	}
	for name, w := range want {
		if got[name] != w {
			t.Errorf("%s got %s\nwant %s", name, got[name], w)
		}
	}
	// r1 and r2 (one document, one set of rights) are the only pair alike:
	// c1 and c2 have one document and one payload too, but their selection
	// reaches a resolver (replyList), whose answer may be the caller's.
	if n := graph.LiveResponsesShared() - shared; n != 1 {
		t.Errorf("%d responses shared, want 1 (r2's or r1's)", n)
	}
	// On the wire: r1 and r2 (one subscription id) get the same bytes, the
	// shared encoding; the others each their own, which differ.
	if frames["r1"] != frames["r2"] {
		t.Errorf("r1 and r2 got different frames:\n%s\n%s", frames["r1"], frames["r2"])
	}
	for _, pair := range [][2]string{{"c1", "c2"}, {"c3", "r1"}, {"r1", "r3"}} {
		if frames[pair[0]] == frames[pair[1]] {
			t.Errorf("%s and %s got the same frame %s", pair[0], pair[1], frames[pair[0]])
		}
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
