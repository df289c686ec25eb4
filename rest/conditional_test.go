package rest_test

import (
	"net/http"
	"strings"
	"testing"

	"docsapi/apitest"
)

func TestETagAndIfNoneMatch(t *testing.T) {
	env := apitest.New(t)
	tok := env.Admin.Token
	team := env.Must(201, "PUT", "/v1/orgs/"+env.Org+"/teams", tok, map[string]any{"title": "Writers"}).JSON()["id"].(string)
	for _, p := range []string{
		"/v1/orgs/" + env.Org,
		"/v1/orgs/" + env.Org + "/teams/" + team,
		"/v1/orgs/" + env.Org + "/members/" + env.Admin.ID,
		"/v1/users/" + env.Admin.ID,
		"/v1/user",
	} {
		r := env.Must(200, "GET", p, tok, nil)
		tag := r.Header.Get("ETag")
		if !strings.HasPrefix(tag, `W/"`) {
			t.Fatalf("GET %s: ETag %q", p, tag)
		}
		r = env.Do("GET", p, tok, nil, "If-None-Match", tag)
		if r.Status != http.StatusNotModified || len(r.Body) != 0 || r.Header.Get("ETag") != tag {
			t.Errorf("GET %s with its ETag: %d %q", p, r.Status, r.Body)
		}
		if r = env.Do("GET", p, tok, nil, "If-None-Match", `W/"other", `+strings.TrimPrefix(tag, "W/")); r.Status != http.StatusNotModified {
			t.Errorf("GET %s with a list naming its ETag (strong form): %d", p, r.Status)
		}
		if r = env.Do("GET", p, tok, nil, "If-None-Match", `W/"other"`); r.Status != 200 || len(r.Body) == 0 {
			t.Errorf("GET %s with another ETag: %d", p, r.Status)
		}
	}
	// A change gives a new ETag; the old one no longer answers 304.
	p := "/v1/orgs/" + env.Org + "/teams/" + team
	old := env.Must(200, "GET", p, tok, nil).Header.Get("ETag")
	env.Must(200, "PATCH", p, tok, map[string]any{"title": "Editors"})
	r := env.Do("GET", p, tok, nil, "If-None-Match", old)
	if r.Status != 200 || r.Header.Get("ETag") == old {
		t.Errorf("after a change: %d, ETag %s (was %s)", r.Status, r.Header.Get("ETag"), old)
	}
	// Refusals stay refusals.
	other, foreign := env.NewOrg("Other", "admin@other.test")
	_ = other
	if r := env.Do("GET", p, foreign.Token, nil, "If-None-Match", "*"); r.Status != 404 {
		t.Errorf("another organization with If-None-Match *: %d", r.Status)
	}
}

func TestIfMatch(t *testing.T) {
	env := apitest.New(t)
	tok := env.Admin.Token
	org := "/v1/orgs/" + env.Org
	team := org + "/teams/" + env.Must(201, "PUT", org+"/teams", tok, map[string]any{"title": "Writers"}).JSON()["id"].(string)
	member := env.NewUser("m@acme.test", env.Org, "read")
	memberPath := org + "/members/" + member.ID

	for _, p := range []struct{ path, field, v1, v2 string }{
		{org, "title", "Acme One", "Acme Two"},
		{team, "title", "Team One", "Team Two"},
		{memberPath, "role", "edit", "comment"},
	} {
		tag := env.Must(200, "GET", p.path, tok, nil).Header.Get("ETag")
		// The matching ETag lets the write through; the answer carries the new ETag.
		r := env.Do("PATCH", p.path, tok, map[string]any{p.field: p.v1}, "If-Match", tag)
		if r.Status != 200 {
			t.Fatalf("PATCH %s with the current ETag: %d %s", p.path, r.Status, r.Body)
		}
		newTag := r.Header.Get("ETag")
		if got := env.Must(200, "GET", p.path, tok, nil).Header.Get("ETag"); newTag == "" || newTag != got {
			t.Errorf("PATCH %s answered ETag %q, GET answers %q", p.path, newTag, got)
		}
		// The old ETag is now stale: 412, nothing written.
		r = env.Do("PATCH", p.path, tok, map[string]any{p.field: p.v2}, "If-Match", tag)
		if r.Status != http.StatusPreconditionFailed || r.Header.Get("ETag") != newTag {
			t.Fatalf("PATCH %s with a stale ETag: %d %s", p.path, r.Status, r.Body)
		}
		apitest.ErrorShape(t, r)
		if v := env.Must(200, "GET", p.path, tok, nil).JSON()[p.field]; v != p.v1 {
			t.Errorf("a refused write changed %s.%s to %v", p.path, p.field, v)
		}
		// "*" matches any current representation; no If-Match writes as always.
		env.Must(200, "PATCH", p.path, tok, map[string]any{p.field: p.v2})
		if r := env.Do("PATCH", p.path, tok, map[string]any{p.field: p.v1}, "If-Match", "*"); r.Status != 200 {
			t.Errorf("If-Match *: %d", r.Status)
		}
	}

	// DELETE: stale → 412 and kept; current → deleted; gone → 412.
	tag := env.Must(200, "GET", team, tok, nil).Header.Get("ETag")
	env.Must(200, "PATCH", team, tok, map[string]any{"title": "Renamed"})
	if r := env.Do("DELETE", team, tok, nil, "If-Match", tag); r.Status != 412 {
		t.Fatalf("DELETE with a stale ETag: %d", r.Status)
	}
	tag = env.Must(200, "GET", team, tok, nil).Header.Get("ETag")
	if r := env.Do("DELETE", team, tok, nil, "If-Match", tag); r.Status != 205 {
		t.Fatalf("DELETE with the current ETag: %d %s", r.Status, r.Body)
	}
	if r := env.Do("DELETE", team, tok, nil, "If-Match", tag); r.Status != 412 {
		t.Errorf("DELETE of a deleted team with If-Match: %d", r.Status)
	}
	env.Must(204, "DELETE", team, tok, nil)

	// Authorization still comes from the resolvers.
	_, foreign := env.NewOrg("Other", "admin@other.test")
	if r := env.Do("PATCH", memberPath, foreign.Token, map[string]any{"role": "read"}, "If-Match", "*"); r.Status != 412 && r.Status != 404 {
		t.Errorf("another organization: %d", r.Status)
	}
	mtag := env.Must(200, "GET", memberPath, member.Token, nil).Header.Get("ETag")
	if r := env.Do("PATCH", memberPath, member.Token, map[string]any{"role": "admin"}, "If-Match", mtag); r.Status != 403 {
		t.Errorf("a member raising their own role with a current ETag: %d", r.Status)
	}
}
