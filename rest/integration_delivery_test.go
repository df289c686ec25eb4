package rest_test

import (
	"context"
	"encoding/json"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	lzstring "github.com/daku10/go-lz-string"

	"docsapi/apitest"
	"docsapi/delivery"
	"docsapi/storage"
)

// receiver is a development tunnel that checks every delivery's signature.
type receiver struct {
	t      *testing.T
	env    *apitest.Env
	srv    *httptest.Server
	secret string
	status int    // answer status; 200 when 0
	answer string // answer body
	header http.Header

	mu       sync.Mutex
	got      []map[string]any
	headers  []http.Header
	received chan struct{}
}

func newReceiver(t *testing.T, env *apitest.Env) *receiver {
	rc := &receiver{t: t, env: env, received: make(chan struct{}, 10000), header: http.Header{}}
	rc.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if err := delivery.Verify(rc.secret, r.Header, body, env.Clock.Now(), 5*time.Minute); err != nil {
			t.Errorf("delivery with a bad signature: %v", err)
			w.WriteHeader(401)
			return
		}
		var payload map[string]any
		json.Unmarshal(body, &payload)
		rc.mu.Lock()
		rc.got = append(rc.got, payload)
		rc.headers = append(rc.headers, r.Header.Clone())
		rc.mu.Unlock()
		for k, v := range rc.header {
			w.Header()[k] = v
		}
		if rc.status != 0 {
			w.WriteHeader(rc.status)
		}
		io.WriteString(w, rc.answer)
		rc.received <- struct{}{}
	}))
	t.Cleanup(rc.srv.Close)
	return rc
}

func (rc *receiver) count() int {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return len(rc.got)
}

// devMode turns development mode on for name and learns the signing secret
// the way an integration's developer does (GraphQL).
func (rc *receiver) devMode(u apitest.User, name string, all bool) {
	rc.env.Must(204, "PUT", "/v1/integrations/"+name+"/dev", u.Token, map[string]any{"tunnelUrl": rc.srv.URL, "all": all})
	data, errs := rc.env.GraphQL(u.Token, `query($n: String!) { integrationDevelopment(integrationName: $n) { enabled tunnelUrl all signingSecret } }`, map[string]any{"n": name})
	if len(errs) > 0 {
		rc.t.Fatalf("integrationDevelopment: %+v", errs)
	}
	d := data["integrationDevelopment"].(map[string]any)
	if d["enabled"] != true || d["tunnelUrl"] != rc.srv.URL || d["all"] != all {
		rc.t.Fatalf("development: %v", d)
	}
	rc.secret = d["signingSecret"].(string)
}

func logMessages(logs []map[string]any) string {
	var out []string
	for _, l := range logs {
		out = append(out, l["level"].(string)+": "+l["message"].(string))
	}
	return strings.Join(out, "\n")
}

func TestDeliveryToTunnel(t *testing.T) {
	env := apitest.New(t)
	publish(env, env.Admin, "chat", env.Org, nil)
	rc := newReceiver(t, env)
	rc.devMode(env.Admin, "chat", false)
	id := install(env, env.Admin, "chat", env.Org)

	evs := events(env, env.Admin, "chat")
	if len(evs) != 1 || evs[0]["status"] != "pending" {
		t.Fatalf("before delivery: %v", evs)
	}
	if n := drain(t, env); n != 1 || rc.count() != 1 {
		t.Fatalf("delivered %d, received %d", n, rc.count())
	}
	got := rc.got[0]
	if got["type"] != "installation_setup" || got["installationId"] != id || got["eventId"] != evs[0]["id"] {
		t.Errorf("payload: %v", got)
	}
	h := rc.headers[0]
	if h.Get(delivery.HeaderEventID) != evs[0]["id"] || h.Get(delivery.HeaderEventType) != "installation_setup" ||
		h.Get(delivery.HeaderIntegration) != "chat" || h.Get(delivery.HeaderAttempt) != "1" {
		t.Errorf("headers: %v", h)
	}
	if h.Get("Content-Security-Policy") != "" {
		t.Errorf("CSP sent with an installation event")
	}
	event, logs := eventDetail(env, env.Admin, "chat", evs[0]["id"].(string))
	if event["status"] != "success" || !strings.Contains(logMessages(logs), "delivery attempt 1/5 to "+rc.srv.URL+": HTTP 200") {
		t.Errorf("after delivery: %v\n%s", event, logMessages(logs))
	}
	if drain(t, env) != 0 {
		t.Error("delivered twice")
	}
	// A rotated secret signs the next deliveries.
	data, errs := env.GraphQL(env.Admin.Token, `mutation { rotateIntegrationSigningSecret(integrationName: "chat") { signingSecret } }`, nil)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	rc.secret = data["rotateIntegrationSigningSecret"].(map[string]any)["signingSecret"].(string)
	env.Must(200, "PATCH", "/v1/integrations/chat/installations/"+id, env.Admin.Token, map[string]any{"externalIds": []string{"x"}})
	drain(t, env)
	if rc.count() != 2 {
		t.Fatalf("received %d", rc.count())
	}
}

