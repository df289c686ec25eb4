package rest_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"docsapi/apitest"
	"docsapi/graph"
	"docsapi/server"
	"docsapi/translate"
)

// hostileLibre is a translation server that hangs on any text holding
// "HANG" (until the request's context ends), answers a 200-character
// translation for "LONG" and 1.5 MiB for "HUGE", and upper-cases the rest.
func hostileLibre(t *testing.T) (*httptest.Server, *atomic.Int32) {
	var hanging atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var in struct {
			Q []string `json:"q"`
		}
		json.NewDecoder(r.Body).Decode(&in)
		out := make([]string, len(in.Q))
		for i, s := range in.Q {
			switch {
			case strings.Contains(s, "HANG"):
				hanging.Add(1)
				<-r.Context().Done()
				return
			case strings.Contains(s, "LONG"):
				out[i] = strings.Repeat("L", 200)
			case strings.Contains(s, "HUGE"):
				out[i] = strings.Repeat("h", 3<<19)
			default:
				out[i] = strings.ToUpper(s)
			}
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"translatedText": out})
	}))
	t.Cleanup(srv.Close)
	return srv, &hanging
}

// translationFairBound is how long another organization's run may wait
// while one organization's run hangs on the translation server.
const translationFairBound = 2 * time.Second

// One organization's run hangs on the translation server; another
// organization's run (no page, so no call) completes within
// translationFairBound, and the hanging run fails at its own deadline
// (PROVIDER_ERROR, without the server's address). Before, one runner ran
// one run at a time: the other run waited for the hang's 2 minutes.
func TestTranslationFairnessUnderHang(t *testing.T) {
	srv, hanging := hostileLibre(t)
	env := apitest.New(t, apitest.Options{Config: func(c *server.Config) {
		c.TranslateURL, c.TranslationRunTimeout = srv.URL, 3*time.Second
	}})
	r := env.Server.TranslationRunner()
	done := make(chan translate.Result, 4)
	r.After = func(res translate.Result) { done <- res }
	ctx, stop := context.WithCancel(context.Background())
	stopped := make(chan struct{})
	go func() { defer close(stopped); r.Run(ctx, env.Server.Wakeups(graph.QueueTranslations)) }()
	t.Cleanup(func() { stop(); <-stopped })

	space := newSpace(t, env, env.Org)
	addPage(t, env, space, map[string]any{"title": "Intro", "markdown": "HANG on"})
	hung := env.Must(201, "POST", "/v1/orgs/"+env.Org+"/translations", env.Admin.Token, translationBody(space)).JSON()["id"].(string)
	for deadline := time.Now().Add(5 * time.Second); hanging.Load() == 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the hanging run did not reach the translation server")
		}
	}

	other, user := env.NewOrg("Other", "b@other.test")
	otherSpace := newSpaceAs(t, env, other, user.Token)
	start := time.Now()
	quick := env.Must(201, "POST", "/v1/orgs/"+other+"/translations", user.Token, translationBody(otherSpace)).JSON()["id"].(string)
	select {
	case res := <-done:
		took := time.Since(start)
		t.Logf("the other organization's run completed after %v (bound %v) while a run hung", took.Round(time.Millisecond), translationFairBound)
		if res.TranslationID != quick || res.ErrorCode != "" || took > translationFairBound {
			t.Fatalf("first run to end: %+v after %v", res, took)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the other organization's run had not completed after 30 s")
	}

	select {
	case res := <-done:
		if res.TranslationID != hung || res.ErrorCode != translate.CodeProviderError {
			t.Fatalf("the hanging run: %+v", res)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the hanging run outlived its 3 s deadline")
	}
	got := env.Must(200, "GET", "/v1/orgs/"+env.Org+"/translations/"+hung, env.Admin.Token, nil).JSON()
	msg, _ := got["error"].(map[string]any)["message"].(string)
	if !strings.Contains(msg, "did not finish within 3s") || strings.Contains(msg, strings.TrimPrefix(srv.URL, "http://")) {
		t.Fatalf("the hanging run's error: %q", msg)
	}
}

// The translation server's answer passes the API's page rules: a title
// over 100 characters or Markdown over 1 MiB fails the run naming the
// page and the rule, and writes nothing.
func TestTranslationOutputKeepsTheAPILimits(t *testing.T) {
	srv, _ := hostileLibre(t)
	env := apitest.New(t, apitest.Options{Config: func(c *server.Config) { c.TranslateURL = srv.URL }})
	for _, c := range []struct {
		page map[string]any
		rule string
	}{
		{map[string]any{"title": "LONG title", "markdown": "fine"}, "title: must be at most 100 characters"},
		{map[string]any{"title": "Fine", "markdown": "HUGE body"}, "markdown: must be at most 1048576 bytes"},
	} {
		space := newSpace(t, env, env.Org)
		addPage(t, env, space, c.page)
		id := env.Must(201, "POST", "/v1/orgs/"+env.Org+"/translations", env.Admin.Token, translationBody(space)).JSON()["id"].(string)
		res := runTranslations(t, env)
		if len(res) != 1 || res[0].ErrorCode != translate.CodeProviderError {
			t.Fatalf("%s: %+v", c.rule, res)
		}
		got := env.Must(200, "GET", "/v1/orgs/"+env.Org+"/translations/"+id, env.Admin.Token, nil).JSON()
		msg, _ := got["error"].(map[string]any)["message"].(string)
		if !strings.Contains(msg, c.rule) || got["result"] != nil {
			t.Fatalf("%s: %v", c.rule, got)
		}
	}
}