func TestDeliveryRetriesThenFails(t *testing.T) {
	env := apitest.New(t)
	publish(env, env.Admin, "chat", env.Org, nil)
	rc := newReceiver(t, env)
	rc.status, rc.answer = 503, "tunnel down"
	rc.devMode(env.Admin, "chat", false)
	id := install(env, env.Admin, "chat", env.Org)
	eventID := events(env, env.Admin, "chat")[0]["id"].(string)

	backoff := time.Second
	for attempt := 1; attempt <= 5; attempt++ {
		if n := drain(t, env); n != 1 {
			t.Fatalf("attempt %d: %d deliveries due", attempt, n)
		}
		if rc.headers[attempt-1].Get(delivery.HeaderAttempt) != string(rune('0'+attempt)) {
			t.Errorf("attempt header %q", rc.headers[attempt-1].Get(delivery.HeaderAttempt))
		}
		if attempt < 5 {
			// Not due before its backoff has passed...
			env.Clock.Advance(backoff - time.Millisecond)
			if n := drain(t, env); n != 0 {
				t.Fatalf("attempt %d retried before its backoff", attempt)
			}
			env.Clock.Advance(time.Millisecond)
			backoff *= 2
		}
	}
	event, logs := eventDetail(env, env.Admin, "chat", eventID)
	msgs := logMessages(logs)
	if event["status"] != "failed" || strings.Count(msgs, "HTTP 503 tunnel down") != 5 ||
		!strings.Contains(msgs, "retrying in 8s") || !strings.Contains(msgs, "error: delivery failed after 5 attempts") {
		t.Fatalf("event %v\n%s", event, msgs)
	}
	env.Clock.Advance(time.Hour)
	if drain(t, env) != 0 || rc.count() != 5 {
		t.Fatalf("delivered after failing: %d", rc.count())
	}

	// A runtime that refuses an event (4xx) is not retried.
	rc.status = 400
	env.Must(200, "PATCH", "/v1/integrations/chat/installations/"+id, env.Admin.Token, map[string]any{"externalIds": []string{"a"}})
	drain(t, env)
	env.Clock.Advance(time.Hour)
	if drain(t, env) != 0 || rc.count() != 6 {
		t.Fatalf("4xx retried: %d", rc.count())
	}
}

func TestDeliveryAllFlag(t *testing.T) {
	env := apitest.New(t)
	otherOrg, foreign := env.NewOrg("Other", "admin@other.test")
	publish(env, env.Admin, "chat", env.Org, nil)
	rc := newReceiver(t, env)
	rc.devMode(env.Admin, "chat", false)

	id := install(env, foreign, "chat", otherOrg)
	drain(t, env)
	if rc.count() != 0 {
		t.Fatal("another organization's event was forwarded without all")
	}
	e := events(env, env.Admin, "chat")[0]
	_, logs := eventDetail(env, env.Admin, "chat", e["id"].(string))
	if e["status"] != "success" || !strings.Contains(logMessages(logs), "not forwarded") {
		t.Fatalf("not forwarded event: %v %s", e, logMessages(logs))
	}
	install(env, env.Admin, "chat", env.Org)
	drain(t, env)
	if rc.count() != 1 {
		t.Fatalf("owner's event: received %d", rc.count())
	}

	rc.devMode(env.Admin, "chat", true)
	env.Must(200, "PATCH", "/v1/integrations/chat/installations/"+id, foreign.Token, map[string]any{"externalIds": []string{"a"}})
	drain(t, env)
	if rc.count() != 2 || rc.got[1]["installationId"] != id {
		t.Fatalf("with all: received %d", rc.count())
	}

	// Turning development mode off fails what is still queued.
	env.Must(200, "PATCH", "/v1/integrations/chat/installations/"+id, foreign.Token, map[string]any{"externalIds": []string{"b"}})
	env.Must(205, "DELETE", "/v1/integrations/chat/dev", env.Admin.Token, nil)
	env.Must(205, "DELETE", "/v1/integrations/chat/dev", env.Admin.Token, nil)
	drain(t, env)
	e = events(env, env.Admin, "chat")[0]
	_, logs = eventDetail(env, env.Admin, "chat", e["id"].(string))
	if rc.count() != 2 || e["status"] != "failed" || !strings.Contains(logMessages(logs), "development mode was turned off") {
		t.Fatalf("after dev off: %d %v %s", rc.count(), e, logMessages(logs))
	}
	// With development mode off, events are recorded only.
	env.Must(200, "PATCH", "/v1/integrations/chat/installations/"+id, foreign.Token, map[string]any{"externalIds": []string{"c"}})
	if e = events(env, env.Admin, "chat")[0]; e["status"] != "success" {
		t.Fatalf("dev off: %v", e)
	}
}

func TestDevelopmentModeValidation(t *testing.T) {
	env := apitest.New(t)
	member := env.NewUser("create@acme.test", env.Org, "create")
	_, foreign := env.NewOrg("Other", "admin@other.test")
	publish(env, env.Admin, "chat", env.Org, nil)
	dev := "/v1/integrations/chat/dev"
	env.Run(t, []apitest.Scenario{
		{Name: "without tunnelUrl", Method: "PUT", Path: dev, Token: env.Admin.Token, Body: map[string]any{"all": true}, Status: 400, Contains: []string{"tunnelUrl"}},
		{Name: "empty tunnelUrl", Method: "PUT", Path: dev, Token: env.Admin.Token, Body: map[string]any{"tunnelUrl": ""}, Status: 400, Contains: []string{"tunnelUrl"}},
		{Name: "tunnelUrl too long", Method: "PUT", Path: dev, Token: env.Admin.Token, Body: map[string]any{"tunnelUrl": "https://x.example/" + strings.Repeat("a", 250)}, Status: 400, Contains: []string{"tunnelUrl"}},
		{Name: "not http", Method: "PUT", Path: dev, Token: env.Admin.Token, Body: map[string]any{"tunnelUrl": "ftp://x.example"}, Status: 400, Contains: []string{"tunnelUrl"}},
		{Name: "all not a boolean", Method: "PUT", Path: dev, Token: env.Admin.Token, Body: map[string]any{"tunnelUrl": "https://x.example", "all": "yes"}, Status: 400, Contains: []string{"all"}},
		{Name: "below admin", Method: "PUT", Path: dev, Token: member.Token, Body: map[string]any{"tunnelUrl": "https://x.example"}, Status: 403},
		{Name: "other organization", Method: "PUT", Path: dev, Token: foreign.Token, Body: map[string]any{"tunnelUrl": "https://x.example"}, Status: 403},
		{Name: "unknown integration", Method: "PUT", Path: "/v1/integrations/nope/dev", Token: env.Admin.Token, Body: map[string]any{"tunnelUrl": "https://x.example"}, Status: 404},
		{Name: "on", Method: "PUT", Path: dev, Token: env.Admin.Token, Body: map[string]any{"tunnelUrl": "https://x.example"}, Status: 204},
		{Name: "off below admin", Method: "DELETE", Path: dev, Token: member.Token, Status: 403},
		{Name: "off", Method: "DELETE", Path: dev, Token: env.Admin.Token, Status: 205},
	})
}

func TestDeliveriesSurviveRestart(t *testing.T) {
	env := apitest.New(t)
	publish(env, env.Admin, "chat", env.Org, nil)
	rc := newReceiver(t, env)
	rc.devMode(env.Admin, "chat", false)
	id := install(env, env.Admin, "chat", env.Org)
	env.Must(200, "PATCH", "/v1/integrations/chat/installations/"+id, env.Admin.Token, map[string]any{"externalIds": []string{"a"}})
	// One attempt is cut off by a crash: it was claimed, never finished.
	claimed, err := env.DB.ClaimDeliveries(context.Background(), env.Clock.Now(), time.Minute, 1)
	if err != nil || len(claimed) != 1 {
		t.Fatalf("claim: %v %v", claimed, err)
	}
	// Stop the process.
	env.HTTP.Close()
	env.DB.Close()

	db, err := storage.Open(env.DBPath, storage.Options{Clock: env.Clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	w := delivery.NewWorker(db, nil, env.Clock.Now, nil)
	if n, err := w.Drain(context.Background()); err != nil || n != 1 || rc.count() != 1 {
		t.Fatalf("after restart: delivered %d (%v), received %d", n, err, rc.count())
	}
	// The interrupted one comes back when its lease runs out.
	env.Clock.Advance(time.Minute)
	if n, _ := w.Drain(context.Background()); n != 1 || rc.count() != 2 {
		t.Fatalf("interrupted delivery: %d, received %d", n, rc.count())
	}
	if rc.headers[1].Get(delivery.HeaderAttempt) != "2" {
		t.Errorf("the interrupted attempt counts: %q", rc.headers[1].Get(delivery.HeaderAttempt))
	}
	it, err := db.IntegrationByName(context.Background(), "chat", "")
	if err != nil {
		t.Fatal(err)
	}
	p, err := db.ListEvents(context.Background(), it.ID, storage.PageQuery{Limit: 10})
	if err != nil || p.Count != 2 {
		t.Fatalf("events: %v %v", p, err)
	}
	for _, e := range p.Items {
		if e.Status != "success" {
			t.Errorf("event %s %s after restart", e.Type, e.Status)
		}
	}
}

// TestLateDeliveryOutcomeIsDropped: an attempt whose lease ran out while
// it was still going (a stalled replica) is claimed again and finished by
// another; the stalled attempt's outcome, arriving last, is dropped (its
// attempt is no longer the delivery's latest claim), logs included.
func TestLateDeliveryOutcomeIsDropped(t *testing.T) {
	env := apitest.New(t)
	publish(env, env.Admin, "chat", env.Org, nil)
	rc := newReceiver(t, env)
	rc.devMode(env.Admin, "chat", false)
	id := install(env, env.Admin, "chat", env.Org)
	env.Must(200, "PATCH", "/v1/integrations/chat/installations/"+id, env.Admin.Token, map[string]any{"externalIds": []string{"a"}})
	ctx := context.Background()
	stalled, err := env.DB.ClaimDeliveries(ctx, env.Clock.Now(), time.Minute, 10)
	if err != nil || len(stalled) == 0 {
		t.Fatalf("claim: %v %v", stalled, err)
	}
	env.Clock.Advance(time.Minute)
	w := delivery.NewWorker(env.DB, nil, env.Clock.Now, nil)
	if n, err := w.Drain(ctx); err != nil || n != len(stalled) {
		t.Fatalf("the other replica's attempts: %d %v", n, err)
	}
	var late []storage.DeliveryOutcome
	for _, d := range stalled {
		late = append(late, storage.DeliveryOutcome{EventID: d.EventID, Attempt: d.Attempt, Status: "failed",
			Logs: []storage.LogLine{{Level: "error", Message: "late outcome", At: env.Clock.Now()}}})
	}
	if err := env.DB.FinishDeliveries(ctx, late); err != nil {
		t.Fatal(err)
	}
	it, err := env.DB.IntegrationByName(ctx, "chat", "")
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range stalled {
		e, logs, err := env.DB.Event(ctx, it.ID, d.EventID)
		if err != nil || e.Status != "success" {
			t.Fatalf("event after the late outcome: %+v %v", e, err)
		}
		for _, l := range logs {
			if l.Message == "late outcome" {
				t.Fatal("the late outcome's log was recorded")
			}
		}
	}
}

// TestDeliveryWorkerLoop runs the background loop: deliveries happen
// without anyone draining, and stopping it waits for attempts in flight.
func TestDeliveryWorkerLoop(t *testing.T) {
	env := apitest.New(t)
	publish(env, env.Admin, "chat", env.Org, nil)
	rc := newReceiver(t, env)
	rc.devMode(env.Admin, "chat", false)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { env.Server.Resolver.Deliveries.Run(ctx); close(done) }()
	id := install(env, env.Admin, "chat", env.Org)
	env.Must(200, "PATCH", "/v1/integrations/chat/installations/"+id, env.Admin.Token, map[string]any{"externalIds": []string{"a"}})
	for range 2 {
		select {
		case <-rc.received:
		case <-time.After(10 * time.Second):
			t.Fatal("the worker did not deliver")
		}
	}
	cancel()
	<-done
}

func compress(t *testing.T, v any) string {
	raw, _ := json.Marshal(v)
	s, err := lzstring.CompressToEncodedURIComponent(string(raw))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// withContext is a copy of a render request with another context.
func withContext(request map[string]any, ctx map[string]any) map[string]any {
	out := maps.Clone(request)
	out["context"] = ctx
	return out
}

func TestRender(t *testing.T) {
	env := apitest.New(t)
	otherOrg, foreign := env.NewOrg("Other", "admin@other.test")
	publish(env, env.Admin, "chat", env.Org, map[string]any{"contentSecurityPolicy": "script-src 'self'"})
	request := map[string]any{"componentId": "chat-block", "props": map[string]any{"q": 1}, "state": map[string]any{},
		"context": map[string]any{"type": "configuration_account", "organizationId": env.Org, "theme": "light"}}
	render := "/v1/integrations/chat/render?request="
	install(env, env.Admin, "chat", env.Org) // a render needs the integration installed in the context's organization
	env.Run(t, []apitest.Scenario{
		{Name: "no runtime", Method: "GET", Path: render + compress(t, request), Token: env.Admin.Token, Status: 409, Contains: []string{"no reachable runtime"}},
		{Name: "malformed", Method: "GET", Path: render + "!!not-lz!!", Token: env.Admin.Token, Status: 400, Contains: []string{"request"}},
		{Name: "missing", Method: "GET", Path: "/v1/integrations/chat/render", Token: env.Admin.Token, Status: 400, Contains: []string{"request"}},
		{Name: "not JSON", Method: "GET", Path: render + compress(t, "just a string"), Token: env.Admin.Token, Status: 400, Contains: []string{"request"}},
		{Name: "without componentId", Method: "GET", Path: render + compress(t, map[string]any{"props": map[string]any{}, "context": map[string]any{"type": "document"}}), Token: env.Admin.Token, Status: 400, Contains: []string{"request.componentId"}},
		// The context is recorded in the ui_render event: it must be a ContentKit context.
		{Name: "unknown context type", Method: "GET", Path: render + compress(t, withContext(request, map[string]any{"type": "configuration", "theme": "light"})), Token: env.Admin.Token, Status: 400, Contains: []string{"request.context.type"}},
		{Name: "context without theme", Method: "GET", Path: render + compress(t, withContext(request, map[string]any{"type": "configuration_account", "organizationId": env.Org})), Token: env.Admin.Token, Status: 400, Contains: []string{"request.context.theme"}},
		{Name: "space context without spaceId", Method: "GET", Path: render + compress(t, withContext(request, map[string]any{"type": "configuration_space", "theme": "dark"})), Token: env.Admin.Token, Status: 400, Contains: []string{"request.context.spaceId"}},
		{Name: "document context without editable", Method: "GET", Path: render + compress(t, withContext(request, map[string]any{"type": "document", "theme": "dark", "spaceId": "s"})), Token: env.Admin.Token, Status: 400, Contains: []string{"request.context.editable"}},
		{Name: "unknown integration", Method: "GET", Path: "/v1/integrations/nope/render?request=" + compress(t, request), Token: env.Admin.Token, Status: 404},
	})
	if e := events(env, env.Admin, "chat")[0]; e["status"] != "failed" || e["payload"].(map[string]any)["type"] != "ui_render" {
		t.Fatalf("refused render not recorded: %v", e)
	}

	rc := newReceiver(t, env)
	rc.answer = `{"type":"element","element":{"type":"block","children":[{"type":"button","label":"Hi","onPress":{"action":"hi"}}]},"state":{},"props":{}}`
	rc.header.Set("Cache-Control", "max-age=86400")
	rc.devMode(env.Admin, "chat", false)
	drain(t, env)
	r := env.Must(200, "GET", render+compress(t, request), env.Admin.Token, nil)
	var want, got any
	json.Unmarshal([]byte(rc.answer), &want)
	json.Unmarshal(r.Body, &got)
	if !reflect.DeepEqual(got, want) || r.Header.Get("Cache-Control") != "max-age=86400" || r.Header.Get("Content-Security-Policy") != "script-src 'self'" {
		t.Fatalf("render: %s %v", r.Body, r.Header)
	}
	sent := rc.got[len(rc.got)-1]
	if sent["type"] != "ui_render" || sent["componentId"] != "chat-block" || sent["installationId"] == nil || sent["auth"].(map[string]any)["userId"] != env.Admin.ID {
		t.Errorf("ui_render event: %v", sent)
	}
	if rc.headers[len(rc.headers)-1].Get("Content-Security-Policy") != "script-src 'self'" {
		t.Errorf("CSP not sent with the block fetch")
	}
	e := events(env, env.Admin, "chat")[0]
	_, logs := eventDetail(env, env.Admin, "chat", e["id"].(string))
	if e["status"] != "success" || !strings.Contains(logMessages(logs), "render sent to") {
		t.Fatalf("render event: %v %s", e, logMessages(logs))
	}
	// Renders are not queued: nothing is left for the worker.
	before := rc.count()
	drain(t, env)
	if rc.count() != before {
		t.Fatal("render delivered twice")
	}
	// Another organization's render (installed there) is not forwarded without all.
	install(env, foreign, "chat", otherOrg)
	drain(t, env)
	request["context"] = map[string]any{"type": "configuration_account", "organizationId": otherOrg, "theme": "dark"}
	env.Must(409, "GET", render+compress(t, request), foreign.Token, nil)
	request["context"] = map[string]any{"type": "configuration_account", "organizationId": env.Org, "theme": "dark"}
	// A runtime that fails or answers nonsense is a 502, recorded.
	rc.status = 500
	env.Must(502, "GET", render+compress(t, request), env.Admin.Token, nil)
	rc.status, rc.answer = 200, `{"type":"nonsense"}`
	env.Must(502, "GET", render+compress(t, request), env.Admin.Token, nil)
	if e := events(env, env.Admin, "chat")[0]; e["status"] != "failed" {
		t.Fatalf("failed render: %v", e)
	}
	// GraphQL renders the same way.
	rc.answer = `{"type":"complete","returnValue":{"ok":true}}`
	data, errs := env.GraphQL(env.Admin.Token, `query($r: String!) { renderIntegrationUI(integrationName: "chat", request: $r) { output cacheControl } }`,
		map[string]any{"r": compress(t, request)})
	if len(errs) > 0 || data["renderIntegrationUI"].(map[string]any)["output"].(map[string]any)["type"] != "complete" {
		t.Fatalf("graphql: %v %+v", data, errs)
	}
}
